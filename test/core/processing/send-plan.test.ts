// The send batch's plan, rule by rule: which waiting rows are claimed, and where each one that is not goes and why.
import { describe, expect, it } from 'vitest';
import {
  failPermanently,
  parkSuppressed,
  planBatch,
  prepareMail,
  replyPolicyHold,
  SEND_BATCH_ROWS,
  sendsToRecipientToday,
  type SendStep,
} from '../../../src/core/processing/send-plan';
import { newBatch, type Run } from '../../../src/core/processing/run-context';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import type { SuppressedEntry } from '../../../src/core/domain/mail/suppression';
import { withLedgerFacts } from '../../../src/core/domain/mail/send-ledger';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../../src/core/domain/time';
import { fixedRandom, formConfig, MemorySuppression, pendingRow, runOf, T0, world, type World } from '../memory-ports';

const FORM = 'Wr1tE5sy';
const ISO_T0 = '2026-11-20T10:00:00.000Z';
const ready = (n: number, patch: Partial<QueueRow> = {}) =>
  pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, status: 'READY', result: 'Dear Mina, well done.', recipient: `r${n}@example.com`, mailRef: `FQ-AAAAA${n}`, attempts: 1, ...patch });
const newStep = (): SendStep => ({ limited: [], ceiling: [], configProblems: [], configRows: new Map(), windowProblemRows: new Set(), windowRows: new Map() });
/** The rows' run as runProcessing starts one, at `now`. */
function runAt(w: World, now = T0): Run {
  w.clock.time = now;
  return runOf(w);
}
/** The claim moveRow records for `row` at T0: SENDING, its mail_ref, the claim time, the error cleared. */
const claimOf = (row: QueueRow, mailRef = row.mailRef): QueueRow => ({ ...row, status: 'SENDING', claimedAt: T0, mailRef, error: '', updatedAt: T0 });
const claimLine = (row: QueueRow, mailRef = row.mailRef): LogEntry => ({
  at: T0,
  eventId: row.eventId,
  submission: `tf:${FORM}:${row.responseToken}`,
  from: row.status,
  to: 'SENDING',
  by: 'system',
  detail: `claimed for sending [ledger: mail_ref=${mailRef} claimed_at=${ISO_T0} marked=1]`,
});
/** A move of `row` to `to` at T0 by the outcome table, with its `error`. */
const moved = (row: QueueRow, to: string, error: string, patch: Partial<QueueRow> = {}): QueueRow => ({ ...row, status: to, claimedAt: null, error, updatedAt: T0, ...patch });
const line = (row: QueueRow, to: string, detail: string): LogEntry => ({ at: T0, eventId: row.eventId, submission: `tf:${FORM}:${row.responseToken}`, from: row.status, to, by: 'system', detail });
const suppressed = (address: string): SuppressedEntry => ({ address, reason: 'asked us to stop', addedBy: 'desk@example.org', addedAt: T0 - DAY_MS });
const suppressedError = (recipient: string) =>
  `SUPPRESSED: ${recipient} is on the Suppressed sheet (added by desk@example.org: asked us to stop), so no reply is mailed to it. ` +
  'Leave the row (set SKIPPED), or remove the address from Suppressed and set PENDING for a new reply';
const TEMPLATE_PROBLEM =
  'Config for form "Wr1tE5sy": the body template uses {{nickname}}, which is neither a field ref or id of this form, a hidden.<name> or variables.<key> of this submission, ' +
  '{{score}}, nor one of {{answers}}, {{result}}, {{mail_ref}}. Fix the template in the Config sheet.';
const BCC_PROBLEM = 'Config for form "Wr1tE5sy": bcc "not-an-address" is not a valid email address';
const LINK_HELD = 'REPLY_POLICY: LINK_DOMAIN link to evil.example is not allowed (allowed_link_domains: none); waits for a person: read it, then APPROVED mails it as it is';

