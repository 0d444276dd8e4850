// The chaos actors of issue #24: each fires in the runtime, the checker fails on what each leaves behind when nothing
// defends against it, and the crafted schedules that found issue #24's failures on the product.
import { describe, expect, it } from 'vitest';
import { runChaos } from '../../bench/chaos-core.mjs';
import { checkSchedule } from '../../bench/chaos-check.mjs';
import { UNKNOWN_FORM_EVENTS } from '../../bench/chaos-schedule.mjs';
import { eventIdOf, recipientOf, setRuntimeDefaults } from '../../harness/runtime.mjs';
import issue24Actors from './chaos-issue24-actors.json';
import pasteInFlight from './chaos-paste-in-flight.json';

/** The actors issue #24 added; the fixed schedule chaos-issue24-actors.json fires each of them. */
const ISSUE_24_ACTORS = ['staff-delete-pending', 'staff-delete-ready', 'staff-delete-sent', 'staff-insert-column', 'staff-log-delete',
  'staff-log-edit', 'staff-paste-row', 'staff-process-now-crash', 'staff-rename-queue', 'unknown-form'];

const HEADER = ['status', 'event_id', 'response_token', 'error', 'sent_at', 'mail_ref'];
const SENT_AT = '2026-01-01T00:00:00Z';
const tokenOf = (n: number) => `tok${String(n).padStart(29, '0')}`;
const queued = (n: number) => ({ n, answer: { ok: true, queued: true } });
const mailTo = (n: number, ref: string, executionId = 'exec-9') => ({ to: recipientOf(n), subject: `Reply (${ref})`, body: `Reference: ${ref}`, htmlBody: '', executionId });
/** What a drained schedule leaves for the checker: the answers, the mails and the sheets' rows (Queue unless named). */
function world({ answers, rows = [], outbox = [], sheets = {} }: { answers: any[]; rows?: unknown[][]; outbox?: any[]; sheets?: Record<string, unknown> }) {
  return { answers, outbox, sheets: { Queue: { header: HEADER, rows }, ...sheets }, executions: [], spill: [] };
}

