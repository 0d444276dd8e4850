// What processing reads of one row: its form's Config (enabled ignored), its answers and submitted_at, claim times to the second.
import { describe, expect, it } from 'vitest';
import { answersOf, claimTime, isOurClaim, processingConfigFor, submittedAtOf } from '../../../src/core/processing/row-inputs';
import { blankFormConfig } from '../../../src/core/domain/config/form-config';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { formConfig, world } from '../memory-ports';
import { queueRow, T0 } from '../fakes/rows';
import { payloadOf } from '../fakes/typeform-delivery';

describe('processingConfigFor', () => {
  it('a form switched off since its submission came in is still processed with its own Config (enabled reads true)', () => {
    const own = formConfig({ formId: 'F1', enabled: false, prompt: 'Answer kindly.', subject: 'Your essay' });
    expect(processingConfigFor('F1', [own])).toEqual({ ...own, enabled: true });
  });

  it('a form with no row of its own takes the * row, named as itself, even when the * row is switched off', () => {
    const any = formConfig({ formId: '*', enabled: false, prompt: 'Default prompt.' });
    expect(processingConfigFor('F1', [any])).toEqual({ ...any, formId: 'F1', enabled: true });
  });

  it('a form\'s blank cells are filled from the * row, its own cells kept', () => {
    const any = formConfig({ formId: '*', prompt: 'Default prompt.', subject: 'Default subject' });
    const own = formConfig({ formId: 'F1', enabled: false, subject: 'Own subject' });
    expect(processingConfigFor('F1', [any, own])).toEqual({ ...own, enabled: true, prompt: 'Default prompt.', subject: 'Own subject' });
  });

  it('a form Config does not name at all gets the blank Config (defaults later)', () => {
    expect(processingConfigFor('F1', [formConfig({ formId: 'Other', prompt: 'Not this one.' })])).toEqual(blankFormConfig('F1'));
    expect(processingConfigFor('F1', [])).toEqual(blankFormConfig('F1'));
  });

  it('the forms given are left as they are', () => {
    const own = formConfig({ formId: 'F1', enabled: false });
    processingConfigFor('F1', [own]);
    expect(own.enabled).toBe(false);
  });
});

describe('answersOf', () => {
  it('reads the row\'s payload cell when there is no Payloads sheet to resolve it from', () => {
    const w = world([]);
    expect(answersOf(w.deps, queueRow('READY', { payload: payloadOf('Ana') }))).toEqual({ name: 'Ana', a: 'Ana' });
  });

  it('resolves a pointer through readPayload when the deps have one, asked with the row', () => {
    const w = world([]);
    const asked: QueueRow[] = [];
    w.deps.readPayload = (row) => {
      asked.push(row);
      return payloadOf('Bo');
    };
    const row = queueRow('READY', { payload: 'payloads!A7' });
    expect(answersOf(w.deps, row)).toEqual({ name: 'Bo', a: 'Bo' });
    expect(asked).toEqual([row]);
  });

  it('a payload that is not Typeform JSON has no answers (null)', () => {
    const w = world([]);
    expect(answersOf(w.deps, queueRow('READY', { payload: 'payloads!A7' }))).toBeNull();
  });
});

describe('submittedAtOf', () => {
  it.each<[string, string, number | null]>([
    ['Typeform\'s submitted_at', payloadOf('Ana', '2026-11-20T09:31:47Z'), Date.UTC(2026, 10, 20, 9, 31, 47)],
    ['no submitted_at', payloadOf('Ana'), null],
    ['a submitted_at that is no time', payloadOf('Ana', 'yesterday-ish'), null],
    ['a submitted_at that is no text', payloadOf('Ana', { at: 1 }), null],
    ['a payload with no form_response', JSON.stringify({ event_id: 'e1' }), null],
    ['a payload that is not JSON', 'payloads!A7', null],
    ['an empty payload', '', null],
  ])('%s → %s', (_case, payload, at) => {
    const w = world([]);
    expect(submittedAtOf(w.deps, queueRow('READY', { payload }))).toBe(at);
  });

  it('resolves a pointer through readPayload when the deps have one', () => {
    const w = world([]);
    w.deps.readPayload = () => payloadOf('Ana', '2026-11-20T09:31:47.250Z');
    expect(submittedAtOf(w.deps, queueRow('READY', { payload: 'payloads!A7' }))).toBe(Date.UTC(2026, 10, 20, 9, 31, 47, 250));
  });

  it('a Payloads sheet that cannot be read gives null, not an error', () => {
    const w = world([]);
    w.deps.readPayload = () => {
      throw new Error('Service Spreadsheets timed out');
    };
    expect(submittedAtOf(w.deps, queueRow('READY', { payload: payloadOf('Ana', '2026-11-20T09:31:47Z') }))).toBeNull();
  });
});

describe('claimTime', () => {
  it.each<[string, number, number]>([
    ['a whole second stays', T0, T0],
    ['milliseconds are dropped, not rounded', T0 + 999, T0],
    ['the next second starts at 1000 ms', T0 + 1000, T0 + 1000],
    ['the epoch', 0, 0],
  ])('%s', (_case, now, claimed) => {
    expect(claimTime(now)).toBe(claimed);
  });
});

describe('isOurClaim', () => {
  const claimed = queueRow('SENDING', { claimedAt: T0 + 1000 });
  it.each<[string, QueueRow | undefined, boolean]>([
    ['the row as the run wrote it', { ...claimed }, true],
    ['the same second, other milliseconds (a date cell that kept none)', { ...claimed, claimedAt: T0 + 1999 }, true],
    ['the same second, the milliseconds dropped', { ...claimed, claimedAt: T0 + 1000 }, true],
    ['a row no longer there', undefined, false],
    ['another submission in its place', { ...claimed, eventId: 'ev-other' }, false],
    ['another state (staff moved it)', { ...claimed, status: 'SKIPPED' }, false],
    ['its claim time cleared', { ...claimed, claimedAt: null }, false],
    ['a claim a second later (another run\'s)', { ...claimed, claimedAt: T0 + 2000 }, false],
    ['a claim a millisecond earlier, in the second before', { ...claimed, claimedAt: T0 + 999 }, false],
  ])('%s → %s', (_case, row, ours) => {
    expect(isOurClaim(row, claimed)).toBe(ours);
  });

  it('a claim written without a claim time is never ours, whatever the row says', () => {
    const noTime = queueRow('SENDING', { claimedAt: null });
    expect(isOurClaim({ ...noTime }, noTime)).toBe(false);
    expect(isOurClaim({ ...noTime, claimedAt: T0 }, noTime)).toBe(false);
  });

  it('an empty claim time is not read as the epoch\'s first second, on either side', () => {
    const atEpoch = queueRow('SENDING', { claimedAt: 500 });
    expect(isOurClaim({ ...atEpoch, claimedAt: null }, atEpoch)).toBe(false);
    expect(isOurClaim(atEpoch, { ...atEpoch, claimedAt: null })).toBe(false);
    expect(isOurClaim({ ...atEpoch, claimedAt: 0 }, atEpoch)).toBe(true);
  });
});