describe('sendsToRecipientToday', () => {
  const sent = (recipient: string, sentAt: number | null) => pendingRow({ recipient, sentAt });
  it.each<[string, QueueRow[], number, number]>([
    ['never sent', [sent('a@x.org', null)], T0, 0],
    ['never sent, with the clock within a day of the epoch (an empty sent_at is no time)', [sent('a@x.org', null)], DAY_MS - 1, 0],
    ['sent exactly 24 hours ago (a rolling day: no longer counted)', [sent('a@x.org', T0 - DAY_MS)], T0, 0],
    ['sent just under 24 hours ago', [sent('a@x.org', T0 - DAY_MS + 1)], T0, 1],
    ['sent to another mailbox', [sent('b@x.org', T0 - HOUR_MS)], T0, 0],
    ['sent to the same mailbox written otherwise', [sent('A@X.org', T0 - HOUR_MS), sent(' a+tag@x.org ', T0 - HOUR_MS)], T0, 2],
  ])('%s → %i', (_what, rows, now, count) => {
    expect(sendsToRecipientToday(rows, 'a@x.org', now)).toBe(count);
  });

  it('the recipient asked about is read as a mailbox too', () => {
    expect(sendsToRecipientToday([sent('a@x.org', T0 - HOUR_MS)], ' A+news@X.org', T0)).toBe(1);
  });
});

describe('prepareMail', () => {
  it('a mail that can be built is returned, and TEMPLATE_INVALID is noted gone', () => {
    const w = world([ready(1)]);
    const run = runAt(w);
    const step = newStep();
    const built = prepareMail(run, step, run.rows[0]);
    expect(built).toMatchObject({ kind: 'mail', mail: { to: 'r1@example.com', subject: 'Our reply to your submission (FQ-AAAAA1)' } });
    expect(run.gone).toEqual(new Set(['TEMPLATE_INVALID']));
    expect(step).toEqual(newStep());
    expect(run.setAside).toEqual(new Set());
  });

  it('a recipient that can never be mailed is a permanent outcome, with nothing noted gone or set aside', () => {
    const w = world([ready(1, { recipient: 'bogus' })]);
    const run = runAt(w);
    const step = newStep();
    expect(prepareMail(run, step, run.rows[0])).toEqual({ kind: 'permanent', reason: 'not a valid email address: bogus' });
    expect(run.gone).toEqual(new Set());
    expect(step).toEqual(newStep());
    expect(run.setAside).toEqual(new Set());
  });

  it('a broken template: null, the row set aside and noted with TEMPLATE_INVALID, the problem named once however many rows it holds', () => {
    const w = world([ready(1), ready(2)], {}, [formConfig({ body: 'Hi {{nickname}}' })]);
    const run = runAt(w);
    const step = newStep();
    expect(prepareMail(run, step, run.rows[0])).toBeNull();
    expect(prepareMail(run, step, run.rows[1])).toBeNull();
    expect(step).toEqual({
      ...newStep(),
      configProblems: [TEMPLATE_PROBLEM],
      configRows: new Map([
        [2, `TEMPLATE_INVALID: ${TEMPLATE_PROBLEM}`],
        [3, `TEMPLATE_INVALID: ${TEMPLATE_PROBLEM}`],
      ]),
    });
    expect(run.setAside).toEqual(new Set([2, 3]));
    expect(run.gone).toEqual(new Set());
  });

  it('a Config cell that is no address: the Config sheet\'s own problem (CONFIG_INVALID), not a template\'s, added to those already found', () => {
    const w = world([ready(1), ready(2)], {}, [formConfig({ bcc: 'not-an-address' })]);
    const run = runAt(w);
    const step = { ...newStep(), configSheetProblems: ['an earlier problem'] };
    expect(prepareMail(run, step, run.rows[0])).toBeNull();
    expect(prepareMail(run, step, run.rows[1])).toBeNull();
    expect(step).toEqual({
      ...newStep(),
      configSheetProblems: ['an earlier problem', BCC_PROBLEM],
      configRows: new Map([
        [2, `CONFIG_INVALID: ${BCC_PROBLEM}`],
        [3, `CONFIG_INVALID: ${BCC_PROBLEM}`],
      ]),
    });
    expect(run.setAside).toEqual(new Set([2, 3]));
  });

  it('the first CONFIG_INVALID of the step starts the Config sheet\'s list', () => {
    const w = world([ready(1)], {}, [formConfig({ bcc: 'not-an-address' })]);
    const run = runAt(w);
    const step = newStep();
    prepareMail(run, step, run.rows[0]);
    expect(step.configSheetProblems).toEqual([BCC_PROBLEM]);
    expect(step.configProblems).toEqual([]);
  });

  it('any other failure is not the row\'s to wait for: it is thrown, and nothing is noted', () => {
    const w = world([ready(1)]);
    const run = runAt(w);
    w.deps.readPayload = () => {
      throw new Error('Service Spreadsheets timed out');
    };
    const step = newStep();
    expect(() => prepareMail(run, step, run.rows[0])).toThrow('Service Spreadsheets timed out');
    expect(step).toEqual(newStep());
    expect(run.setAside).toEqual(new Set());
  });
});

