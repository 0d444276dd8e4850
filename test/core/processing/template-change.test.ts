// A form's template changed after its READY replies were drafted: they wait for a person; this run's own replies go.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../src/core/processing/process-run';
import {
  holdStaleDrafts,
  readTemplatesSeen,
  templateFingerprint,
  templatesNow,
  templatesSeenToWrite,
  TEMPLATE_CHANGED_DETAIL,
  TEMPLATES_SEEN_PROPERTY,
} from '../../../src/core/processing/template-change';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { formConfig, pendingRow, runOf, T0, world } from '../memory-ports';

const start = { startedAt: T0 };
const ready = (n: number, patch: Partial<QueueRow> = {}) =>
  pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, status: 'READY', result: 'Dear Mina, well done.', mailRef: `FQ-AAAAA${n}`, attempts: 1, recipient: `r${n}@example.com`, ...patch });
const OLD = formConfig({ prompt: 'Thank them warmly.' });
const NEW = formConfig({ prompt: 'Thank them and give the new opening hours.' });

describe('templateFingerprint', () => {
  it.each<[string, Partial<typeof OLD>]>([
    ['the prompt', { prompt: 'other' }],
    ['the subject', { subject: 'Re: {{mail_ref}}' }],
    ['the body', { body: '{{result}}\n\nBye' }],
  ])('changes with %s', (_what, patch) => {
    expect(templateFingerprint({ ...OLD, ...patch })).not.toBe(templateFingerprint(OLD));
  });

  it('does not change with anything else of the row (enabled, approval, reply_to) and is 8 hex digits', () => {
    expect(templateFingerprint({ ...OLD, enabled: false, approvalRequired: true, replyTo: 'a@b.org' } as typeof OLD)).toBe(templateFingerprint(OLD));
    expect(templateFingerprint(OLD)).toMatch(/^[0-9a-f]{8}$/);
  });

  // The fingerprint is stored in Script Properties and compared by the next run, possibly of a newer version: if it
  // changed for the same texts, every READY row would be held after an update. FNV-1a 32 of the JSON of the three
  // texts, as any reference implementation computes it, zero-padded to 8 digits.
  it.each([
    [{ prompt: 'Thank them warmly.', subject: 'Re: your essay', body: '{{result}}' }, 'f5434a83'],
    [{ prompt: 'Thank them 185.', subject: '', body: '' }, '0055ee69'],
  ])('is stable across versions: %j → %s', (texts, fingerprint) => {
    expect(templateFingerprint(texts)).toBe(fingerprint);
  });

  it('is kept under the same Script Property across versions', () => {
    expect(TEMPLATES_SEEN_PROPERTY).toBe('FQ_TEMPLATES_SEEN');
  });
});

describe('the stored record', () => {
  it('reads {} from nothing, from text that is not JSON and from JSON that is not a record', () => {
    for (const text of [undefined, '', 'nope', '[1]', '["abc"]', 'null', '3', '"abc"']) expect(readTemplatesSeen(text)).toEqual({});
    expect(readTemplatesSeen('{"f1":"abc","f2":3}')).toEqual({ f1: 'abc' });
  });

  it('covers each Config form and each row\'s form (a row of a form Config knows only through * gets *\'s template)', () => {
    const now = templatesNow([OLD], [ready(1, { formId: 'abc' })]);
    expect(now).toEqual({ '*': templateFingerprint(OLD), abc: templateFingerprint(OLD) });
  });

  it('has no entry for a row with no form id', () => {
    expect(Object.keys(templatesNow([OLD], [ready(1, { formId: '' })]))).toEqual(['*']);
  });

  it('is written only when it changed', () => {
    const now = templatesNow([OLD], []);
    expect(templatesSeenToWrite(now, JSON.stringify(now))).toBeNull();
    expect(templatesSeenToWrite(now, undefined)).toBe(JSON.stringify(now));
  });
});

