// Intake's copy of Config's forms: when it is trusted, when a run rewrites it, and that doPost then reads no Config.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handleDelivery } from '../../../../src/core/intake/intake';
import {
  CONFIG_EDITED_PROPERTY,
  FORMS_MIRROR_MAX_AGE_MS,
  FORMS_MIRROR_PROPERTY,
  MIRROR_CLOCK_SKEW_MS,
  mirroredForms,
  mirrorToWrite,
  type IntakeForm,
} from '../../../../src/core/domain/config/forms-mirror';
import { form, memoryIntake, TOKEN } from '../../intake/memory-intake';

const essay = readFileSync(new URL('../../../fixtures/typeform/essay-submission.json', import.meta.url), 'utf8');
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const FORMS: IntakeForm[] = [{ formId: 'Wr1tE5sy', enabled: true, recipientField: 'email' }];
const copy = (readAt: number, forms: unknown = [['Wr1tE5sy', 1, 'email']]) => JSON.stringify({ readAt, forms });

describe('mirroredForms: whether doPost may trust the copy in Script Properties', () => {
  it.each([
    ['no copy', {}, null],
    ['an empty copy', { [FORMS_MIRROR_PROPERTY]: '' }, null],
    ['a copy that is not JSON', { [FORMS_MIRROR_PROPERTY]: '{"readAt":' }, null],
    ['a copy without its read time', { [FORMS_MIRROR_PROPERTY]: JSON.stringify({ forms: [] }) }, null],
    ['a copy whose forms are not a list', { [FORMS_MIRROR_PROPERTY]: JSON.stringify({ readAt: NOW, forms: {} }) }, null],
    ['a copy with a form that is not [id, enabled, field]', { [FORMS_MIRROR_PROPERTY]: copy(NOW, [{ formId: 'x' }]) }, null],
    ['a copy whose recipient field is not text', { [FORMS_MIRROR_PROPERTY]: copy(NOW, [['Wr1tE5sy', 1, 7]]) }, null],
    ['a copy whose form id is not text', { [FORMS_MIRROR_PROPERTY]: copy(NOW, [[7, 1, 'email']]) }, null],
    ['a copy whose form is a text, not a list', { [FORMS_MIRROR_PROPERTY]: copy(NOW, ['abc']) }, null],
    ['a copy that is JSON null', { [FORMS_MIRROR_PROPERTY]: 'null' }, null],
    ['a copy read a minute ago', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000) }, FORMS],
    ['a copy exactly as old as it may be', { [FORMS_MIRROR_PROPERTY]: copy(NOW - FORMS_MIRROR_MAX_AGE_MS) }, FORMS],
    ['a copy a moment too old', { [FORMS_MIRROR_PROPERTY]: copy(NOW - FORMS_MIRROR_MAX_AGE_MS - 1) }, null],
    ['a copy from a clock a little ahead', { [FORMS_MIRROR_PROPERTY]: copy(NOW + MIRROR_CLOCK_SKEW_MS) }, FORMS],
    ['a copy from the future', { [FORMS_MIRROR_PROPERTY]: copy(NOW + MIRROR_CLOCK_SKEW_MS + 1) }, null],
    ['a copy read before the last Config edit', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000), [CONFIG_EDITED_PROPERTY]: String(NOW - 30_000) }, null],
    ['a copy read just after an edit, within clock skew', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000), [CONFIG_EDITED_PROPERTY]: String(NOW - 60_000 - MIRROR_CLOCK_SKEW_MS) }, null],
    ['a copy read well after the last edit', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000), [CONFIG_EDITED_PROPERTY]: String(NOW - 60_000 - MIRROR_CLOCK_SKEW_MS - 1) }, FORMS],
    ['a copy with an unreadable edit time', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000), [CONFIG_EDITED_PROPERTY]: 'soon' }, FORMS],
  ])('%s', (_name, snapshot, expected) => {
    expect(mirroredForms(snapshot as Record<string, string>, NOW)).toEqual(expected);
  });

  it('reads a disabled form as disabled (0), so Config is asked about it', () => {
    expect(mirroredForms({ [FORMS_MIRROR_PROPERTY]: copy(NOW, [['Off', 0, '']]) }, NOW)).toEqual([{ formId: 'Off', enabled: false, recipientField: '' }]);
  });
});

