// RECONCILE_SENT_MAIL for rows left in SENDING by a run that died: what one processQueue run does with each look's finding,
// what it counts, when it looks next, and what a failing search leaves behind.
import { describe, expect, it } from 'vitest';
import type { SentCopy } from '../../../src/core/domain/ports';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { runProcessing } from '../../../src/core/processing/process-run';
import { NO_COPY_YET, NO_PROOF_IN_SENT, RESEND_AFTER_CHECK, SECOND_LOOK_AFTER_MS } from '../../../src/core/processing/sent-check';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { MemorySentMailbox, pendingRow, T0, world, type World } from '../memory-ports';

const MIN = 60_000;
const ON = { RECONCILE_SENT_MAIL: 'true', STALE_SENDING_MINUTES: '15' };
const CLAIMED_AT = T0 - 16 * MIN;

const sending = (patch: Partial<QueueRow> = {}): QueueRow =>
  pendingRow({ eventId: 'evt-1', responseToken: 'tok-1', status: 'SENDING', result: 'Dear Mina, well done.', mailRef: 'FQ-AAAAAA', attempts: 1, claimedAt: CLAIMED_AT, updatedAt: CLAIMED_AT, ...patch });
const copy = (id: string, over: Partial<SentCopy> = {}): SentCopy => ({
  id, to: 'mina.okafor@example.com', subject: 'Our reply (FQ-AAAAAA)', body: 'Dear Mina.\nReference: FQ-AAAAAA', sentAt: CLAIMED_AT + 2000, ...over,
});
/**
 * A reply formqueue sent 8 minutes after the claim, and its copy in Sent: the proof that Sent shows mail sent after the
 * claim, without which "no copy" proves nothing (sent-check.ts laterReply).
 */
const laterSent = (at = CLAIMED_AT + 8 * MIN): QueueRow =>
  pendingRow({ eventId: 'evt-later', responseToken: 'tok-later', status: 'SENT', recipient: 'later@example.com', mailRef: 'FQ-LLLLLL', sentAt: at, result: 'Dear Lee' });
const laterCopy = (at = CLAIMED_AT + 8 * MIN): SentCopy => ({ id: 'm-later', to: 'later@example.com', subject: 'Our reply', body: 'Reference: FQ-LLLLLL', sentAt: at });
const claim = (eventId = 'evt-1', at = CLAIMED_AT, from = 'READY'): LogEntry[] => [
  { at: at - 1000, eventId, from: 'GENERATING', to: from, by: 'system', detail: 'reply written' },
  { at, eventId, from, to: 'SENDING', by: 'system', detail: 'claimed for sending' },
];

function setUp(rows: QueueRow[], props: Record<string, string> = ON, history: LogEntry[] = claim()): World & { sent: MemorySentMailbox } {
  const w = world(rows, props) as World & { sent: MemorySentMailbox };
  w.sent = new MemorySentMailbox();
  w.deps.sentMail = w.sent;
  w.audit.append(history);
  return w;
}
const run = (w: World) => runProcessing(w.deps, { startedAt: w.clock.now() });
const firstLookNote = `SENT_CHECK: ${NO_COPY_YET} ${new Date(T0).toISOString()}; looking again after ${new Date(T0 + SECOND_LOOK_AFTER_MS).toISOString()}`;