describe('the checker on what the actors of issue #24 leave behind', () => {
  it('a PENDING row staff deleted (or pasted over) that nothing put back is lost', () => {
    const deleted = checkSchedule(world({ answers: [queued(1)] }));
    expect(deleted).toMatchObject({ lost: 1, duplicateEmails: 0 });
    expect(deleted.violations).toContain(`event #1 (${eventIdOf(1)}) was accepted but has no row`);
    // Row 2 copied over row 3: the copy collapsed to DUPLICATE, submission 2 is in no sheet.
    const pastedOver = checkSchedule(world({
      answers: [queued(1), queued(2)],
      rows: [['PENDING', eventIdOf(1), tokenOf(1), '', '', ''], ['DUPLICATE', eventIdOf(1), tokenOf(1), 'DUPLICATE: the same submission is already in row 2', '', '']],
    }));
    expect(pastedOver).toMatchObject({ lost: 2 }); // PENDING is not an end state either: drained, it would be SENT
    expect(pastedOver.violations).toContain(`event #2 (${eventIdOf(2)}) was accepted but has no row`);
  });

  it('a removed submission put back in Queue as NEEDS_REVIEW with its reason is with a person, not lost; without a reason it is a violation', () => {
    const restored = (reason: string) => checkSchedule(world({ answers: [queued(1)], rows: [['NEEDS_REVIEW', eventIdOf(1), tokenOf(1), reason, '', '']] }));
    expect(restored('RESTORED: removed from Queue by hand; put back from the Journal')).toMatchObject({ lost: 0, violations: [] });
    expect(restored('').violations).toEqual(['event #1: NEEDS_REVIEW row without a reason']);
  });

  it('rows left behind in a renamed Queue do not count: the submission is lost unless Queue holds it', () => {
    const result = checkSchedule(world({ answers: [queued(1)], sheets: { 'Queue (old 1)': { header: HEADER, rows: [['PENDING', eventIdOf(1), tokenOf(1), '', '', '']] } } }));
    expect(result).toMatchObject({ lost: 1 });
  });

  it('a SENT row staff tidied away is not lost while it was mailed once and the Journal holds it; without the Journal line, or unmailed, it is', () => {
    const journal = { Journal: { header: ['received_at', 'submission', 'event_id', 'payload'], rows: [['2026-01-01', `tf:F:${tokenOf(1)}`, `ev:${eventIdOf(1)}`, '{}']] } };
    expect(checkSchedule(world({ answers: [queued(1)], outbox: [mailTo(1, 'FQ-AAAAAA')], sheets: journal }))).toMatchObject({ lost: 0, violations: [] });
    expect(checkSchedule(world({ answers: [queued(1)], outbox: [mailTo(1, 'FQ-AAAAAA')] }))).toMatchObject({ lost: 1 });
    expect(checkSchedule(world({ answers: [queued(1)], sheets: journal }))).toMatchObject({ lost: 1 });
  });

  it('a SENT row copied over another is the same record twice; two SENT rows with their own mail_refs are two answers', () => {
    const copy = ['SENT', eventIdOf(1), tokenOf(1), '', SENT_AT, 'FQ-AAAAAA'];
    expect(checkSchedule(world({ answers: [queued(1)], rows: [copy, [...copy]], outbox: [mailTo(1, 'FQ-AAAAAA')] })).violations).toEqual([]);
    const two = checkSchedule(world({ answers: [queued(1)], rows: [copy, ['SENT', eventIdOf(1), tokenOf(1), '', SENT_AT, 'FQ-BBBBBB']], outbox: [mailTo(1, 'FQ-AAAAAA')] }));
    expect(two.violations).toContain('event #1 has 2 rows that are not DUPLICATE: SENT, SENT');
  });

  it('two rows of one submission are one answer too many, unless all but one wait for a person with a reason', () => {
    const rowsOf = (second: unknown[]) => checkSchedule(world({ answers: [queued(1)], rows: [['SENT', eventIdOf(1), tokenOf(1), '', SENT_AT, 'FQ-AAAAAA'], second], outbox: [mailTo(1, 'FQ-AAAAAA')] }));
    expect(rowsOf(['NEEDS_REVIEW', eventIdOf(1), tokenOf(1), 'COPIED: row(s) 2 hold the same submission', '', '']).violations).toEqual([]);
    expect(rowsOf(['NEEDS_REVIEW', eventIdOf(1), tokenOf(1), '', '', '']).violations).toContain('event #1 has 2 rows that are not DUPLICATE: SENT, NEEDS_REVIEW');
    expect(rowsOf(['FAILED', eventIdOf(1), tokenOf(1), '', '', '']).violations).toContain('event #1 has 2 rows that are not DUPLICATE: SENT, FAILED');
  });

  it('a SENT row deleted, recovered by the Typeform check and mailed again is a second mail', () => {
    const result = checkSchedule(world({
      answers: [queued(1)],
      rows: [['SENT', `reconciled:${tokenOf(1)}`, tokenOf(1), '', SENT_AT, 'FQ-BBBBBB']],
      outbox: [mailTo(1, 'FQ-AAAAAA', 'exec-5'), mailTo(1, 'FQ-BBBBBB', 'exec-9')],
    }));
    expect(result).toMatchObject({ duplicateEmails: 1, lost: 0 });
    expect(result.violations).toContain(`a mail to ${recipientOf(1)} carries no mail_ref of event #1's rows: Reply (FQ-AAAAAA)`);
  });

  it('a resend after a crash (or after a Log line was deleted or edited) is a second mail, even under the same mail_ref', () => {
    const result = checkSchedule(world({
      answers: [queued(1)],
      rows: [['SENT', eventIdOf(1), tokenOf(1), '', SENT_AT, 'FQ-AAAAAA']],
      outbox: [mailTo(1, 'FQ-AAAAAA', 'exec-4'), mailTo(1, 'FQ-AAAAAA', 'exec-9')],
    }));
    expect(result).toMatchObject({ duplicateEmails: 1, lost: 0 });
  });

  it('a delivery for a form Config does not enable is never accepted nor lost, but must be in Rejected', () => {
    const n = UNKNOWN_FORM_EVENTS[0];
    const id = eventIdOf(n);
    const unknown = (answer: object, rejected: unknown[][]) => checkSchedule(world({
      answers: [{ n, id, unknownForm: true, answer }],
      sheets: { Rejected: { header: ['at', 'reason', 'form_id', 'event_id', 'body'], rows: rejected } },
    }));
    const silent = unknown({ ok: false, error: 'unknown_form' }, []);
    expect(silent).toMatchObject({ accepted: 0, lost: 0 });
    expect(silent.violations).toEqual([expect.stringContaining(`a delivery for a form Config does not enable (#${n}, ${id}) is neither in Rejected nor queued`)]);
    const kept = [[SENT_AT, 'unknown form: "Unkn0wnF" is not enabled in the Config sheet', 'Unkn0wnF', id, '{}']];
    expect(unknown({ ok: false, error: 'unknown_form' }, kept)).toMatchObject({ accepted: 0, lost: 0, violations: [] });
    // Spilled during a Sheets outage ("deferred"), then judged by the same rules: in Rejected, not lost.
    expect(unknown({ ok: true, queued: 'deferred' }, kept)).toMatchObject({ accepted: 0, lost: 0, violations: [] });
    // Refused by Google (over 30 simultaneous executions): no script ran, and the Typeform check asks only about Config's forms.
    expect(unknown({ status: 'refused' }, [])).toMatchObject({ accepted: 0, lost: 0, violations: [] });
  });
});