describe('mirrorToWrite: when a processQueue run rewrites the copy after reading Config', () => {
  it.each([
    ['no copy yet', {}, NOW, true],
    ['a trusted copy that agrees, read a minute ago', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000) }, NOW, false],
    ['a copy that agrees but is half as old as it may be', { [FORMS_MIRROR_PROPERTY]: copy(NOW - FORMS_MIRROR_MAX_AGE_MS / 2) }, NOW, true],
    ['a copy with another recipient field', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000, [['Wr1tE5sy', 1, 'other']]) }, NOW, true],
    ['a copy where the form is disabled', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000, [['Wr1tE5sy', 0, 'email']]) }, NOW, true],
    ['a copy whose second form differs', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000, [['Wr1tE5sy', 1, 'email'], ['B', 1, '']]) }, NOW, true, [['Wr1tE5sy', 1, 'email'], ['B', 0, '']]],
    ['a copy with one more form', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000, [['Wr1tE5sy', 1, 'email'], ['B', 1, '']]) }, NOW, true],
    ['a copy with another form id', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000, [['Other', 1, 'email']]) }, NOW, true],
    ['a copy that agrees but was read before an edit', { [FORMS_MIRROR_PROPERTY]: copy(NOW - 60_000), [CONFIG_EDITED_PROPERTY]: String(NOW - 30_000) }, NOW, true],
  ])('%s: rewritten %s', (_name, snapshot, readAt, rewritten, forms = [['Wr1tE5sy', 1, 'email']]) => {
    const configForms = (forms as [string, number, string][]).map(([id, on, field]) => ({ ...form(id, on === 1), recipientField: field, prompt: 'not copied' }));
    const text = mirrorToWrite(snapshot as Record<string, string>, configForms, readAt as number);
    expect(text !== null).toBe(rewritten);
    if (text !== null) expect(JSON.parse(text)).toEqual({ readAt, forms });
  });

  it('copies only what intake uses: the id, whether it is enabled, and the recipient field', () => {
    const text = mirrorToWrite({}, [{ ...form('Off', false), recipientField: 'mail', prompt: 'secret-ish prompt' }], NOW);
    expect(text).toBe(JSON.stringify({ readAt: NOW, forms: [['Off', 0, 'mail']] }));
    expect(mirroredForms({ [FORMS_MIRROR_PROPERTY]: text as string }, NOW)).toEqual([{ formId: 'Off', enabled: false, recipientField: 'mail' }]);
  });
});

describe('handleDelivery with a copy of Config', () => {
  it('queues a form the copy accepts without reading Config, taking the recipient from the copy', () => {
    const m = memoryIntake();
    m.forms = []; // Config itself would refuse it: the copy decides
    m.deps.mirroredForms = [{ formId: 'Wr1tE5sy', enabled: true, recipientField: 'email' }];
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toMatchObject({ ok: true, queued: true });
    expect(m.configReads).toBe(0);
    expect(m.queue[0].recipient).toBe(JSON.parse(essay).form_response.answers[1].email);
  });

  it('asks Config about a form the copy does not know: a form enabled a moment ago is queued', () => {
    const m = memoryIntake();
    m.forms = [form('Wr1tE5sy')];
    m.deps.mirroredForms = [{ formId: 'Other', enabled: true, recipientField: '' }];
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toMatchObject({ ok: true, queued: true });
    expect(m.configReads).toBe(1);
  });

  it('asks Config about a form the copy has disabled: Config enabling it again wins', () => {
    const m = memoryIntake();
    m.forms = [form('Wr1tE5sy')];
    m.deps.mirroredForms = [{ formId: 'Wr1tE5sy', enabled: false, recipientField: '' }];
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toMatchObject({ ok: true, queued: true });
  });

  it('refuses a form both the copy and Config refuse, as unknown_form kept in Rejected', () => {
    const m = memoryIntake();
    m.forms = [form('Wr1tE5sy', false)];
    m.deps.mirroredForms = [{ formId: 'Wr1tE5sy', enabled: false, recipientField: '' }];
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toMatchObject({ ok: false, error: 'unknown_form' });
    expect(m.rejected).toHaveLength(1);
    expect(m.queue).toHaveLength(0);
  });

  it('reads Config once when there is no copy', () => {
    const m = memoryIntake();
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toMatchObject({ ok: true, queued: true });
    expect(m.configReads).toBe(1);
  });
});
