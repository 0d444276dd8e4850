// The run's Sent-folder check (sent-check-step.ts): which rows it looks at, what each look's finding writes, what a failing search leaves, and when the next look is due.
import { describe, expect, it } from 'vitest';
import { nextLookAt, runSentCheck, sentCheckMailbox } from '../../../src/core/processing/sent-check-step';
import { NO_COPY_YET, NO_PROOF_IN_SENT, RESEND_AFTER_CHECK, SECOND_LOOK_AFTER_MS } from '../../../src/core/processing/sent-check';
import type { SentCopy } from '../../../src/core/domain/ports';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import type { Run } from '../../../src/core/processing/run-context';
import { MemorySentMailbox, pendingRow, runOf, T0, world, type World } from '../memory-ports';

const MIN = 60_000;
const ON = { RECONCILE_SENT_MAIL: 'true', STALE_SENDING_MINUTES: '20' };
const STALE_MS = 20 * MIN;
/** A claim old enough for both looks: the first due 50 minutes ago, and a second look's 45 minutes after one then. */
const CLAIMED_AT = T0 - 70 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();
const firstLookNote = (at: number) => `SENT_CHECK: ${NO_COPY_YET} ${iso(at)}; looking again after ${iso(at + SECOND_LOOK_AFTER_MS)}`;
/** A first look made an exact SECOND_LOOK_AFTER_MS before now: the second is due. */
const FIRST_LOOK_AT = T0 - SECOND_LOOK_AFTER_MS;
const STALE = 'STALE_SENDING: sending started 20 min ago and its outcome was never recorded: the mail may or may not have reached the person.';

const sending = (n: number, patch: Partial<QueueRow> = {}): QueueRow =>
  pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, status: 'SENDING', result: 'Dear Mina', recipient: `r${n}@example.com`, mailRef: `FQ-AAAAA${n}`, attempts: 1, claimedAt: CLAIMED_AT, updatedAt: CLAIMED_AT, ...patch });
const parked = (n: number, patch: Partial<QueueRow> = {}): QueueRow => sending(n, { status: 'NEEDS_REVIEW', claimedAt: null, error: STALE, updatedAt: CLAIMED_AT + STALE_MS, ...patch });
const copy = (n: number, id: string, over: Partial<SentCopy> = {}): SentCopy => ({ id, to: `r${n}@example.com`, subject: 'Our reply', body: `Reference: FQ-AAAAA${n}`, sentAt: CLAIMED_AT + 2000, ...over });
/** The Log of a claim of row n from `from`, as the send step writes it (its sender named when given). */
const claim = (n: number, at = CLAIMED_AT, from = 'READY', sender = ''): LogEntry[] => [
  { at: at - 1000, eventId: `evt-${n}`, from: 'GENERATING', to: from, by: 'system', detail: 'reply written' },
  { at, eventId: `evt-${n}`, from, to: 'SENDING', by: 'system', detail: sender === '' ? 'claimed for sending' : `claimed for sending [ledger: mail_ref=FQ-AAAAA${n} sender=${sender}]` },
];
const parkLine = (n: number, at = CLAIMED_AT + STALE_MS): LogEntry => ({ at, eventId: `evt-${n}`, from: 'SENDING', to: 'NEEDS_REVIEW', by: 'system', detail: STALE });
/** A reply sent 8 minutes after the claims here (row 9), and its copy in Sent: the proof an empty second look needs. */
const laterSent = (): QueueRow => pendingRow({ eventId: 'evt-9', responseToken: 'tok-9', status: 'SENT', recipient: 'r9@example.com', mailRef: 'FQ-AAAAA9', sentAt: CLAIMED_AT + 8 * MIN, result: 'Dear Lee' });
const laterCopy = (): SentCopy => copy(9, 'm-later', { sentAt: CLAIMED_AT + 8 * MIN });
const query = (ref: string, at = CLAIMED_AT) => `in:sent "${ref}" after:${Math.floor((at - MIN) / 1000)}`;

interface Setup extends World {
  sent: MemorySentMailbox;
  run: Run;
}