describe('sent check on a SENDING row: what each look does to the row and to the run\'s counts', () => {
  it('a claim made by a staff member\'s Process now is not judged from the trigger owner\'s Sent folder: a person is told where to look, and nothing is searched', () => {
    const byStaff = claim();
    byStaff[1] = { ...byStaff[1], detail: `claimed for sending [ledger: mail_ref=FQ-AAAAAA claimed_at=${new Date(CLAIMED_AT).toISOString()} sender=ana@school.example]` };
    const w = setUp([sending()], ON, byStaff);
    w.deps.runningAccount = () => 'owner@school.example';
    const summary = run(w);
    expect(w.sent.queries).toEqual([]);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', claimedAt: null });
    expect(w.queue.row(2).error).toMatch(/^SENT_CHECK: the claim was made by a run as ana@school\.example, so the mail, if it went, is in ana@school\.example's Sent folder/);
    expect(w.queue.row(2).error).not.toContain('safe to resend');
    expect(summary).toMatchObject({ sent: 0, needsReview: 1 });
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a claim made as the account that searches is judged from its Sent folder', () => {
    const own = claim();
    own[1] = { ...own[1], detail: `claimed for sending [ledger: mail_ref=FQ-AAAAAA sender=owner@school.example]` };
    const w = setUp([sending()], ON, own);
    w.deps.runningAccount = () => 'Owner@School.example';
    w.sent.copies = [copy('m1')];
    run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT' });
  });

  it('a claim records the account the run sends from', () => {
    const w = setUp([pendingRow({ eventId: 'evt-9', status: 'READY', result: 'Dear Mina' })], ON, []);
    w.deps.runningAccount = () => 'ana@school.example';
    run(w);
    const claimLine = w.audit.entries.find((entry) => entry.to === 'SENDING');
    expect(claimLine?.detail).toMatch(/ sender=ana@school\.example marked=1\]$/);
  });

  it('exactly one copy → SENT with the message\'s time and no claim, counted as sent; nothing mailed again', () => {
    const w = setUp([sending()]);
    w.sent.copies = [copy('m1')];
    const logged = w.audit.entries.length;
    const summary = run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: CLAIMED_AT + 2000, claimedAt: null, error: '' });
    expect(w.audit.entries.slice(logged)).toEqual([expect.objectContaining({ from: 'SENDING', to: 'SENT', by: 'system', detail: expect.stringMatching(/^confirmed in Sent \(message id m1\) \[ledger: mail_ref=FQ-AAAAAA sent_at=/) })]);
    expect(summary).toMatchObject({ sent: 1, needsReview: 0 });
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('two copies → NEEDS_REVIEW "mailed 2 times" with the ids and no claim, counted as needing review', () => {
    const w = setUp([sending()]);
    w.sent.copies = [copy('m1'), copy('m2')];
    const summary = run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', claimedAt: null, error: 'SENT_CHECK: mailed 2 times (message ids m1, m2); a person must look' });
    expect(summary).toMatchObject({ sent: 0, needsReview: 1 });
  });

  it('a copy to another recipient or without the reference does not count', () => {
    const w = setUp([sending()]);
    w.sent.copies = [copy('m1', { to: 'someone@example.com' }), copy('m2', { subject: 'FQ-AAAAAA?', body: '' , to: 'x@example.com' })];
    run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENDING', error: firstLookNote });
  });

  it('none at the first look → stays SENDING with the note in its error cell, next due 45 minutes later; none at the second → a person', () => {
    const w = setUp([sending(), laterSent()]);
    w.sent.copies = [laterCopy()];
    const first = run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENDING', claimedAt: CLAIMED_AT, error: firstLookNote });
    expect(first.nextDueAt).toBe(T0 + SECOND_LOOK_AFTER_MS);
    w.clock.advance(SECOND_LOOK_AFTER_MS - 1);
    expect(run(w).nextDueAt).toBe(T0 + SECOND_LOOK_AFTER_MS);
    expect(w.sent.queries).toHaveLength(1);
    w.clock.advance(1);
    const second = run(w);
    expect(w.sent.queries.slice(1)).toEqual([expect.stringContaining('"FQ-AAAAAA"'), expect.stringContaining('"FQ-LLLLLL"')]);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', claimedAt: null, error: 'SENT_CHECK: no copy in Sent: safe to resend — set PENDING' });
    expect(second.needsReview).toBe(1);
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('with RECONCILE_RESEND, none at both looks → back to READY with no claim and no error, and mailed once in the same run', () => {
    const w = setUp([sending(), laterSent()], { ...ON, RECONCILE_RESEND: 'true' });
    w.sent.copies = [laterCopy()];
    run(w);
    w.clock.advance(SECOND_LOOK_AFTER_MS);
    run(w);
    const resend = w.audit.entries.find((e) => e.from === 'SENDING' && e.to === 'READY');
    expect(resend).toMatchObject({ by: 'system', detail: RESEND_AFTER_CHECK });
    expect(w.queue.row(2).status).toBe('SENT');
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('a SENDING row claimed less than STALE_SENDING_MINUTES ago is not looked at; the run says when it will be', () => {
    const w = setUp([sending({ claimedAt: T0 - 14 * MIN })], ON, claim('evt-1', T0 - 14 * MIN));
    const summary = run(w);
    expect(w.sent.queries).toEqual([]);
    expect(w.audit.lookups).toEqual([]); // no row is due: the Log is not read for the check
    expect(summary.nextDueAt).toBe(T0 + MIN);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENDING', error: '' });
  });

  it('a SENDING row without a mail_ref is not searched for: the stale sweep parks it as before', () => {
    const w = setUp([sending({ mailRef: '' })]);
    w.sent.copies = [copy('m1')];
    run(w);
    expect(w.sent.queries).toEqual([]);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: expect.stringMatching(/^STALE_SENDING: /) });
  });

  it('with RECONCILE_SENT_MAIL off, a stale SENDING row is swept to NEEDS_REVIEW, never searched for', () => {
    const w = setUp([sending()], { STALE_SENDING_MINUTES: '15' });
    w.sent.copies = [copy('m1')];
    run(w);
    expect(w.sent.queries).toEqual([]);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: expect.stringMatching(/^STALE_SENDING: /) });
  });

  it('a backlog is worked through over several runs: no search is started once the run budget is spent', () => {
    const rows = [sending(), sending({ eventId: 'evt-2', responseToken: 'tok-2', mailRef: 'FQ-BBBBBB' })];
    const w = setUp(rows, { ...ON, RUN_BUDGET_SECONDS: '60' }, [...claim('evt-1'), ...claim('evt-2')]);
    const search = w.sent.search.bind(w.sent);
    w.sent.search = (query) => {
      w.clock.advance(61_000); // a slow search uses up the budget
      return search(query);
    };
    w.sent.copies = [copy('m1'), copy('m2', { body: 'Reference: FQ-BBBBBB', subject: 'Our reply' })];
    run(w);
    expect(w.sent.queries).toEqual([`in:sent "FQ-AAAAAA" after:${(CLAIMED_AT - MIN) / 1000}`]);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SENDING']);
    run(w);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SENT']);
  });
});

describe('a parked row the check settles is no mail of this run', () => {
  const STALE = 'STALE_SENDING: sending started 16 min ago and its outcome was never recorded: the mail may or may not have reached the person.';
  const parked = () => sending({ status: 'NEEDS_REVIEW', claimedAt: null, error: STALE, updatedAt: CLAIMED_AT + 16 * MIN });
  const parkedLog = [...claim(), { at: CLAIMED_AT + 16 * MIN, eventId: 'evt-1', from: 'SENDING', to: 'NEEDS_REVIEW', by: 'system', detail: STALE }];

  it('confirmed SENT: not counted as sent by this run (MAX_MAILS_PER_RUN counts only this run\'s mails)', () => {
    const w = setUp([parked()], ON, parkedLog);
    w.sent.copies = [copy('m1')];
    const summary = run(w);
    expect(w.queue.row(2).status).toBe('SENT');
    expect(summary).toMatchObject({ sent: 0, needsReview: 0 });
  });

  it('found mailed twice: it stays NEEDS_REVIEW with the finding, not counted as a new review', () => {
    const w = setUp([parked()], ON, parkedLog);
    w.sent.copies = [copy('m1'), copy('m2')];
    const summary = run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: 'SENT_CHECK: mailed 2 times (message ids m1, m2); a person must look' });
    expect(summary.needsReview).toBe(0);
  });
});