describe('holdStaleDrafts', () => {
  const OTHER = formConfig({ formId: 'other', prompt: 'Other form.' });

  it('leaves a READY row an earlier step of the run set aside as it is', () => {
    const rows = [ready(1), ready(2)];
    const w = world(rows, {}, [NEW]);
    const run = runOf(w);
    run.setAside.add(2);
    holdStaleDrafts(run, templatesNow([OLD], rows));
    expect(w.queue.rows.map((row) => row.status)).toEqual(['READY', 'AWAITING_APPROVAL']);
  });

  it('a hold a person overtook keeps its form\'s old fingerprint in the record and sets the row aside; other forms move on', () => {
    const rows = [ready(1), ready(2, { formId: 'other' })];
    const w = world(rows, {}, [NEW, OTHER]);
    const run = runOf(w);
    const seen = templatesNow([OLD, formConfig({ formId: 'other', prompt: 'Other form, before.' })], rows);
    w.queue.beforeWriteRows = (_rows, queue) => {
      queue.beforeWriteRows = null;
      queue.edit(2, { status: 'SKIPPED' });
    };
    holdStaleDrafts(run, seen);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SKIPPED', 'AWAITING_APPROVAL']);
    expect(run.setAside).toEqual(new Set([2]));
    expect(run.summary.templatesSeen).toEqual({ ...templatesNow([NEW, OTHER], rows), Wr1tE5sy: seen.Wr1tE5sy });
  });
});

describe('a run after the template changed', () => {
  const seenOld = (rows: QueueRow[]) => templatesNow([OLD], rows);

  it('holds each READY row of that form for a person, its reply kept, and mails nothing', () => {
    const rows = [ready(1), ready(2)];
    const w = world(rows, {}, [NEW]);
    w.deps.templatesSeen = seenOld(rows);
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox).toEqual([]);
    expect(w.queue.rows.map((row) => [row.status, row.result, row.error])).toEqual([
      ['AWAITING_APPROVAL', 'Dear Mina, well done.', `TEMPLATE_CHANGED: ${TEMPLATE_CHANGED_DETAIL}`],
      ['AWAITING_APPROVAL', 'Dear Mina, well done.', `TEMPLATE_CHANGED: ${TEMPLATE_CHANGED_DETAIL}`],
    ]);
    // The note tells staff why and both ways on.
    expect(w.queue.rows[0].error).toMatch(/template \(prompt, subject or body\) changed in Config.*set APPROVED to mail it as it is, or PENDING to have it written again/);
    expect(w.audit.entries.filter((entry) => entry.to === 'AWAITING_APPROVAL').map((entry) => entry.detail)).toEqual([
      expect.stringContaining('held for a person: the form\'s template'),
      expect.stringContaining('held for a person: the form\'s template'),
    ]);
    // The next run sees the new template as the one its rows were drafted with.
    expect(summary.templatesSeen).toEqual(templatesNow([NEW], rows));
  });

  it('mails this run\'s own replies, drafted with the new template, and APPROVED rows (a person read them)', () => {
    const rows = [pendingRow({ eventId: 'evt-p', responseToken: 'tok-p' }), ready(2, { status: 'APPROVED' })];
    const w = world(rows, {}, [NEW]);
    w.deps.templatesSeen = seenOld(rows);
    runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SENT']);
    expect(w.mailer.outbox).toHaveLength(2);
  });

  it('holds only the forms whose template changed', () => {
    const other = formConfig({ formId: 'other', prompt: 'Other form.' });
    const rows = [ready(1), ready(2, { formId: 'other' })];
    const w = world(rows, {}, [NEW, other]);
    w.deps.templatesSeen = templatesNow([OLD, other], rows);
    runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['AWAITING_APPROVAL', 'SENT']);
  });

  it('holds nothing when the template is the one seen, or when no record exists yet (rows drafted before it)', () => {
    for (const seen of [templatesNow([NEW], [ready(1)]), {}, undefined]) {
      const w = world([ready(1)], {}, [NEW]);
      w.deps.templatesSeen = seen;
      runProcessing(w.deps, start);
      expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT']);
    }
  });

  it('a hold Sheets failed to write mails nothing, and the record is not moved on: the next run holds the row', () => {
    const rows = [ready(1)];
    const w = world(rows, {}, [NEW]);
    w.deps.templatesSeen = seenOld(rows);
    w.queue.failOn = { method: 'writeRows', error: new Error('Service Spreadsheets failed while accessing document') };
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('sheets-unavailable');
    expect(w.mailer.outbox).toEqual([]);
    expect(w.queue.rows[0].status).toBe('READY');
    expect(summary.templatesSeen).toBeUndefined(); // nothing to store: FQ_TEMPLATES_SEEN keeps the old fingerprint

    const next = world(w.queue.rows, {}, [NEW]);
    next.deps.templatesSeen = seenOld(rows);
    runProcessing(next.deps, start);
    expect(next.queue.rows[0].status).toBe('AWAITING_APPROVAL');
    expect(next.mailer.outbox).toEqual([]);
  });
});
