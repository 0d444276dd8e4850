// RECONCILE_SENT_MAIL for rows already parked in NEEDS_REVIEW with an unknown mail outcome (the stale sweep with the
// check off, a send error that may have mailed, a claim the Log shows unsettled): the same two looks as a SENDING row,
// and a NEEDS_REVIEW row with any other reason is never touched.
import { describe, expect, it } from 'vitest';
import type { SentCopy } from '../../../src/core/domain/ports';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { runProcessing } from '../../../src/core/processing/process-run';
import { NO_COPY_YET, RESEND_AFTER_CHECK, SECOND_LOOK_AFTER_MS } from '../../../src/core/processing/sent-check';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { MemorySentMailbox, pendingRow, T0, world, type World } from '../memory-ports';

const MIN = 60_000;
const ON = { RECONCILE_SENT_MAIL: 'true', STALE_SENDING_MINUTES: '15' };
const CLAIMED_AT = T0 - 60 * MIN;
const STALE = 'STALE_SENDING: sending started 16 min ago and its outcome was never recorded: the mail may or may not have reached the person.';

const copy = (id: string, over: Partial<SentCopy> = {}): SentCopy => ({
  id, to: 'mina.okafor@example.com', subject: 'Our reply (FQ-AAAAAA)', body: 'Dear Mina.\nReference: FQ-AAAAAA', sentAt: CLAIMED_AT + 2000, ...over,
});

/** A reply sent `at` (well after the claims here) and its copy in Sent: the proof "no copy" needs (sent-check.ts laterReply). */
const laterSent = (at = CLAIMED_AT + 8 * MIN): QueueRow =>
  pendingRow({ eventId: 'evt-later', responseToken: 'tok-later', status: 'SENT', recipient: 'later@example.com', mailRef: 'FQ-LLLLLL', sentAt: at, result: 'Dear Lee' });
const laterCopy = (at = CLAIMED_AT + 8 * MIN): SentCopy => ({ id: 'm-later', to: 'later@example.com', subject: 'Our reply', body: 'Reference: FQ-LLLLLL', sentAt: at });

const parked = (patch: Partial<QueueRow> = {}): QueueRow =>
  pendingRow({ eventId: 'evt-1', responseToken: 'tok-1', status: 'NEEDS_REVIEW', result: 'Dear Mina, well done.', mailRef: 'FQ-AAAAAA', attempts: 1, error: STALE, updatedAt: CLAIMED_AT + 16 * MIN, ...patch });

const line = (at: number, from: string, to: string, detail = '', by = 'system', eventId = 'evt-1'): LogEntry => ({ at, eventId, from, to, by, detail });
/** The Log of a row claimed from `from`, then parked by the stale sweep (or `parkedWith`). */
const claimAndPark = (from = 'READY', parkedWith = STALE, eventId = 'evt-1'): LogEntry[] => [
  line(CLAIMED_AT - 1000, 'GENERATING', from, 'reply written', 'system', eventId),
  line(CLAIMED_AT, from, 'SENDING', 'claimed for sending', 'system', eventId),
  line(CLAIMED_AT + 16 * MIN, 'SENDING', 'NEEDS_REVIEW', parkedWith, 'system', eventId),
];

function setUp(rows: QueueRow[], history: LogEntry[] = claimAndPark(), props: Record<string, string> = ON): World & { sent: MemorySentMailbox } {
  const w = world(rows, props) as World & { sent: MemorySentMailbox };
  w.sent = new MemorySentMailbox();
  w.deps.sentMail = w.sent;
  if (history.length > 0) w.audit.append(history);
  return w;
}
const run = (w: World) => runProcessing(w.deps, { startedAt: w.clock.now() });
const newLines = (w: World, before: number) => w.audit.entries.slice(before);