function setUp(rows: QueueRow[], history: LogEntry[], props: Record<string, string> = ON): Setup {
  const w = world(rows, props) as Setup;
  w.sent = new MemorySentMailbox();
  w.deps.sentMail = w.sent;
  if (history.length > 0) w.audit.append(history);
  w.run = runOf(w);
  return w;
}
/** The Log lines the check wrote. */
const linesSince = (w: World, before: number) => w.audit.entries.slice(before);

describe('sentCheckMailbox: the Sent folder the check searches', () => {
  it.each<[string, Record<string, string>, boolean, boolean]>([
    ['on, with a Sent folder wired: that folder', ON, true, true],
    ['on, without one: none', ON, false, false],
    ['off, even with one wired: none', {}, true, false],
  ])('%s', (_case, props, wired, found) => {
    const w = world([], props);
    const sent = new MemorySentMailbox();
    if (wired) w.deps.sentMail = sent;
    expect(sentCheckMailbox(runOf(w))).toBe(found ? sent : null);
  });
});

describe('runSentCheck: which rows are looked at', () => {
  it.each<[string, Record<string, string>, boolean]>([
    ['the check is off', {}, true],
    ['no Sent folder is wired', ON, false],
  ])('%s: nothing is read, searched or written, and SENT_CHECK_FAILED is not found gone', (_case, props, wired) => {
    const w = setUp([sending(2)], claim(2), props);
    if (!wired) delete w.deps.sentMail;
    runSentCheck(w.run);
    expect(w.audit.lookups).toEqual([]);
    expect(w.sent.queries).toEqual([]);
    expect(w.queue.writes).toEqual([]);
    expect([...w.run.gone]).toEqual([]);
  });

  it('reads the Log once for the SENDING rows due a look and every parked row, and searches only those due', () => {
    const w = setUp(
      [
        sending(2),
        sending(3, { claimedAt: T0 - 19 * MIN }), // claimed 19 minutes ago: not yet
        sending(4, { mailRef: '' }), // nothing to search for: the stale sweep's
        sending(5, { sentAt: T0 - 5 * MIN }), // its mail went
        pendingRow({ eventId: 'evt-6', status: 'READY', result: 'Hi' }),
        parked(7), // parked 10 minutes after its claim, which was only 19 minutes ago
        parked(8), // parked, but the Log shows its mail went
        parked(10, { error: 'a person is looking' }), // parked for another reason
      ],
      [...claim(2), ...claim(3, T0 - 19 * MIN), ...claim(7, T0 - 19 * MIN), parkLine(7, T0 - 9 * MIN), ...claim(8),
        { at: CLAIMED_AT + 1000, eventId: 'evt-8', from: 'SENDING', to: 'SENT', by: 'system', detail: 'mailed' }, parkLine(8)],
    );
    w.sent.copies = [copy(2, 'm2')];
    runSentCheck(w.run);
    expect(w.audit.lookups).toEqual([['evt-2', 'evt-7', 'evt-8']]);
    expect(w.sent.queries).toEqual([query('FQ-AAAAA2')]);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SENDING', 'SENDING', 'SENDING', 'READY', 'NEEDS_REVIEW', 'NEEDS_REVIEW', 'NEEDS_REVIEW']);
  });

  it('with no row due, the Log is not read at all, and SENT_CHECK_FAILED is found gone', () => {
    const w = setUp([sending(2, { claimedAt: T0 - 19 * MIN }), pendingRow({ eventId: 'evt-3', status: 'READY', result: 'Hi' })], claim(2, T0 - 19 * MIN));
    runSentCheck(w.run);
    expect(w.audit.lookups).toEqual([]);
    expect(w.sent.queries).toEqual([]);
    expect([...w.run.gone]).toEqual(['SENT_CHECK_FAILED']);
  });

  it('a row whose look is due exactly now is looked at', () => {
    const w = setUp([sending(2, { claimedAt: T0 - STALE_MS })], claim(2, T0 - STALE_MS));
    runSentCheck(w.run);
    expect(w.sent.queries).toEqual([query('FQ-AAAAA2', T0 - STALE_MS)]);
  });

  it('no search is started once the run budget is spent: the rest wait for the next run', () => {
    const w = setUp([sending(2), sending(3)], [...claim(2), ...claim(3)]);
    const search = w.sent.search.bind(w.sent);
    w.sent.search = (q) => {
      w.clock.time = w.run.deadline;
      return search(q);
    };
    runSentCheck(w.run);
    expect(w.sent.queries).toEqual([query('FQ-AAAAA2')]);
    expect(w.queue.rows.map((row) => [row.status, row.error])).toEqual([
      ['SENDING', firstLookNote(T0)],
      ['SENDING', ''],
    ]);
  });
});