describe('replyPolicyHold', () => {
  const linked = (status: string) => ready(1, { status, result: 'See https://evil.example/x now' });
  it.each<[string, QueueRow, boolean, string | null]>([
    ['a reply within the policy', ready(1), false, null],
    ['a reply that breaks it, with no person yet', linked('READY'), false, LINK_HELD],
    ['a reply that breaks it, approved by a person', linked('APPROVED'), true, null],
  ])('%s', (_case, row, approved, held) => {
    const run = runAt(world([row]));
    expect(replyPolicyHold(run, run.rows[0], approved)).toBe(held);
  });

  it('is read under the row\'s own form\'s Config', () => {
    const w = world([linked('READY'), linked('READY')], {}, [formConfig({ formId: FORM, allowedLinkDomains: 'evil.example' }), formConfig({ formId: 'Other' })]);
    w.queue.edit(3, { formId: 'Other' });
    const run = runAt(w);
    expect(replyPolicyHold(run, run.rows[0], false)).toBeNull();
    expect(replyPolicyHold(run, run.rows[1], false)).toBe(LINK_HELD);
  });
});

describe('failPermanently and parkSuppressed', () => {
  it('failPermanently moves the row to FAILED with MAIL_PERMANENT and the reason, counted as failed once written', () => {
    const w = world([ready(1)]);
    const run = runAt(w);
    const batch = newBatch();
    failPermanently(run, batch, run.rows[0], 'not a valid email address: bogus');
    const error = 'MAIL_PERMANENT: not a valid email address: bogus';
    expect(batch).toEqual({ rows: [moved(run.rows[0], 'FAILED', error)], read: [run.rows[0]], entries: [line(run.rows[0], 'FAILED', error)], counts: new Map([[0, 'failed']]) });
  });

  it('parkSuppressed leaves a row whose recipient is not on the list, and says so', () => {
    const w = world([ready(1)]);
    w.deps.suppression = new MemorySuppression([suppressed('someone-else@example.com')]);
    const run = runAt(w);
    const batch = newBatch();
    expect(parkSuppressed(run, batch, run.rows[0])).toBe(false);
    expect(batch).toEqual(newBatch());
  });

  it.each<[string, string | undefined, string]>([
    ['with no Log note: the error alone', undefined, suppressedError('r1@example.com')],
    ['with a Log note: the note, then the error', 'not generated (no Gemini call)', `not generated (no Gemini call): ${suppressedError('r1@example.com')}`],
  ])('parkSuppressed moves a suppressed recipient\'s row to a person, %s', (_case, note, detail) => {
    const w = world([ready(1)]);
    w.deps.suppression = new MemorySuppression([suppressed('R1+news@Example.com')]);
    const run = runAt(w);
    const batch = newBatch();
    expect(note === undefined ? parkSuppressed(run, batch, run.rows[0]) : parkSuppressed(run, batch, run.rows[0], note)).toBe(true);
    expect(batch).toEqual({
      rows: [moved(run.rows[0], 'NEEDS_REVIEW', suppressedError('r1@example.com'))],
      read: [run.rows[0]],
      entries: [line(run.rows[0], 'NEEDS_REVIEW', detail)],
      counts: new Map([[0, 'needsReview']]),
    });
  });
});