describe('sent check on rows parked in NEEDS_REVIEW with an unknown outcome', () => {
  it('exactly one copy in Sent → SENT, sent_at from the message, a system NEEDS_REVIEW → SENT line; nothing mailed', () => {
    const w = setUp([parked()]);
    w.sent.copies = [copy('m1')];
    const logged = w.audit.entries.length;
    run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: CLAIMED_AT + 2000, error: '' });
    expect(newLines(w, logged)).toEqual([expect.objectContaining({ from: 'NEEDS_REVIEW', to: 'SENT', by: 'system', detail: expect.stringMatching(/^confirmed in Sent \(message id m1\) \[ledger: mail_ref=\S+ sent_at=/) })]);
    expect(w.sent.queries).toEqual([`in:sent "FQ-AAAAAA" after:${(CLAIMED_AT - MIN) / 1000}`]);
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it.each([
    ['STALE_SENDING (the sweep with the check off)', STALE],
    ['MAIL_UNKNOWN (a send error that may have mailed)', 'MAIL_UNKNOWN: Service error — the mail may or may not have been sent; it is not resent automatically'],
    ['ALREADY_CLAIMED (a claim the Log shows unsettled)', 'ALREADY_CLAIMED: the Log shows this submission was claimed for sending at … and the mail may have gone'],
  ])('a row parked with %s is settled the same way', (_name, error) => {
    const w = setUp([parked({ error })], claimAndPark('READY', error));
    w.sent.copies = [copy('m1')];
    run(w);
    expect(w.queue.row(2).status).toBe('SENT');
  });

  it('several copies → stays NEEDS_REVIEW with "mailed N times" and the ids, logged', () => {
    const w = setUp([parked()]);
    w.sent.copies = [copy('m1'), copy('m2')];
    const logged = w.audit.entries.length;
    run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: 'SENT_CHECK: mailed 2 times (message ids m1, m2); a person must look' });
    expect(newLines(w, logged)).toEqual([expect.objectContaining({ from: 'NEEDS_REVIEW', to: 'NEEDS_REVIEW', by: 'system', detail: 'SENT_CHECK: mailed 2 times (message ids m1, m2); a person must look' })]);
    // The finding is the row's reason now: later runs do not look again.
    w.clock.advance(2 * SECOND_LOOK_AFTER_MS);
    run(w);
    expect(w.sent.queries).toHaveLength(1);
  });

  it('none at the first look → a note, none at the second 45 minutes later → "safe to resend"; nothing mailed', () => {
    const w = setUp([parked(), laterSent()]);
    w.sent.copies = [laterCopy()];
    run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW' });
    expect(w.queue.row(2).error).toBe(`SENT_CHECK: ${NO_COPY_YET} ${new Date(T0).toISOString()}; looking again after ${new Date(T0 + SECOND_LOOK_AFTER_MS).toISOString()}`);
    const summary = run(w);
    expect(w.sent.queries).toHaveLength(1); // the second look waits 45 minutes
    expect(summary.nextDueAt).toBe(T0 + SECOND_LOOK_AFTER_MS);
    w.clock.advance(SECOND_LOOK_AFTER_MS);
    run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: 'SENT_CHECK: no copy in Sent: safe to resend — set PENDING' });
    w.clock.advance(2 * SECOND_LOOK_AFTER_MS);
    run(w);
    expect(w.sent.queries).toHaveLength(3); // the second look also found the later reply
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('the copy that appears by the second look (index lag) still settles the row SENT', () => {
    const w = setUp([parked()]);
    run(w);
    w.sent.copies = [copy('m1')];
    w.clock.advance(SECOND_LOOK_AFTER_MS);
    run(w);
    expect(w.queue.row(2).status).toBe('SENT');
  });

  it('with RECONCILE_RESEND: none at both looks → back to the state it was claimed from and mailed once, in the same run', () => {
    const w = setUp([parked(), laterSent()], claimAndPark('APPROVED'), { ...ON, RECONCILE_RESEND: 'true' });
    w.sent.copies = [laterCopy()];
    run(w);
    w.clock.advance(SECOND_LOOK_AFTER_MS);
    run(w);
    expect(w.audit.entries.map((e) => `${e.from}>${e.to}`)).toContain('NEEDS_REVIEW>APPROVED');
    expect(w.audit.entries.find((e) => e.from === 'NEEDS_REVIEW' && e.to === 'APPROVED')?.detail).toBe(RESEND_AFTER_CHECK);
    expect(w.queue.row(2).status).toBe('SENT');
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('with RECONCILE_RESEND, never a second resend: a resent mail whose outcome is unknown again ends with a person', () => {
    const resentAt = CLAIMED_AT + 70 * MIN;
    const w = setUp([parked(), laterSent(resentAt + 10 * MIN)], [], { ...ON, RECONCILE_RESEND: 'true' });
    w.sent.copies = [laterCopy(resentAt + 10 * MIN)];
    w.audit.append([
      ...claimAndPark(),
      line(resentAt, 'NEEDS_REVIEW', 'READY', RESEND_AFTER_CHECK),
      line(resentAt + 1000, 'READY', 'SENDING', 'claimed for sending'),
      line(resentAt + 2000, 'SENDING', 'NEEDS_REVIEW', 'MAIL_UNKNOWN: Service error — the mail may or may not have been sent'),
    ]);
    w.queue.edit(2, { error: 'MAIL_UNKNOWN: Service error — the mail may or may not have been sent' });
    w.clock.time = resentAt + 20 * MIN;
    run(w);
    w.clock.advance(SECOND_LOOK_AFTER_MS);
    run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: 'SENT_CHECK: no copy in Sent: safe to resend — set PENDING' });
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.sent.queries[0]).toBe(`in:sent "FQ-AAAAAA" after:${(resentAt + 1000 - MIN) / 1000}`); // the standing claim is the resend's
  });

  it('a row parked by a send error this minute is not looked at before STALE_SENDING_MINUTES after its claim', () => {
    const error = 'MAIL_UNKNOWN: Service error — the mail may or may not have been sent';
    const w = setUp([parked({ error, updatedAt: T0 })], [line(T0 - 1000, 'READY', 'SENDING', 'claimed for sending'), line(T0, 'SENDING', 'NEEDS_REVIEW', error)]);
    const summary = run(w);
    expect(w.sent.queries).toEqual([]);
    expect(summary.nextDueAt).toBe(T0 + 15 * MIN);
    w.clock.advance(15 * MIN);
    w.sent.copies = [copy('m1', { sentAt: T0 })];
    run(w);
    expect(w.queue.row(2).status).toBe('SENT');
  });

  it('a failing search changes nothing and raises SENT_CHECK_FAILED', () => {
    const w = setUp([parked()]);
    w.sent.failWith = 'API call to gmail.users.messages.list failed with error: Backend Error';
    run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: STALE });
    expect(w.incidents.codes()).toContain('SENT_CHECK_FAILED');
  });

  // Parked this minute: with the check on, its first look would be due in STALE_SENDING_MINUTES.
  it('with RECONCILE_SENT_MAIL off, a parked row is left to a person, and no run is due for it', () => {
    const w = setUp([parked({ updatedAt: T0 })], claimAndPark(), { STALE_SENDING_MINUTES: '15' });
    w.sent.copies = [copy('m1')];
    const summary = run(w);
    expect(w.sent.queries).toEqual([]);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: STALE });
    expect(summary.nextDueAt).toBeNull();
  });

  it('with RECONCILE_SENT_MAIL on but no Sent folder wired, a parked row is left to a person, and no run is due for it', () => {
    const w = setUp([parked({ updatedAt: T0 })]);
    w.deps.sentMail = undefined;
    const summary = run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: STALE });
    expect(summary.nextDueAt).toBeNull();
  });
});