describe('runSentCheck on a SENDING row: what each look\'s finding writes', () => {
  it('exactly one copy that counts → SENT with its time, no claim, no error, a Log line with the ledger facts, counted as sent', () => {
    const w = setUp([sending(2, { error: firstLookNote(CLAIMED_AT + STALE_MS) }), laterSent()], claim(2));
    w.sent.copies = [copy(2, 'm1'), copy(2, 'm-other', { to: 'someone@example.com' }), laterCopy()];
    const before = w.audit.entries.length;
    runSentCheck(w.run);
    expect(w.queue.row(2)).toEqual({ ...sending(2), rowNumber: 2, status: 'SENT', sentAt: CLAIMED_AT + 2000, claimedAt: null, error: '', updatedAt: T0 });
    expect(linesSince(w, before)).toEqual([{
      at: T0, eventId: 'evt-2', submission: 'tf:Wr1tE5sy:tok-2', from: 'SENDING', to: 'SENT', by: 'system',
      detail: `confirmed in Sent (message id m1) [ledger: mail_ref=FQ-AAAAA2 sent_at=${iso(CLAIMED_AT + 2000)}]`,
    }]);
    expect(w.run.summary).toMatchObject({ sent: 1, needsReview: 0 });
    // The second look with a copy found needs no proof from a later reply: one search, though there is one.
    expect(w.sent.queries).toEqual([query('FQ-AAAAA2')]);
    expect(w.incidents.raised).toEqual([]);
    expect([...w.run.gone]).toEqual(['SENT_CHECK_FAILED']);
  });

  it('two copies → NEEDS_REVIEW with the finding, no claim, counted as needing review', () => {
    const w = setUp([sending(2)], claim(2));
    w.sent.copies = [copy(2, 'm1'), copy(2, 'm2')];
    const before = w.audit.entries.length;
    runSentCheck(w.run);
    const error = 'SENT_CHECK: mailed 2 times (message ids m1, m2); a person must look';
    expect(w.queue.row(2)).toEqual({ ...sending(2), rowNumber: 2, status: 'NEEDS_REVIEW', claimedAt: null, error, updatedAt: T0 });
    expect(linesSince(w, before)).toEqual([{ at: T0, eventId: 'evt-2', submission: 'tf:Wr1tE5sy:tok-2', from: 'SENDING', to: 'NEEDS_REVIEW', by: 'system', detail: error }]);
    expect(w.run.summary).toMatchObject({ sent: 0, needsReview: 1 });
  });

  it('none at the first look → stays SENDING with the look noted in its error cell, no Log line, one search', () => {
    const w = setUp([sending(2), laterSent()], claim(2));
    w.sent.copies = [laterCopy()];
    const before = w.audit.entries.length;
    runSentCheck(w.run);
    expect(w.queue.row(2)).toEqual({ ...sending(2), rowNumber: 2, error: firstLookNote(T0) });
    expect(linesSince(w, before)).toEqual([]);
    expect(w.sent.queries).toEqual([query('FQ-AAAAA2')]);
    expect(w.run.summary).toMatchObject({ sent: 0, needsReview: 0 });
  });

  it('none at the second look, Sent showing a later reply → a person: "safe to resend", the later reply searched by its own reference and time', () => {
    const w = setUp([sending(2, { error: firstLookNote(FIRST_LOOK_AT) }), laterSent()], claim(2));
    w.sent.copies = [laterCopy()];
    runSentCheck(w.run);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', claimedAt: null, error: 'SENT_CHECK: no copy in Sent: safe to resend — set PENDING' });
    expect(w.sent.queries).toEqual([query('FQ-AAAAA2'), query('FQ-AAAAA9', CLAIMED_AT + 8 * MIN)]);
  });

  it.each<[string, QueueRow[], SentCopy[], string[]]>([
    ['no later reply in the Queue: nothing more is searched', [], [], [query('FQ-AAAAA2')]],
    ['a later reply whose copy Sent does not show', [laterSent()], [], [query('FQ-AAAAA2'), query('FQ-AAAAA9', CLAIMED_AT + 8 * MIN)]],
    ['a later reply whose reference Sent shows only in mail to someone else', [laterSent()], [copy(9, 'm-x', { to: 'someone@example.com' })], [query('FQ-AAAAA2'), query('FQ-AAAAA9', CLAIMED_AT + 8 * MIN)]],
  ])('none at the second look, %s → a person: no proof in Sent either way', (_case, others, copies, queries) => {
    const w = setUp([sending(2, { error: firstLookNote(FIRST_LOOK_AT) }), ...others], claim(2), { ...ON, RECONCILE_RESEND: 'true' });
    w.sent.copies = copies;
    runSentCheck(w.run);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', claimedAt: null, error: `SENT_CHECK: ${NO_PROOF_IN_SENT}` });
    expect(w.sent.queries).toEqual(queries);
  });

  it('a later reply counts when any one of the hits for its reference went to its recipient', () => {
    const w = setUp([sending(2, { error: firstLookNote(FIRST_LOOK_AT) }), laterSent()], claim(2));
    w.sent.copies = [copy(9, 'm-x', { to: 'someone@example.com' }), laterCopy()];
    runSentCheck(w.run);
    expect(w.queue.row(2).error).toBe('SENT_CHECK: no copy in Sent: safe to resend — set PENDING');
  });

  it('with RECONCILE_RESEND, none at both looks → back where it was claimed from, no claim, no error, logged as the one resend', () => {
    const w = setUp([sending(2, { error: firstLookNote(FIRST_LOOK_AT) }), laterSent()], claim(2, CLAIMED_AT, 'APPROVED'), { ...ON, RECONCILE_RESEND: 'true' });
    w.sent.copies = [laterCopy()];
    const before = w.audit.entries.length;
    runSentCheck(w.run);
    expect(w.queue.row(2)).toEqual({ ...sending(2), rowNumber: 2, status: 'APPROVED', claimedAt: null, error: '', updatedAt: T0 });
    expect(linesSince(w, before)).toEqual([{ at: T0, eventId: 'evt-2', submission: 'tf:Wr1tE5sy:tok-2', from: 'SENDING', to: 'APPROVED', by: 'system', detail: RESEND_AFTER_CHECK }]);
  });

  it('a claim made as another account is not judged from this one\'s Sent folder: a person is told where to look, nothing is searched', () => {
    const w = setUp([sending(2)], claim(2, CLAIMED_AT, 'READY', 'ana@school.example'));
    w.deps.runningAccount = () => 'owner@school.example';
    runSentCheck(w.run);
    expect(w.sent.queries).toEqual([]);
    expect(w.queue.row(2)).toMatchObject({
      status: 'NEEDS_REVIEW',
      claimedAt: null,
      error:
        "SENT_CHECK: the claim was made by a run as ana@school.example, so the mail, if it went, is in ana@school.example's Sent folder; the check can search only owner@school.example's. " +
        'Look for FQ-AAAAA2 there: set SENT if it is there, PENDING for a new reply if it is not',
    });
    expect(w.run.summary.needsReview).toBe(1);
  });

  it('a claim made as the account that searches is judged from its Sent folder', () => {
    const w = setUp([sending(2)], claim(2, CLAIMED_AT, 'READY', 'owner@school.example'));
    w.deps.runningAccount = () => 'owner@school.example';
    w.sent.copies = [copy(2, 'm1')];
    runSentCheck(w.run);
    expect(w.queue.row(2).status).toBe('SENT');
  });

  it('a known secret in a finding is removed before it is written', () => {
    const w = setUp([sending(2)], claim(2));
    w.sent.copies = [copy(2, 'm1-hunter2'), copy(2, 'm2')];
    w.run.secrets = ['hunter2'];
    runSentCheck(w.run);
    expect(w.queue.row(2).error).toBe('SENT_CHECK: mailed 2 times (message ids m1-[redacted], m2); a person must look');
  });
});