describe('planBatch: the claims', () => {
  it('claims each waiting row in order: SENDING with its mail_ref kept, the claim time to the second, the error cleared, the ledger facts in its Log line', () => {
    const w = world([ready(1, { error: 'SEND_WINDOW: not mailed before 10:00' }), ready(2, { status: 'APPROVED' })]);
    w.deps.runningAccount = () => ' Ops@Example.org ';
    const run = runAt(w, T0 + 999);
    const step = newStep();
    const plan = planBatch(run, step, run.rows, 0);
    const [a, b] = run.rows;
    const claimA = { ...claimOf(a), updatedAt: T0 + 999 };
    const claimB = { ...claimOf(b), updatedAt: T0 + 999 };
    const withSender = (entry: LogEntry): LogEntry => ({ ...entry, at: T0 + 999, detail: entry.detail.replace(' marked=1', ' sender=ops@example.org marked=1') });
    expect(plan).toEqual({
      moves: { rows: [claimA, claimB], read: [a, b], entries: [withSender(claimLine(a)), withSender(claimLine(b))], counts: new Map() },
      claims: [
        { claim: claimA, back: 'READY' },
        { claim: claimB, back: 'APPROVED' },
      ],
      next: 2,
      quotaAt: null,
    });
    expect(plan.claims[0].claim).toBe(plan.moves.rows[0]);
    expect(step).toEqual(newStep());
    expect(run.summary.deferred).toBe(0);
    expect(run.setAside).toEqual(new Set());
    expect(run.claimedForSending).toEqual(new Set(['evt-1', `tf:${FORM}:tok-1`, 'evt-2', `tf:${FORM}:tok-2`]));
    expect(run.newRecipients).toEqual(new Set(['r1@example.com', 'r2@example.com']));
    expect(run.gone).toEqual(new Set(['TEMPLATE_INVALID']));
    expect(w.mailer.quotaChecks).toBe(1);
  });

  it('a row without a mail_ref gets a new one, never one a Queue row holds or this batch already gave', () => {
    const w = world([ready(1, { mailRef: '' }), ready(2, { mailRef: '' }), ready(3, { status: 'SENT', mailRef: 'FQ-000000', sentAt: T0 - 2 * DAY_MS })]);
    // Each draw takes six numbers: G…G for the first row; G…G again (this batch's), then 0…0 (row 3's), then Z…Z for the second.
    w.deps.random = fixedRandom(...Array(12).fill(0.5), ...Array(6).fill(0), ...Array(6).fill(0.99));
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows.slice(0, 2), 0);
    expect(plan.claims.map(({ claim }) => claim.mailRef)).toEqual(['FQ-GGGGGG', 'FQ-ZZZZZZ']);
    expect(plan.moves.entries.map((entry) => entry.detail)).toEqual([
      `claimed for sending [ledger: mail_ref=FQ-GGGGGG claimed_at=${ISO_T0} marked=1]`,
      `claimed for sending [ledger: mail_ref=FQ-ZZZZZZ claimed_at=${ISO_T0} marked=1]`,
    ]);
  });

  it(`claims at most ${SEND_BATCH_ROWS} rows a batch; the next batch starts where this one stopped`, () => {
    const w = world(Array.from({ length: 7 }, (_, i) => ready(i + 1)));
    const run = runAt(w);
    const first = planBatch(run, newStep(), run.rows, 0);
    expect(SEND_BATCH_ROWS).toBe(5);
    expect(first.claims.map(({ claim }) => claim.eventId)).toEqual(['evt-1', 'evt-2', 'evt-3', 'evt-4', 'evt-5']);
    expect(first.next).toBe(5);
    const second = planBatch(run, newStep(), run.rows, 5);
    expect(second.claims.map(({ claim }) => claim.eventId)).toEqual(['evt-6', 'evt-7']);
    expect(second.next).toBe(7);
    expect(second.quotaAt).toBeNull();
  });

  it.each<[string, string, number, string[], number]>([
    ['fewer than a batch left of MAX_MAILS_PER_RUN', '4', 1, ['evt-1', 'evt-2', 'evt-3'], 3],
    ['MAX_MAILS_PER_RUN reached', '4', 4, [], 0],
  ])('%s: the batch claims only what the run may still send', (_case, max, sent, claimed, next) => {
    const w = world(Array.from({ length: 7 }, (_, i) => ready(i + 1)), { MAX_MAILS_PER_RUN: max });
    const run = runAt(w);
    run.summary.sent = sent;
    const plan = planBatch(run, newStep(), run.rows, 0);
    expect(plan.claims.map(({ claim }) => claim.eventId)).toEqual(claimed);
    expect(plan.next).toBe(next);
  });

  it('nothing waiting from `from` on: an empty plan that starts and ends there', () => {
    const w = world([ready(1)]);
    const run = runAt(w);
    expect(planBatch(run, newStep(), run.rows, 1)).toEqual({ moves: newBatch(), claims: [], next: 1, quotaAt: null });
    expect(w.mailer.quotaChecks).toBe(0);
  });
});