describe('a NEEDS_REVIEW row with any other reason, or whose Log says the outcome, is never touched', () => {
  it.each<[string, Partial<QueueRow>, LogEntry[]]>([
    ['ALREADY_SENT (sent_at is filled)', { error: 'ALREADY_SENT: sent_at is filled', sentAt: CLAIMED_AT + 2000 }, claimAndPark()],
    ['parked by a multi-cell edit', { error: '' }, [...claimAndPark(), line(T0 - MIN, '(unknown)', 'NEEDS_REVIEW', 'multi-cell edit', 'staff@example.com')]],
    ['a previous "mailed N times"', { error: 'SENT_CHECK: mailed 2 times (message ids m1, m2); a person must look' }, claimAndPark()],
    ['a previous "safe to resend"', { error: 'SENT_CHECK: no copy in Sent: safe to resend — set PENDING' }, claimAndPark()],
    ['a reason a person wrote over the code', { error: 'checking with the teacher — STALE_SENDING' }, claimAndPark()],
    ['no mail_ref to search for', { mailRef: '' }, claimAndPark()],
    ['a Log with no send claim', {}, [line(CLAIMED_AT + 16 * MIN, 'SENDING', 'NEEDS_REVIEW', STALE)]],
    ['a claim the Log says was mailed (SENDING → SENT), the row pasted back', {}, [...claimAndPark().slice(0, 2), line(CLAIMED_AT + 2000, 'SENDING', 'SENT', 'mailed'), line(T0 - MIN, '(unknown)', 'NEEDS_REVIEW', 'multi-cell edit', 'staff@example.com')]],
    ['a claim a person settled by asking for a new reply (PENDING)', {}, [...claimAndPark(), line(T0 - 2 * MIN, 'NEEDS_REVIEW', 'PENDING', 'retry', 'staff@example.com'), line(T0 - MIN, '(unknown)', 'NEEDS_REVIEW', 'multi-cell edit', 'staff@example.com')]],
  ])('%s', (_name, patch, history) => {
    const row = parked(patch);
    const w = setUp([row], history);
    w.sent.copies = [copy('m1')];
    const logged = w.audit.entries.length;
    run(w);
    expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: row.error, sentAt: row.sentAt });
    expect(newLines(w, logged)).toEqual([]);
    expect(w.mailer.outbox).toHaveLength(0);
  });
});