describe('runSentCheck on a row parked in NEEDS_REVIEW with an unknown outcome', () => {
  const history = (n = 2) => [...claim(n), parkLine(n)];

  it('exactly one copy → SENT, from NEEDS_REVIEW, not counted as this run\'s mail', () => {
    const w = setUp([parked(2)], history());
    w.sent.copies = [copy(2, 'm1')];
    const before = w.audit.entries.length;
    runSentCheck(w.run);
    expect(w.queue.row(2)).toEqual({ ...parked(2), rowNumber: 2, status: 'SENT', sentAt: CLAIMED_AT + 2000, error: '', updatedAt: T0 });
    expect(linesSince(w, before)).toEqual([{
      at: T0, eventId: 'evt-2', submission: 'tf:Wr1tE5sy:tok-2', from: 'NEEDS_REVIEW', to: 'SENT', by: 'system',
      detail: `confirmed in Sent (message id m1) [ledger: mail_ref=FQ-AAAAA2 sent_at=${iso(CLAIMED_AT + 2000)}]`,
    }]);
    expect(w.run.summary).toMatchObject({ sent: 0, needsReview: 0 });
    expect(w.sent.queries).toEqual([query('FQ-AAAAA2')]);
  });

  it('two copies → stays NEEDS_REVIEW with the finding as its reason and a Log line, not counted again', () => {
    const w = setUp([parked(2)], history());
    w.sent.copies = [copy(2, 'm1'), copy(2, 'm2')];
    const before = w.audit.entries.length;
    runSentCheck(w.run);
    const error = 'SENT_CHECK: mailed 2 times (message ids m1, m2); a person must look';
    expect(w.queue.row(2)).toEqual({ ...parked(2), rowNumber: 2, error, updatedAt: T0 });
    expect(linesSince(w, before)).toEqual([{ at: T0, eventId: 'evt-2', submission: 'tf:Wr1tE5sy:tok-2', from: 'NEEDS_REVIEW', to: 'NEEDS_REVIEW', by: 'system', detail: error }]);
    expect(w.run.summary.needsReview).toBe(0);
  });

  it('none at the first look → the look noted as its reason, status kept, no Log line', () => {
    const w = setUp([parked(2)], history());
    const before = w.audit.entries.length;
    runSentCheck(w.run);
    expect(w.queue.row(2)).toEqual({ ...parked(2), rowNumber: 2, error: firstLookNote(T0) });
    expect(linesSince(w, before)).toEqual([]);
  });

  it('with RECONCILE_RESEND, none at both looks → back to READY with no error, logged as the one resend', () => {
    const w = setUp([parked(2, { error: firstLookNote(FIRST_LOOK_AT) }), laterSent()], history(), { ...ON, RECONCILE_RESEND: 'true' });
    w.sent.copies = [laterCopy()];
    const before = w.audit.entries.length;
    runSentCheck(w.run);
    expect(w.queue.row(2)).toEqual({ ...parked(2), rowNumber: 2, status: 'READY', error: '', updatedAt: T0 });
    expect(linesSince(w, before)).toEqual([{ at: T0, eventId: 'evt-2', submission: 'tf:Wr1tE5sy:tok-2', from: 'NEEDS_REVIEW', to: 'READY', by: 'system', detail: RESEND_AFTER_CHECK }]);
  });
});