describe('a failing Sent search', () => {
  const FAIL = 'API call to gmail.users.messages.list failed with error: Backend Error';

  it('leaves each row as it is, goes on with the other rows, and raises SENT_CHECK_FAILED naming the error, the count and the rows', () => {
    const rows = [sending(), sending({ eventId: 'evt-2', responseToken: 'tok-2', mailRef: 'FQ-BBBBBB' }), sending({ eventId: 'evt-3', responseToken: 'tok-3', mailRef: 'FQ-CCCCCC' })];
    const w = setUp(rows, ON, [...claim('evt-1'), ...claim('evt-2'), ...claim('evt-3')]);
    const search = w.sent.search.bind(w.sent);
    w.sent.search = (query) => {
      if (!query.includes('FQ-BBBBBB')) throw new Error(FAIL);
      return search(query);
    };
    w.sent.copies = [copy('m2', { body: 'Reference: FQ-BBBBBB', subject: 'Our reply' })];
    run(w);
    expect(w.queue.rows.map((row) => [row.status, row.error])).toEqual([['SENDING', ''], ['SENT', ''], ['SENDING', '']]);
    expect(w.incidents.raised.filter((i) => i.code === 'SENT_CHECK_FAILED')).toEqual([{
      code: 'SENT_CHECK_FAILED',
      detail: `the Sent folder could not be searched (${FAIL}); 2 row(s) stay as they are (SENDING or NEEDS_REVIEW) until it can. ` +
        'Check that appsscript.json enables the Gmail advanced service with gmail.readonly and run Set up / repair (docs/oauth-scopes.md)',
      rows: [2, 4],
    }]);
    expect(w.incidents.cleared).not.toContain('SENT_CHECK_FAILED');
  });

  it('the first run whose searches all work clears SENT_CHECK_FAILED', () => {
    const w = setUp([sending()]);
    w.sent.failWith = FAIL;
    run(w);
    expect(w.incidents.codes()).toContain('SENT_CHECK_FAILED');
    w.sent.failWith = null;
    w.sent.copies = [copy('m1')];
    run(w);
    expect(w.incidents.cleared).toContain('SENT_CHECK_FAILED');
    expect(w.queue.row(2).status).toBe('SENT');
  });
});