describe('planBatch: rows that are not claimed, and the step goes on', () => {
  it('a suppressed recipient\'s row goes to a person; the next row is claimed', () => {
    const w = world([ready(1), ready(2)]);
    w.deps.suppression = new MemorySuppression([suppressed('r1@example.com')]);
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows, 0);
    const [a, b] = run.rows;
    expect(plan.moves).toEqual({
      rows: [moved(a, 'NEEDS_REVIEW', suppressedError('r1@example.com')), claimOf(b)],
      read: [a, b],
      entries: [line(a, 'NEEDS_REVIEW', suppressedError('r1@example.com')), claimLine(b)],
      counts: new Map([[0, 'needsReview']]),
    });
    expect(plan.claims).toEqual([{ claim: claimOf(b), back: 'READY' }]);
    expect(plan.next).toBe(2);
  });

  it('a READY reply that breaks the reply policy waits for a person; the same reply APPROVED by one is claimed', () => {
    const result = 'See https://evil.example/x now';
    const w = world([ready(1, { result }), ready(2, { result, status: 'APPROVED' })]);
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows, 0);
    const [a, b] = run.rows;
    expect(plan.moves).toEqual({
      rows: [moved(a, 'AWAITING_APPROVAL', LINK_HELD), claimOf(b)],
      read: [a, b],
      entries: [line(a, 'AWAITING_APPROVAL', `held for a person: ${LINK_HELD}`), claimLine(b)],
      counts: new Map(),
    });
    expect(plan.claims.map(({ claim }) => claim.eventId)).toEqual(['evt-2']);
  });

  it('a recipient at MAX_MAILS_PER_RECIPIENT_PER_DAY (mails of the last 24 hours and this batch\'s claims) waits, set aside and deferred', () => {
    const w = world([ready(1, { status: 'SENT', sentAt: T0 - HOUR_MS, recipient: 'ann@example.com' }), ready(2, { recipient: 'ann@example.com' }), ready(3, { recipient: 'Ann+2@Example.com' }), ready(4)], {
      MAX_MAILS_PER_RECIPIENT_PER_DAY: '2',
    });
    const run = runAt(w);
    const step = newStep();
    const plan = planBatch(run, step, run.rows.slice(1), 0);
    expect(plan.claims.map(({ claim }) => claim.eventId)).toEqual(['evt-2', 'evt-4']);
    expect(plan.moves.rows.map((row) => row.eventId)).toEqual(['evt-2', 'evt-4']);
    expect(step).toEqual({ ...newStep(), limited: [4] });
    expect(run.setAside).toEqual(new Set([4]));
    expect(run.summary.deferred).toBe(1);
    expect(plan.next).toBe(3);
  });

  it('a recipient one under the limit is claimed', () => {
    const w = world([ready(1, { status: 'SENT', sentAt: T0 - HOUR_MS }), ready(2, { recipient: 'r1@example.com' })], { MAX_MAILS_PER_RECIPIENT_PER_DAY: '2' });
    const run = runAt(w);
    const step = newStep();
    expect(planBatch(run, step, run.rows.slice(1), 0).claims.map(({ claim }) => claim.eventId)).toEqual(['evt-2']);
    expect(step).toEqual(newStep());
  });

  it('past MAX_NEW_RECIPIENTS_PER_HOUR a new address waits; an address mailed before is not new and is not counted', () => {
    const w = world([ready(1, { status: 'SENT', sentAt: T0 - 2 * DAY_MS, recipient: 'known@example.com' }), ready(2), ready(3), ready(4, { recipient: 'known@example.com' })], {
      MAX_NEW_RECIPIENTS_PER_HOUR: '1',
    });
    const run = runAt(w);
    const step = newStep();
    const plan = planBatch(run, step, run.rows.slice(1), 0);
    expect(plan.claims.map(({ claim }) => claim.eventId)).toEqual(['evt-2', 'evt-4']);
    expect(step).toEqual({ ...newStep(), ceiling: [4] });
    expect(run.setAside).toEqual(new Set([4]));
    expect(run.summary.deferred).toBe(1);
    expect(run.newRecipients).toEqual(new Set(['r2@example.com']));
  });

  it('past MAX_NEW_RECIPIENTS_PER_DAY a new address waits, counting the day\'s new addresses and the ones the run counted before', () => {
    const w = world([ready(1, { status: 'SENT', sentAt: T0 - 3 * HOUR_MS, recipient: 'earlier@example.com' }), ready(2), ready(3)], {
      MAX_NEW_RECIPIENTS_PER_HOUR: '5',
      MAX_NEW_RECIPIENTS_PER_DAY: '3',
    });
    const run = runAt(w);
    run.newRecipients = new Set(['before@example.com']);
    const step = newStep();
    const plan = planBatch(run, step, run.rows.slice(1), 0);
    expect(plan.claims.map(({ claim }) => claim.eventId)).toEqual(['evt-2']);
    expect(step).toEqual({ ...newStep(), ceiling: [4] });
    expect(run.newRecipients).toEqual(new Set(['before@example.com', 'r2@example.com']));
  });

  it('a row whose form\'s template is broken waits (deferred); another form\'s row is claimed', () => {
    const w = world([ready(1), ready(2)], {}, [formConfig({ formId: FORM, body: 'Hi {{nickname}}' }), formConfig({ formId: 'Other' })]);
    w.queue.edit(3, { formId: 'Other' });
    const run = runAt(w);
    const step = newStep();
    const plan = planBatch(run, step, run.rows, 0);
    expect(plan.claims.map(({ claim }) => claim.eventId)).toEqual(['evt-2']);
    expect(step.configRows).toEqual(new Map([[2, `TEMPLATE_INVALID: ${TEMPLATE_PROBLEM}`]]));
    expect(run.summary.deferred).toBe(1);
    expect(run.setAside).toEqual(new Set([2]));
  });

  it('a mail that can never go fails the row (MAIL_PERMANENT); the next row is claimed', () => {
    const w = world([ready(1, { recipient: 'bogus' }), ready(2)]);
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows, 0);
    const [a, b] = run.rows;
    const error = 'MAIL_PERMANENT: not a valid email address: bogus';
    expect(plan.moves).toEqual({ rows: [moved(a, 'FAILED', error), claimOf(b)], read: [a, b], entries: [line(a, 'FAILED', error), claimLine(b)], counts: new Map([[0, 'failed']]) });
    expect(run.summary.deferred).toBe(0);
    expect(run.newRecipients).toEqual(new Set(['r2@example.com']));
  });
});