/** A schedule of the given groups (no faults), approval off. */
const schedule = (...groups: object[][]) => ({ approval: false, groups: groups.map((actions) => ({ faults: [], actions })) });
const violationsOf = async (replay: object) => (await runChaos({ replay })).failure?.violations ?? [];
/** An outsider's post of a real submission (a 246-character event id): Typeform holds no response for it, so the Typeform check cannot recover it. */
const webhookOnly = { t: 'poison', kind: 'longEventId', n: 11 };

describe('the actors of issue #24 in the runtime', () => {
  it('each fires on the crafted schedule chaos-issue24-actors.json', { timeout: 120_000 }, async () => {
    const result = await runChaos({ replay: issue24Actors });
    expect(Object.keys(result.actors)).toEqual(expect.arrayContaining(ISSUE_24_ACTORS));
  });

  // Issue #24's findings, as crafted schedules: each broke an invariant on the product before the Journal fix (a
  // protected append-only Journal every full processQueue run checks Queue and Archive against). Each failed on the
  // product before that fix (they were `it.fails` until it landed).
  it('finding 1: a SENT row staff deleted is not mailed again after the Typeform check recovers it', { timeout: 120_000 }, async () => {
    expect(await violationsOf(schedule([{ t: 'deliver', n: 1 }, { t: 'deliver', n: 2 }], [{ t: 'process' }], [{ t: 'staffDeleteRow', status: 'SENT', pick: 0 }]))).toEqual([]);
  });

  it('finding 2: a whole row pasted over a PENDING submission\'s row does not lose that submission', { timeout: 120_000 }, async () => {
    expect(await violationsOf(schedule([webhookOnly], [{ t: 'deliver', n: 1 }], [{ t: 'staffPasteRow', from: 0.99, over: 0 }], [{ t: 'process' }]))).toEqual([]);
  });

  it('finding 2 (SENT): a whole row pasted over a SENT submission\'s row does not get it mailed twice', { timeout: 120_000 }, async () => {
    expect(await violationsOf(schedule([{ t: 'deliver', n: 1 }, { t: 'deliver', n: 2 }], [{ t: 'process' }], [{ t: 'staffPasteRow', from: 0, over: 0 }]))).toEqual([]);
  });

  it('finding 3: staff Process now killed right after the send, RECONCILE_SENT_MAIL on: the Sent check does not say "safe to resend"', { timeout: 120_000 }, async () => {
    expect(await violationsOf(schedule([{ t: 'deliver', n: 1 }], [{ t: 'staffProcessNowCrash' }]))).toEqual([]);
  });

  it('a PENDING row staff deleted is put back (or a person told), not lost', { timeout: 120_000 }, async () => {
    expect(await violationsOf(schedule([webhookOnly], [{ t: 'staffDeleteRow', status: 'PENDING', pick: 0 }], [{ t: 'deliver', n: 1 }, { t: 'process' }]))).toEqual([]);
  });

  it('Queue renamed and Set up run: no SENT submission is mailed again', { timeout: 120_000 }, async () => {
    expect(await violationsOf(schedule([{ t: 'deliver', n: 1 }, { t: 'deliver', n: 2 }], [{ t: 'process' }], [{ t: 'staffRenameQueue' }]))).toEqual([]);
  });
});

describe('found by the 200-schedule run after the fix', () => {
  // Seed 20261202: a run killed while Gemini wrote left row 2 GENERATING; staff copied that row over another; the next
  // run swept both copies back to PENDING after it had collapsed duplicates, generated both and mailed both in one batch.
  it('a whole row copied over another while its submission is being generated is mailed once', { timeout: 120_000 }, async () => {
    setRuntimeDefaults({ latency: 'google:0.1', latencySeed: 20261202 });
    try {
      const result = await runChaos({ replay: pasteInFlight });
      expect(result.failure?.violations ?? []).toEqual([]);
    } finally {
      setRuntimeDefaults();
    }
  });
});