describe('runSentCheck: a failing search', () => {
  const FAIL = 'API call to gmail.users.messages.list failed with error: Backend Error';
  const incident = (count: number, message: string, rows: number[]) => ({
    code: 'SENT_CHECK_FAILED',
    detail:
      `the Sent folder could not be searched (${message}); ${count} row(s) stay as they are (SENDING or NEEDS_REVIEW) until it can. ` +
      'Check that appsscript.json enables the Gmail advanced service with gmail.readonly and run Set up / repair (docs/oauth-scopes.md)',
    rows,
  });

  it('leaves each row as it is, goes on with the others, and raises SENT_CHECK_FAILED with the last error, the count and the rows', () => {
    const w = setUp([sending(2), parked(3), sending(4)], [...claim(2), ...claim(3), parkLine(3), ...claim(4)]);
    w.sent.copies = [copy(4, 'm4')];
    const search = w.sent.search.bind(w.sent);
    let calls = 0;
    w.sent.search = (q) => {
      calls++;
      if (calls === 1) throw new Error('first failure');
      if (calls === 2) throw new Error(FAIL);
      return search(q);
    };
    runSentCheck(w.run);
    expect(w.queue.rows.map((row) => [row.status, row.error])).toEqual([
      ['SENDING', ''],
      ['NEEDS_REVIEW', STALE],
      ['SENT', ''],
    ]);
    expect(w.incidents.raised).toEqual([incident(2, FAIL, [2, 3])]);
    expect([...w.run.raised]).toEqual(['SENT_CHECK_FAILED']);
    expect([...w.run.gone]).toEqual([]);
  });

  it('a failing search for the later reply (at the second look) leaves the row as it is and raises SENT_CHECK_FAILED', () => {
    const w = setUp([sending(2, { error: firstLookNote(FIRST_LOOK_AT) }), laterSent()], claim(2));
    w.sent.copies = [laterCopy()];
    const search = w.sent.search.bind(w.sent);
    w.sent.search = (q) => {
      if (q.includes('FQ-AAAAA9')) throw new Error(FAIL);
      return search(q);
    };
    runSentCheck(w.run);
    expect(w.queue.row(2)).toEqual({ ...sending(2, { error: firstLookNote(FIRST_LOOK_AT) }), rowNumber: 2 });
    expect(w.incidents.raised).toEqual([incident(1, FAIL, [2])]);
  });
});