describe('the check within the run', () => {
  const ready = () => pendingRow({ eventId: 'evt-9', responseToken: 'tok-9', status: 'READY', result: 'Dear Mina, well done.', mailRef: 'FQ-ZZZZZZ', attempts: 1 });

  it('with RECONCILE_SENT_MAIL on but no Sent folder wired, no search is attempted and no failure reported', () => {
    const w = setUp([sending()]);
    w.deps.sentMail = undefined;
    expect(run(w).stoppedBecause).toBe('done');
    expect(w.incidents.codes()).not.toContain('SENT_CHECK_FAILED');
  });

  it('with RECONCILE_SENT_MAIL on but no Sent folder wired, a stale SENDING row is swept to NEEDS_REVIEW as with the check off, never left in SENDING', () => {
    const w = setUp([sending()]);
    w.deps.sentMail = undefined;
    const summary = run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', claimedAt: null, error: expect.stringMatching(/^STALE_SENDING: /) });
    expect(summary).toMatchObject({ needsReview: 1 });
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a parked row whose Log shows no claim is skipped, and the run goes on to mail a READY row', () => {
    const STALE = 'STALE_SENDING: sending started 16 min ago and its outcome was never recorded: the mail may or may not have reached the person.';
    const w = setUp([sending({ status: 'NEEDS_REVIEW', claimedAt: null, error: STALE }), ready()], ON, []);
    w.sent.copies = [copy('m1')];
    const summary = run(w);
    expect(w.sent.queries).toEqual([]);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['NEEDS_REVIEW', 'SENT']);
    expect(summary).toMatchObject({ stoppedBecause: 'done', sent: 1 });
  });

  it('a GENERATING row\'s next due time stays its stale deadline (STALE_GENERATING_MINUTES) with the check on', () => {
    const w = setUp([pendingRow({ status: 'GENERATING', claimedAt: T0 - MIN })], { ...ON, STALE_GENERATING_MINUTES: '10' }, []);
    expect(run(w).nextDueAt).toBe(T0 + 9 * MIN);
  });

  it('a SENDING row\'s first look is due STALE_SENDING_MINUTES after its claim, whenever the row was last updated', () => {
    const w = setUp([sending({ claimedAt: T0 - 10 * MIN, updatedAt: T0 - MIN })], ON, claim('evt-1', T0 - 10 * MIN));
    expect(run(w).nextDueAt).toBe(T0 + 5 * MIN);
  });

  it('a resend the run has no time left to mail waits in READY with no claim and no error', () => {
    const w = setUp([sending(), laterSent()], { ...ON, RECONCILE_RESEND: 'true', RUN_BUDGET_SECONDS: '60' });
    w.sent.copies = [laterCopy()];
    run(w);
    w.clock.advance(SECOND_LOOK_AFTER_MS);
    const search = w.sent.search.bind(w.sent);
    w.sent.search = (query) => {
      w.clock.advance(61_000);
      return search(query);
    };
    run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'READY', claimedAt: null, error: '' });
    expect(w.mailer.outbox).toHaveLength(0);
  });
});

// Whether MailApp keeps a copy in Sent, and how soon search finds it, Google does not document (docs/platform.md#unknowns,
// the runtime's `sentCopy` world): with no copy kept, every search is empty, and "no copy" would resend mail that went.
describe('sent check: "no copy" counts only when Sent shows a reply sent after the claim', () => {
  const secondLook = (rows: QueueRow[], copies: SentCopy[], props = { ...ON, RECONCILE_RESEND: 'true' }) => {
    const w = setUp(rows, props);
    w.sent.copies = copies;
    run(w);
    w.clock.advance(SECOND_LOOK_AFTER_MS);
    run(w);
    return w;
  };

  it('no later reply in the Queue → a person ("no proof in Sent"), never resent, even with RECONCILE_RESEND', () => {
    const w = secondLook([sending()], []);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', claimedAt: null, error: `SENT_CHECK: ${NO_PROOF_IN_SENT}` });
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a later reply whose copy Sent does not show (no copies kept, or search lagging) → a person, never resent', () => {
    const w = secondLook([sending(), laterSent()], []);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: `SENT_CHECK: ${NO_PROOF_IN_SENT}` });
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a reply sent within 7 minutes of the claim proves nothing (the claim\'s own mail may have gone after it) → a person', () => {
    const w = secondLook([sending(), laterSent(CLAIMED_AT + 6 * MIN)], [laterCopy(CLAIMED_AT + 6 * MIN)]);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: `SENT_CHECK: ${NO_PROOF_IN_SENT}` });
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a failing search for the later reply changes nothing and reports SENT_CHECK_FAILED', () => {
    const w = setUp([sending(), laterSent()]);
    w.sent.copies = [laterCopy()];
    run(w);
    w.clock.advance(SECOND_LOOK_AFTER_MS);
    const search = w.sent.search.bind(w.sent);
    w.sent.search = (query) => {
      if (query.includes('FQ-LLLLLL')) throw new Error('Backend Error');
      return search(query);
    };
    run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENDING', claimedAt: CLAIMED_AT });
    expect(w.incidents.raised.map((r) => r.code)).toContain('SENT_CHECK_FAILED');
  });
});