describe('planBatch: the mail quota', () => {
  it.each<[string, number, string[], number | null, number]>([
    ['a quota that takes every mail (bcc counted)', 6, ['evt-1', 'evt-2', 'evt-3'], null, 3],
    ['a quota exactly two mails deep: the third row is where sending stops', 4, ['evt-1', 'evt-2'], 2, 2],
    ['a quota short of the first mail\'s recipients: nothing claimed', 1, [], 0, 0],
  ])('%s', (_case, quota, claimed, quotaAt, next) => {
    const w = world([ready(1), ready(2), ready(3)], {}, [formConfig({ bcc: 'office@example.org' })]);
    w.mailer.quota = quota;
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows, 0);
    expect(plan.claims.map(({ claim }) => claim.eventId)).toEqual(claimed);
    expect(plan.quotaAt).toBe(quotaAt);
    expect(plan.next).toBe(next);
    expect(w.mailer.quotaChecks).toBe(1);
    expect(run.newRecipients).toEqual(new Set(claimed.map((id) => `r${id.slice(4)}@example.com`)));
  });

  it('the quota is asked only once a mail is ready to claim, and a parked row takes none of it', () => {
    const w = world([ready(1, { recipient: 'bogus' }), ready(2), ready(2, { eventId: 'evt-copy' }), ready(3)]);
    w.mailer.quota = 2;
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows, 0);
    expect(plan.claims.map(({ claim }) => claim.eventId)).toEqual(['evt-2', 'evt-3']);
    expect(plan.moves.rows.map((row) => row.status)).toEqual(['FAILED', 'SENDING', 'NEEDS_REVIEW', 'SENDING']);
    expect(plan.quotaAt).toBeNull();
  });
});