describe('nextLookAt: when the next look at a row is due (for the tick gate)', () => {
  const NOW = T0;
  const runWith = (props: Record<string, string> = ON, wired = true) => {
    const w = world([], props);
    if (wired) w.deps.sentMail = new MemorySentMailbox();
    return runOf(w);
  };

  it.each<[string, QueueRow, number | null]>([
    ['a SENDING row not looked at yet: STALE_SENDING_MINUTES after its claim', sending(2, { claimedAt: T0 - 5 * MIN }), T0 + 15 * MIN],
    ['a SENDING row whose first look is past due still says that time', sending(2), CLAIMED_AT + STALE_MS],
    ['a SENDING row after an empty first look: 45 minutes after it', sending(2, { error: firstLookNote(T0 - 10 * MIN) }), T0 - 10 * MIN + SECOND_LOOK_AFTER_MS],
    ['a parked row: STALE_SENDING_MINUTES after it was parked', parked(2, { updatedAt: T0 - 5 * MIN }), T0 + 15 * MIN],
    ['a parked row after an empty first look: 45 minutes after it', parked(2, { error: firstLookNote(T0 - 10 * MIN) }), T0 - 10 * MIN + SECOND_LOOK_AFTER_MS],
    ['a parked row whose look is due now: none in the future', parked(2, { updatedAt: T0 - STALE_MS }), null],
    ['a row the check is not for', pendingRow({ status: 'READY', result: 'Hi' }), null],
    ['a SENDING row without a mail_ref', sending(2, { mailRef: '' }), null],
  ])('%s', (_case, row, at) => {
    expect(nextLookAt(runWith(), row, NOW)).toBe(at);
  });

  it.each<[string, Record<string, string>, boolean]>([
    ['the check is off', {}, true],
    ['no Sent folder is wired', ON, false],
  ])('%s: none', (_case, props, wired) => {
    expect(nextLookAt(runWith(props, wired), sending(2), NOW)).toBeNull();
  });
});