describe('planBatch: a send the Log or this run already claimed', () => {
  const CLAIMED = 'ALREADY_CLAIMED: another row of this submission was claimed for sending by the same run; it is not mailed twice: set SKIPPED on this copy';

  it.each<[string, Partial<QueueRow>]>([
    ['the same event_id (a pasted copy)', { eventId: 'evt-1', responseToken: 'tok-other', recipient: 'r9@example.com' }],
    ['the same submission under another event_id (a redelivery)', { eventId: 'evt-9', responseToken: 'tok-1', recipient: 'r9@example.com' }],
  ])('a second row of a submission claimed in this batch goes to a person: %s', (_case, patch) => {
    const w = world([ready(1), ready(9, patch)]);
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows, 0);
    const [a, copy] = run.rows;
    expect(plan.moves).toEqual({
      rows: [claimOf(a), moved(copy, 'NEEDS_REVIEW', CLAIMED)],
      read: [a, copy],
      entries: [claimLine(a), line(copy, 'NEEDS_REVIEW', CLAIMED)],
      counts: new Map([[1, 'needsReview']]),
    });
  });

  it('a submission an earlier batch of this run claimed is not claimed again', () => {
    const w = world([ready(1)]);
    const run = runAt(w);
    run.claimedForSending = new Set([`tf:${FORM}:tok-1`]);
    const plan = planBatch(run, newStep(), run.rows, 0);
    expect(plan.claims).toEqual([]);
    expect(plan.moves.rows.map((row) => [row.status, row.error])).toEqual([['NEEDS_REVIEW', CLAIMED]]);
  });

  it('rows known by no key but their own distinct event_ids are each claimed (an empty key is nobody\'s)', () => {
    const w = world([ready(1, { responseToken: '' }), ready(2, { responseToken: '' })]);
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows, 0);
    expect(plan.claims.map(({ claim }) => claim.eventId)).toEqual(['evt-1', 'evt-2']);
    expect(run.claimedForSending).toEqual(new Set(['evt-1', 'evt-2']));
  });

  const at = T0 - 10 * MINUTE_MS;
  const logLine = (from: string, to: string, detail: string, when = at, by = 'system'): LogEntry => ({ at: when, eventId: 'evt-1', submission: `tf:${FORM}:tok-1`, from, to, by, detail });
  const claimInLog = logLine('READY', 'SENDING', withLedgerFacts('claimed for sending', { mailRef: 'FQ-7K2M9Q', claimedAt: at }));
  const CLAIMED_IN_LOG =
    'ALREADY_CLAIMED: the Log shows this submission was claimed for sending at 2026-11-20T09:50:00.000Z and the mail may have gone; ' +
    'it is not mailed again until a person sets PENDING (write and send a new reply) or SENT';

  it('a claim the Log shows and nothing settles parks the row (read again first), and a later copy of it too', () => {
    const w = world([ready(1), ready(1, { eventId: 'evt-copy' })]);
    w.audit.append([claimInLog]);
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows, 0);
    const [a, b] = run.rows;
    expect(plan.moves).toEqual({
      rows: [moved(a, 'NEEDS_REVIEW', CLAIMED_IN_LOG), moved(b, 'NEEDS_REVIEW', CLAIMED_IN_LOG)],
      read: [a, b],
      entries: [line(a, 'NEEDS_REVIEW', CLAIMED_IN_LOG), line(b, 'NEEDS_REVIEW', CLAIMED_IN_LOG)],
      counts: new Map([
        [0, 'needsReview'],
        [1, 'needsReview'],
      ]),
    });
    expect(w.audit.lookups).toEqual([
      ['evt-1', `tf:${FORM}:tok-1`],
      ['evt-1', `tf:${FORM}:tok-1`],
      ['evt-copy'],
      ['evt-copy', `tf:${FORM}:tok-1`],
    ]);
  });

  it('a send the Log shows (its row pasted over, this one a copy) puts that record back on the row: its mail_ref and sent_at', () => {
    const sentAt = T0 - 9 * MINUTE_MS;
    const w = world([ready(1)]);
    w.audit.append([claimInLog, logLine('SENDING', 'SENT', withLedgerFacts('mailed to the respondent (FQ-7K2M9Q)', { mailRef: 'FQ-7K2M9Q', sentAt }), sentAt)]);
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows, 0);
    const error =
      'ALREADY_SENT: the Log shows this submission was mailed at 2026-11-20T09:51:00.000Z (FQ-7K2M9Q), so it is not mailed again; set PENDING to write and send a new reply';
    expect(plan.moves.rows).toEqual([moved(run.rows[0], 'NEEDS_REVIEW', error, { mailRef: 'FQ-7K2M9Q', sentAt })]);
    expect(plan.moves.entries).toEqual([line(run.rows[0], 'NEEDS_REVIEW', error)]);
    expect(plan.claims).toEqual([]);
  });

  it.each<[string, LogEntry[]]>([
    ['a send line without sent_at (an older version\'s)', [claimInLog, logLine('SENDING', 'SENT', 'mailed to the respondent', at + 1)]],
    [
      'a send with no mail_ref anywhere',
      [logLine('READY', 'SENDING', withLedgerFacts('claimed for sending', { claimedAt: at })), logLine('SENDING', 'SENT', withLedgerFacts('mailed', { sentAt: at + 1 }), at + 1)],
    ],
    ['a claim line carrying a sent_at (still only a claim)', [logLine('READY', 'SENDING', withLedgerFacts('claimed for sending', { mailRef: 'FQ-7K2M9Q', sentAt: at }))]],
    ['a claim whose outcome is unknown (NEEDS_REVIEW)', [claimInLog, logLine('SENDING', 'NEEDS_REVIEW', 'stale claim', at + 1)]],
    // No move the system makes: the ledger reads it as cleared, the claim still stands, so the row is not mailed.
    ['a claim followed by a hand-written "system" line from SENDING to PENDING', [claimInLog, logLine('SENDING', 'PENDING', 'typed into the Log', at + 1)]],
  ])('a standing claim the Log cannot say was mailed, with its mail_ref and time, parks the row as claimed: %s', (_case, lines) => {
    const w = world([ready(1)]);
    w.audit.append(lines);
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows, 0);
    expect(plan.moves.rows).toEqual([moved(run.rows[0], 'NEEDS_REVIEW', CLAIMED_IN_LOG)]);
  });

  it('a claim the run\'s copy of the Log shows, settled since by a person, is claimed now; its copy after it is not', () => {
    const w = world([ready(1), ready(1, { eventId: 'evt-copy' })]);
    w.audit.append([claimInLog]);
    const run = runAt(w);
    run.ledger.set('evt-1', [claimInLog]);
    run.ledger.set(`tf:${FORM}:tok-1`, [claimInLog]);
    w.audit.append([logLine('NEEDS_REVIEW', 'PENDING', 'a person asked for a new reply', at + 1, 'ana@example.org')]);
    const plan = planBatch(run, newStep(), run.rows, 0);
    const [a, b] = run.rows;
    expect(plan.claims.map(({ claim }) => claim.eventId)).toEqual(['evt-1']);
    expect(plan.moves.rows).toEqual([claimOf(a), moved(b, 'NEEDS_REVIEW', CLAIMED)]);
    expect(run.claimedForSending).toEqual(new Set(['evt-1', `tf:${FORM}:tok-1`]));
  });

  it('a claim the Log shows settled (nothing left) is claimed without reading the Log again', () => {
    const w = world([ready(1)]);
    w.audit.append([claimInLog, logLine('SENDING', 'READY', 'not mailed: the run\'s budget ended', at + 1)]);
    const run = runAt(w);
    const plan = planBatch(run, newStep(), run.rows, 0);
    expect(plan.claims.map(({ claim }) => claim.eventId)).toEqual(['evt-1']);
    expect(w.audit.lookups).toEqual([['evt-1', `tf:${FORM}:tok-1`]]);
  });
});
