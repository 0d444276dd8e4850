// The Sent-folder check (src/core/processing/sent-check.ts): its decision table and rules case by case, then RECONCILE_SENT_MAIL through runProcessing for rows in SENDING and rows parked in NEEDS_REVIEW.
import { describe, expect, it } from 'vitest';
import type { SentCopy } from '../../../src/core/domain/ports';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import {
  CLAIM_SETTLED_AFTER_MS,
  NO_COPY_YET,
  NO_PROOF_IN_SENT,
  RESEND_AFTER_CHECK,
  SECOND_LOOK_AFTER_MS,
  countsAsCopy,
  decideLook,
  laterReply,
  lookDue,
  sentCheckState,
  sentQuery,
  isSentCheckCandidate,
  otherMailboxReview,
  parkedLookAt,
} from '../../../src/core/processing/sent-check';
import { findStaleRows } from '../../../src/core/processing/stale-sweep';
import { pendingRow, MemorySentMailbox, T0 as WORLD_T0, world, type World } from '../memory-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { runProcessing } from '../../../src/core/processing/process-run';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const line = (at: number, from: string, to: string, detail = '', by = 'system'): LogEntry => ({ at, eventId: 'e1', from, to, by, detail });
const ON = { RECONCILE_SENT_MAIL: 'true', STALE_SENDING_MINUTES: '15' };
const run = (w: World) => runProcessing(w.deps, { startedAt: w.clock.now() });

// Decision table for the Sent-folder check: when to look, which copies count, and what 0, 1 or many copies decide.
const claimLines = (from = 'READY') => [line(T0 - 1000, 'GENERATING', from), line(T0, from, 'SENDING', 'claimed for sending')];
const settings = { staleSendingMinutes: 15 };
const copy = (id: string, over: Partial<SentCopy> = {}): SentCopy => ({ id, to: 'ann@example.org', subject: 'Your reply', body: 'Reference: FQ-AAAAAA', sentAt: T0 + 2000, ...over });
const firstLookNote = (at: number) => `SENT_CHECK: ${NO_COPY_YET} ${iso(at)}; looking again after ${iso(at + SECOND_LOOK_AFTER_MS)}`;
const state = (error = '', history = claimLines()) => sentCheckState({ status: 'SENDING', claimedAt: T0, error }, history)!;

describe('sent check: when to look', () => {
  it.each([
    ['no look before STALE_SENDING_MINUTES after the claim', '', T0 + 14 * MIN, { kind: 'not-yet', at: T0 + 15 * MIN }],
    ['the first look at STALE_SENDING_MINUTES', '', T0 + 15 * MIN, { kind: 'look', look: 1 }],
    ['the second look not before 45 min after the first', firstLookNote(T0 + 16 * MIN), T0 + 60 * MIN, { kind: 'not-yet', at: T0 + 61 * MIN }],
    ['the second look 45 min after the first', firstLookNote(T0 + 16 * MIN), T0 + 61 * MIN, { kind: 'look', look: 2 }],
    ['a note from before this claim is no look', firstLookNote(T0 - 99 * MIN), T0 + 15 * MIN, { kind: 'look', look: 1 }],
    ['an error cell a person edited into nonsense is no look', 'SENT_CHECK: no copy in Sent yet at someday', T0 + 15 * MIN, { kind: 'look', look: 1 }],
  ])('%s', (_name, error, now, due) => {
    expect(lookDue(state(error), now, settings)).toEqual(due);
  });

  it('searches the reference as a phrase after the claim, a minute early, in epoch seconds', () => {
    expect(sentQuery('FQ-AAAAAA', T0)).toBe(`in:sent "FQ-AAAAAA" after:${(T0 - MIN) / 1000}`);
  });

  it('with the check on, the stale sweep leaves a SENDING row with a mail_ref to it (and still sweeps one without)', () => {
    const row = (mailRef: string) => ({ status: 'SENDING', claimedAt: T0, mailRef }) as any;
    expect(findStaleRows([row('FQ-AAAAAA'), row('')], T0 + 16 * MIN, { staleGeneratingMinutes: 10, staleSendingMinutes: 15 }, true).map((f) => f.row.mailRef)).toEqual(['']);
    expect(findStaleRows([row('FQ-AAAAAA')], T0 + 16 * MIN, { staleGeneratingMinutes: 10, staleSendingMinutes: 15 })).toHaveLength(1);
  });
});

describe('sent check: which copies count', () => {
  it.each([
    ['the ref in the body, to the recipient', copy('m1'), true],
    ['the ref in the subject', copy('m1', { subject: 'Re FQ-AAAAAA', body: 'x' }), true],
    ['a display-name address, any case', copy('m1', { to: 'Ann <ANN@example.org>' }), true],
    ['one of several recipients', copy('m1', { to: 'bob@example.org, ann@example.org' }), true],
    ['another recipient', copy('m1', { to: 'bob@example.org' }), false],
    ['an address that only contains the recipient\'s', copy('m1', { to: 'xann@example.org' }), false],
    ['no ref (the search matched elsewhere)', copy('m1', { body: 'FQ-AAAAAB' }), false],
  ])('%s', (_name, message, counts) => {
    expect(countsAsCopy(message, 'FQ-AAAAAA', 'ann@example.org')).toBe(counts);
  });
});

describe('sent check: what a look decides (0 / 1 / many, first and second look, resend once)', () => {
  const now = T0 + 61 * MIN;
  // laterReplyInSent: Sent shows a reply sent after the claim (the proof a "no copy" needs; its own tests below).
  const decide = (look: 1 | 2, copies: SentCopy[], resendAllowed = false, s = state(), laterReplyInSent = true) =>
    decideLook({ look, copies, state: s, resendAllowed, laterReplyInSent, now, iso });

  it('exactly one copy → SENT at the message\'s time, at either look', () => {
    expect(decide(1, [copy('m7')])).toEqual({ kind: 'sent', sentAt: T0 + 2000, detail: 'confirmed in Sent (message id m7)' });
    expect(decide(2, [copy('m7')]).kind).toBe('sent');
  });

  it('two or more → NEEDS_REVIEW "mailed N times" with the ids, at either look', () => {
    expect(decide(1, [copy('m7'), copy('m8')])).toEqual({ kind: 'review', detail: 'mailed 2 times (message ids m7, m8); a person must look' });
    expect(decide(2, [copy('m7'), copy('m8'), copy('m9')]).kind).toBe('review');
  });

  it('none at the first look → a note to look again in 45 minutes, which the next state reads back', () => {
    const decision = decide(1, []);
    expect(decision).toEqual({ kind: 'look-again', note: `${NO_COPY_YET} ${iso(now)}; looking again after ${iso(now + SECOND_LOOK_AFTER_MS)}` });
    const noted = state(`SENT_CHECK: ${(decision as { note: string }).note}`);
    expect(noted.firstEmptyLookAt).toBe(now);
  });

  it('none at the second look → "safe to resend", left to a person when RECONCILE_RESEND is off', () => {
    expect(decide(2, [])).toEqual({ kind: 'review', detail: 'no copy in Sent: safe to resend — set PENDING' });
  });

  it('none at the second look with RECONCILE_RESEND → back to the status it was claimed from', () => {
    expect(decide(2, [], true)).toEqual({ kind: 'resend', to: 'READY', detail: RESEND_AFTER_CHECK });
    expect(decide(2, [], true, state('', claimLines('APPROVED')))).toEqual({ kind: 'resend', to: 'APPROVED', detail: RESEND_AFTER_CHECK });
  });

  it('never a second resend: after one, a person decides', () => {
    const again = state('', [
      ...claimLines(), line(T0 + 61 * MIN, 'SENDING', 'READY', RESEND_AFTER_CHECK), line(T0 + 62 * MIN, 'READY', 'SENDING', 'claimed for sending'),
    ]);
    expect(again.resends).toBe(1);
    expect(decide(2, [], true, again)).toEqual({ kind: 'review', detail: 'no copy in Sent: safe to resend — set PENDING' });
  });

  // Whether MailApp keeps a copy in Sent, and how soon search finds it, is not documented (the sentCopy world): an empty
  // search proves nothing unless Sent shows a reply sent after the claim.
  it('none at the second look and no later reply in Sent → a person ("no proof in Sent"), never a resend, even with RECONCILE_RESEND', () => {
    expect(decide(2, [], false, state(), false)).toEqual({ kind: 'review', detail: NO_PROOF_IN_SENT });
    expect(decide(2, [], true, state(), false)).toEqual({ kind: 'review', detail: NO_PROOF_IN_SENT });
    expect(decide(1, [], true, state(), false).kind).toBe('look-again');
    expect(decide(2, [copy('m7')], true, state(), false).kind).toBe('sent');
  });

  it('the later reply is the earliest SENT row with a reference sent at least 7 minutes (a run\'s longest life and a minute) after the claim', () => {
    const sent = (rowNumber: number, sentAt: number | null, mailRef = `FQ-00000${rowNumber}`) => pendingRow({ rowNumber, status: 'SENT', sentAt, mailRef });
    expect(CLAIM_SETTLED_AFTER_MS).toBe(7 * MIN);
    const rows = [sent(2, T0 + 6 * MIN), sent(3, T0 + 30 * MIN), sent(4, T0 + 7 * MIN), sent(5, T0 + 8 * MIN, ''), sent(6, null), pendingRow({ rowNumber: 7, status: 'SENDING', sentAt: T0 + 9 * MIN, mailRef: 'FQ-000007' })];
    expect(laterReply(rows, T0)?.rowNumber).toBe(4);
    expect(laterReply([sent(2, T0 + 6 * MIN)], T0)).toBeNull();
  });

  describe('which row is the later reply', () => {
    const sent = (rowNumber: number, sentAt: number, mailRef = `FQ-00000${rowNumber}`) => pendingRow({ rowNumber, status: 'SENT', sentAt, mailRef });
    it.each<[string, QueueRow[], number]>([
      ['a row in SENDING with an earlier sent_at is passed over for the SENT one', [pendingRow({ rowNumber: 2, status: 'SENDING', sentAt: T0 + 7 * MIN, mailRef: 'FQ-000002' }), sent(3, T0 + 8 * MIN)], 3],
      ['a SENT row without a reference, however early, is passed over', [sent(2, T0 + 7 * MIN, ''), sent(3, T0 + 8 * MIN)], 3],
      ['the earliest one is chosen when it stands above a later one', [sent(2, T0 + 7 * MIN), sent(3, T0 + 30 * MIN)], 2],
      ['of two sent at the same moment, the upper row', [sent(2, T0 + 8 * MIN), sent(3, T0 + 8 * MIN)], 2],
    ])('%s', (_name, rows, rowNumber) => {
      expect(laterReply(rows, T0)).toEqual(rows.find((row) => row.rowNumber === rowNumber));
    });
  });
});

// The Sent check's rules case by case: which rows it is for, what the row and the Log say about the claim, when a parked row's
// next look is due, and the edges of which copies count and when a resend is allowed.
const STALE = 'STALE_SENDING: sending started 16 min ago and its outcome was never recorded';
const noted = (at: number) => `SENT_CHECK: ${NO_COPY_YET} ${iso(at)}; looking again after ${iso(at + SECOND_LOOK_AFTER_MS)}`;

type CandidateFields = Pick<QueueRow, 'status' | 'sentAt' | 'mailRef' | 'claimedAt' | 'error'>;
const sendingRow: CandidateFields = { status: 'SENDING', sentAt: null, mailRef: 'FQ-AAAAAA', claimedAt: T0, error: '' };
const parkedRow: CandidateFields = { status: 'NEEDS_REVIEW', sentAt: null, mailRef: 'FQ-AAAAAA', claimedAt: null, error: STALE };

describe('rules', () => {
  describe('the rows the Sent check is for', () => {
    it.each<[string, CandidateFields, boolean]>([
      ['a SENDING row with its claim and reference', sendingRow, true],
      ['a SENDING row whose sent_at is filled', { ...sendingRow, sentAt: T0 + 1000 }, false],
      ['a SENDING row without a mail_ref', { ...sendingRow, mailRef: '' }, false],
      ['a SENDING row without claimed_at', { ...sendingRow, claimedAt: null }, false],
      ['a READY row with a claim time and reference', { ...sendingRow, status: 'READY' }, false],
      ['a NEEDS_REVIEW row parked as STALE_SENDING', parkedRow, true],
      ['a NEEDS_REVIEW row whose first look found no copy yet', { ...parkedRow, error: noted(T0) }, true],
      ['a NEEDS_REVIEW row parked as STALE_SENDING but with sent_at filled', { ...parkedRow, sentAt: T0 }, false],
      ['a NEEDS_REVIEW row parked as STALE_SENDING without a mail_ref', { ...parkedRow, mailRef: '' }, false],
      ['a NEEDS_REVIEW row a person parked', { ...parkedRow, error: 'teacher to check' }, false],
      ['a SENT row whose error still reads STALE_SENDING', { ...parkedRow, status: 'SENT' }, false],
      ['a FAILED row whose error reads MAIL_UNKNOWN', { ...parkedRow, status: 'FAILED', error: 'MAIL_UNKNOWN: x' }, false],
    ])('%s: %s', (_name, row, candidate) => {
      expect(isSentCheckCandidate(row)).toBe(candidate);
    });
  });

  describe('what the row and the Log say about the claim', () => {
    const claim = (at: number, from = 'READY') => [line(at - 1000, 'GENERATING', from), line(at, from, 'SENDING', 'claimed for sending')];

    it('a SENDING row\'s claim time is its own cell, whatever older claim the Log shows', () => {
      expect(sentCheckState({ status: 'SENDING', claimedAt: T0, error: '' }, claim(T0 - 5 * MIN, 'APPROVED'))).toEqual({ claimedAt: T0, claimedFrom: 'APPROVED', firstEmptyLookAt: null, resends: 0, sender: '' });
    });

    it('a SENDING row whose claim line is missing from the Log would be resent from READY', () => {
      expect(sentCheckState({ status: 'SENDING', claimedAt: T0, error: '' }, [])).toEqual({ claimedAt: T0, claimedFrom: 'READY', firstEmptyLookAt: null, resends: 0, sender: '' });
    });

    it('a parked row with no claim in the Log has nothing to check', () => {
      expect(sentCheckState({ status: 'NEEDS_REVIEW', claimedAt: null, error: STALE }, [])).toBeNull();
    });

    it('a parked row\'s claim time is the Log\'s', () => {
      expect(sentCheckState({ status: 'NEEDS_REVIEW', claimedAt: null, error: STALE }, claim(T0))).toMatchObject({ claimedAt: T0, claimedFrom: 'READY' });
    });

    it('a first look noted at the very claim time counts as a look', () => {
      expect(sentCheckState({ status: 'SENDING', claimedAt: T0, error: noted(T0) }, claim(T0))?.firstEmptyLookAt).toBe(T0);
    });

    it('only the system\'s resend lines count as resends, not a person\'s line quoting one', () => {
      const quoted = [...claim(T0), line(T0 + MIN, 'SENDING', 'SENDING', `copied: ${RESEND_AFTER_CHECK}`, 'staff@example.com')];
      expect(sentCheckState({ status: 'SENDING', claimedAt: T0, error: '' }, quoted)?.resends).toBe(0);
    });
  });

  describe('when a parked row\'s next look is due, as far as the row says', () => {
    const settings = { staleSendingMinutes: 15 };
    it.each<[string, string, number | null, number, number | null]>([
      ['a noted first look: 45 minutes after it', noted(T0), null, T0 + MIN, T0 + SECOND_LOOK_AFTER_MS],
      ['not looked at yet: STALE_SENDING_MINUTES after it was parked', STALE, T0, T0 + MIN, T0 + 15 * MIN],
      ['a look due now was this run\'s to make', STALE, T0, T0 + 15 * MIN, null],
      ['a look overdue was this run\'s to make', STALE, T0, T0 + 20 * MIN, null],
      ['a second look due now', noted(T0), null, T0 + SECOND_LOOK_AFTER_MS, null],
      ['no look noted and no updated_at: the row does not say', STALE, null, T0, null],
    ])('%s', (_name, error, updatedAt, now, at) => {
      expect(parkedLookAt({ error, updatedAt }, now, settings)).toBe(at);
    });
  });

  describe('edges of which copies count and when a resend is allowed', () => {
    const copy = (over: Partial<SentCopy> = {}): SentCopy => ({ id: 'm1', to: 'ann@example.org', subject: 'Your reply', body: 'Reference: FQ-AAAAAA', sentAt: T0, ...over });

    it('a recipient cell with spaces around the address still matches its copy', () => {
      expect(countsAsCopy(copy(), 'FQ-AAAAAA', '  Ann@Example.org ')).toBe(true);
    });

    it('a row with no recipient never matches, not even a To header with an empty entry', () => {
      expect(countsAsCopy(copy({ to: 'bob@example.org, ' }), 'FQ-AAAAAA', '')).toBe(false);
    });

    it('a claim from any status but READY or APPROVED is never resent by itself', () => {
      const state = { claimedAt: T0, claimedFrom: 'AWAITING_APPROVAL', firstEmptyLookAt: T0 + 15 * MIN, resends: 0, sender: '' };
      expect(decideLook({ look: 2, copies: [], state, resendAllowed: true, laterReplyInSent: true, now: T0 + 61 * MIN, iso })).toEqual({ kind: 'review', detail: 'no copy in Sent: safe to resend — set PENDING' });
    });
  });

  describe('whose Sent folder can settle a claim', () => {
    it.each<[string, string, string, boolean]>([
      ['the claim and the search run as the same account', 'owner@school.example', 'owner@school.example', false],
      ['the same account written in another case', 'Owner@School.example', 'owner@school.example', false],
      ['a staff member\'s Process now claimed it; the trigger searches the owner\'s mailbox', 'ana@school.example', 'owner@school.example', true],
      ['the trigger claimed it; a staff member\'s Process now searches theirs', 'owner@school.example', 'ana@school.example', true],
      ['a claim line that names no account, searched from a known one', '', 'owner@school.example', true],
      ['neither side known (no account to tell apart)', '', '', false],
    ])('%s → a person: %s', (_name, sender, searching, toPerson) => {
      const decision = otherMailboxReview({ sender }, searching, 'FQ-AAAAAA');
      expect(decision !== null).toBe(toPerson);
      if (decision !== null) {
        expect(decision.kind).toBe('review');
        expect(decision.kind === 'review' && decision.detail).toContain('FQ-AAAAAA');
        expect(decision.kind === 'review' && decision.detail).not.toContain('safe to resend');
      }
    });

    it('names the account to look in', () => {
      const decision = otherMailboxReview({ sender: 'ana@school.example' }, 'owner@school.example', 'FQ-AAAAAA');
      expect(decision).toEqual({
        kind: 'review',
        detail:
          "the claim was made by a run as ana@school.example, so the mail, if it went, is in ana@school.example's Sent folder; the check can search only owner@school.example's. " +
          'Look for FQ-AAAAAA there: set SENT if it is there, PENDING for a new reply if it is not',
      });
    });

    it('a claim line that names no account: the person is told the Log does not name it, in a sentence', () => {
      expect(otherMailboxReview({ sender: '' }, 'owner@school.example', 'FQ-AAAAAA')).toEqual({
        kind: 'review',
        detail:
          "the claim was made by a run as an account the Log does not name, so the mail, if it went, is in that account's Sent folder; the check can search only owner@school.example's. " +
          'Look for FQ-AAAAAA there: set SENT if it is there, PENDING for a new reply if it is not',
      });
    });

    it('a run that does not know its own account names the Sent folder of the account this run runs as', () => {
      expect(otherMailboxReview({ sender: 'ana@school.example' }, '', 'FQ-AAAAAA')).toEqual({
        kind: 'review',
        detail:
          "the claim was made by a run as ana@school.example, so the mail, if it went, is in ana@school.example's Sent folder; the check can search only the Sent folder of the account this run runs as. " +
          'Look for FQ-AAAAAA there: set SENT if it is there, PENDING for a new reply if it is not',
      });
    });

    it('the claim line\'s sender is the account of the state', () => {
      const history = [line(T0, 'READY', 'SENDING', 'claimed for sending [ledger: mail_ref=FQ-AAAAAA claimed_at=2026-01-05T09:00:00.000Z sender=ana@school.example]')];
      expect(sentCheckState({ status: 'SENDING', claimedAt: T0, error: '' }, history)?.sender).toBe('ana@school.example');
    });
  });
});

// RECONCILE_SENT_MAIL for rows left in SENDING by a run that died: what one processQueue run does with each look's finding,
// what it counts, when it looks next, and what a failing search leaves behind.
const CLAIMED_AT = WORLD_T0 - 16 * MIN;

const sending = (patch: Partial<QueueRow> = {}): QueueRow =>
  pendingRow({ eventId: 'evt-1', responseToken: 'tok-1', status: 'SENDING', result: 'Dear Mina, well done.', mailRef: 'FQ-AAAAAA', attempts: 1, claimedAt: CLAIMED_AT, updatedAt: CLAIMED_AT, ...patch });
const sendingCopy = (id: string, over: Partial<SentCopy> = {}): SentCopy => ({
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
const sendingFirstLookNote = `SENT_CHECK: ${NO_COPY_YET} ${new Date(WORLD_T0).toISOString()}; looking again after ${new Date(WORLD_T0 + SECOND_LOOK_AFTER_MS).toISOString()}`;

describe('sending', () => {
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
      w.sent.copies = [sendingCopy('m1')];
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
      w.sent.copies = [sendingCopy('m1')];
      const logged = w.audit.entries.length;
      const summary = run(w);
      expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: CLAIMED_AT + 2000, claimedAt: null, error: '' });
      expect(w.audit.entries.slice(logged)).toEqual([expect.objectContaining({ from: 'SENDING', to: 'SENT', by: 'system', detail: expect.stringMatching(/^confirmed in Sent \(message id m1\) \[ledger: mail_ref=FQ-AAAAAA sent_at=/) })]);
      expect(summary).toMatchObject({ sent: 1, needsReview: 0 });
      expect(w.mailer.outbox).toHaveLength(0);
    });

    it('two copies → NEEDS_REVIEW "mailed 2 times" with the ids and no claim, counted as needing review', () => {
      const w = setUp([sending()]);
      w.sent.copies = [sendingCopy('m1'), sendingCopy('m2')];
      const summary = run(w);
      expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', claimedAt: null, error: 'SENT_CHECK: mailed 2 times (message ids m1, m2); a person must look' });
      expect(summary).toMatchObject({ sent: 0, needsReview: 1 });
    });

    it('a copy to another recipient or without the reference does not count', () => {
      const w = setUp([sending()]);
      w.sent.copies = [sendingCopy('m1', { to: 'someone@example.com' }), sendingCopy('m2', { subject: 'FQ-AAAAAA?', body: '' , to: 'x@example.com' })];
      run(w);
      expect(w.queue.row(2)).toMatchObject({ status: 'SENDING', error: sendingFirstLookNote });
    });

    it('none at the first look → stays SENDING with the note in its error cell, next due 45 minutes later; none at the second → a person', () => {
      const w = setUp([sending(), laterSent()]);
      w.sent.copies = [laterCopy()];
      const first = run(w);
      expect(w.queue.row(2)).toMatchObject({ status: 'SENDING', claimedAt: CLAIMED_AT, error: sendingFirstLookNote });
      expect(first.nextDueAt).toBe(WORLD_T0 + SECOND_LOOK_AFTER_MS);
      w.clock.advance(SECOND_LOOK_AFTER_MS - 1);
      expect(run(w).nextDueAt).toBe(WORLD_T0 + SECOND_LOOK_AFTER_MS);
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
      const w = setUp([sending({ claimedAt: WORLD_T0 - 14 * MIN })], ON, claim('evt-1', WORLD_T0 - 14 * MIN));
      const summary = run(w);
      expect(w.sent.queries).toEqual([]);
      expect(w.audit.lookups).toEqual([]); // no row is due: the Log is not read for the check
      expect(summary.nextDueAt).toBe(WORLD_T0 + MIN);
      expect(w.queue.row(2)).toMatchObject({ status: 'SENDING', error: '' });
    });

    it('a SENDING row without a mail_ref is not searched for: the stale sweep parks it as before', () => {
      const w = setUp([sending({ mailRef: '' })]);
      w.sent.copies = [sendingCopy('m1')];
      run(w);
      expect(w.sent.queries).toEqual([]);
      expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: expect.stringMatching(/^STALE_SENDING: /) });
    });

    it('with RECONCILE_SENT_MAIL off, a stale SENDING row is swept to NEEDS_REVIEW, never searched for', () => {
      const w = setUp([sending()], { STALE_SENDING_MINUTES: '15' });
      w.sent.copies = [sendingCopy('m1')];
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
      w.sent.copies = [sendingCopy('m1'), sendingCopy('m2', { body: 'Reference: FQ-BBBBBB', subject: 'Our reply' })];
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
      w.sent.copies = [sendingCopy('m1')];
      const summary = run(w);
      expect(w.queue.row(2).status).toBe('SENT');
      expect(summary).toMatchObject({ sent: 0, needsReview: 0 });
    });

    it('found mailed twice: it stays NEEDS_REVIEW with the finding, not counted as a new review', () => {
      const w = setUp([parked()], ON, parkedLog);
      w.sent.copies = [sendingCopy('m1'), sendingCopy('m2')];
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
      w.sent.copies = [sendingCopy('m2', { body: 'Reference: FQ-BBBBBB', subject: 'Our reply' })];
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
      w.sent.copies = [sendingCopy('m1')];
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
      w.sent.copies = [sendingCopy('m1')];
      const summary = run(w);
      expect(w.sent.queries).toEqual([]);
      expect(w.queue.rows.map((row) => row.status)).toEqual(['NEEDS_REVIEW', 'SENT']);
      expect(summary).toMatchObject({ stoppedBecause: 'done', sent: 1 });
    });

    it('a GENERATING row\'s next due time stays its stale deadline (STALE_GENERATING_MINUTES) with the check on', () => {
      const w = setUp([pendingRow({ status: 'GENERATING', claimedAt: WORLD_T0 - MIN })], { ...ON, STALE_GENERATING_MINUTES: '10' }, []);
      expect(run(w).nextDueAt).toBe(WORLD_T0 + 9 * MIN);
    });

    it('a SENDING row\'s first look is due STALE_SENDING_MINUTES after its claim, whenever the row was last updated', () => {
      const w = setUp([sending({ claimedAt: WORLD_T0 - 10 * MIN, updatedAt: WORLD_T0 - MIN })], ON, claim('evt-1', WORLD_T0 - 10 * MIN));
      expect(run(w).nextDueAt).toBe(WORLD_T0 + 5 * MIN);
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
});

// RECONCILE_SENT_MAIL for rows already parked in NEEDS_REVIEW with an unknown mail outcome (the stale sweep with the
// check off, a send error that may have mailed, a claim the Log shows unsettled): the same two looks as a SENDING row,
// and a NEEDS_REVIEW row with any other reason is never touched.
const PARKED_CLAIMED_AT = WORLD_T0 - 60 * MIN;
const PARKED_STALE = 'STALE_SENDING: sending started 16 min ago and its outcome was never recorded: the mail may or may not have reached the person.';

const parkedCopy = (id: string, over: Partial<SentCopy> = {}): SentCopy => ({
  id, to: 'mina.okafor@example.com', subject: 'Our reply (FQ-AAAAAA)', body: 'Dear Mina.\nReference: FQ-AAAAAA', sentAt: PARKED_CLAIMED_AT + 2000, ...over,
});

/** A reply sent `at` (well after the claims here) and its copy in Sent: the proof "no copy" needs (sent-check.ts laterReply). */
const parkedLaterSent = (at = PARKED_CLAIMED_AT + 8 * MIN): QueueRow =>
  pendingRow({ eventId: 'evt-later', responseToken: 'tok-later', status: 'SENT', recipient: 'later@example.com', mailRef: 'FQ-LLLLLL', sentAt: at, result: 'Dear Lee' });
const parkedLaterCopy = (at = PARKED_CLAIMED_AT + 8 * MIN): SentCopy => ({ id: 'm-later', to: 'later@example.com', subject: 'Our reply', body: 'Reference: FQ-LLLLLL', sentAt: at });

const parked = (patch: Partial<QueueRow> = {}): QueueRow =>
  pendingRow({ eventId: 'evt-1', responseToken: 'tok-1', status: 'NEEDS_REVIEW', result: 'Dear Mina, well done.', mailRef: 'FQ-AAAAAA', attempts: 1, error: PARKED_STALE, updatedAt: PARKED_CLAIMED_AT + 16 * MIN, ...patch });

const parkedLine = (at: number, from: string, to: string, detail = '', by = 'system', eventId = 'evt-1'): LogEntry => ({ at, eventId, from, to, by, detail });
/** The Log of a row claimed from `from`, then parked by the stale sweep (or `parkedWith`). */
const claimAndPark = (from = 'READY', parkedWith = PARKED_STALE, eventId = 'evt-1'): LogEntry[] => [
  parkedLine(PARKED_CLAIMED_AT - 1000, 'GENERATING', from, 'reply written', 'system', eventId),
  parkedLine(PARKED_CLAIMED_AT, from, 'SENDING', 'claimed for sending', 'system', eventId),
  parkedLine(PARKED_CLAIMED_AT + 16 * MIN, 'SENDING', 'NEEDS_REVIEW', parkedWith, 'system', eventId),
];

function parkedSetUp(rows: QueueRow[], history: LogEntry[] = claimAndPark(), props: Record<string, string> = ON): World & { sent: MemorySentMailbox } {
  const w = world(rows, props) as World & { sent: MemorySentMailbox };
  w.sent = new MemorySentMailbox();
  w.deps.sentMail = w.sent;
  if (history.length > 0) w.audit.append(history);
  return w;
}
const newLines = (w: World, before: number) => w.audit.entries.slice(before);

describe('parked', () => {
  describe('sent check on rows parked in NEEDS_REVIEW with an unknown outcome', () => {
    it('exactly one copy in Sent → SENT, sent_at from the message, a system NEEDS_REVIEW → SENT line; nothing mailed', () => {
      const w = parkedSetUp([parked()]);
      w.sent.copies = [parkedCopy('m1')];
      const logged = w.audit.entries.length;
      run(w);
      expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: PARKED_CLAIMED_AT + 2000, error: '' });
      expect(newLines(w, logged)).toEqual([expect.objectContaining({ from: 'NEEDS_REVIEW', to: 'SENT', by: 'system', detail: expect.stringMatching(/^confirmed in Sent \(message id m1\) \[ledger: mail_ref=\S+ sent_at=/) })]);
      expect(w.sent.queries).toEqual([`in:sent "FQ-AAAAAA" after:${(PARKED_CLAIMED_AT - MIN) / 1000}`]);
      expect(w.mailer.outbox).toHaveLength(0);
    });

    it.each([
      ['STALE_SENDING (the sweep with the check off)', PARKED_STALE],
      ['MAIL_UNKNOWN (a send error that may have mailed)', 'MAIL_UNKNOWN: Service error — the mail may or may not have been sent; it is not resent automatically'],
      ['ALREADY_CLAIMED (a claim the Log shows unsettled)', 'ALREADY_CLAIMED: the Log shows this submission was claimed for sending at … and the mail may have gone'],
    ])('a row parked with %s is settled the same way', (_name, error) => {
      const w = parkedSetUp([parked({ error })], claimAndPark('READY', error));
      w.sent.copies = [parkedCopy('m1')];
      run(w);
      expect(w.queue.row(2).status).toBe('SENT');
    });

    it('several copies → stays NEEDS_REVIEW with "mailed N times" and the ids, logged', () => {
      const w = parkedSetUp([parked()]);
      w.sent.copies = [parkedCopy('m1'), parkedCopy('m2')];
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
      const w = parkedSetUp([parked(), parkedLaterSent()]);
      w.sent.copies = [parkedLaterCopy()];
      run(w);
      expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW' });
      expect(w.queue.row(2).error).toBe(`SENT_CHECK: ${NO_COPY_YET} ${new Date(WORLD_T0).toISOString()}; looking again after ${new Date(WORLD_T0 + SECOND_LOOK_AFTER_MS).toISOString()}`);
      const summary = run(w);
      expect(w.sent.queries).toHaveLength(1); // the second look waits 45 minutes
      expect(summary.nextDueAt).toBe(WORLD_T0 + SECOND_LOOK_AFTER_MS);
      w.clock.advance(SECOND_LOOK_AFTER_MS);
      run(w);
      expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: 'SENT_CHECK: no copy in Sent: safe to resend — set PENDING' });
      w.clock.advance(2 * SECOND_LOOK_AFTER_MS);
      run(w);
      expect(w.sent.queries).toHaveLength(3); // the second look also found the later reply
      expect(w.mailer.outbox).toHaveLength(0);
    });

    it('the copy that appears by the second look (index lag) still settles the row SENT', () => {
      const w = parkedSetUp([parked()]);
      run(w);
      w.sent.copies = [parkedCopy('m1')];
      w.clock.advance(SECOND_LOOK_AFTER_MS);
      run(w);
      expect(w.queue.row(2).status).toBe('SENT');
    });

    it('with RECONCILE_RESEND: none at both looks → back to the state it was claimed from and mailed once, in the same run', () => {
      const w = parkedSetUp([parked(), parkedLaterSent()], claimAndPark('APPROVED'), { ...ON, RECONCILE_RESEND: 'true' });
      w.sent.copies = [parkedLaterCopy()];
      run(w);
      w.clock.advance(SECOND_LOOK_AFTER_MS);
      run(w);
      expect(w.audit.entries.map((e) => `${e.from}>${e.to}`)).toContain('NEEDS_REVIEW>APPROVED');
      expect(w.audit.entries.find((e) => e.from === 'NEEDS_REVIEW' && e.to === 'APPROVED')?.detail).toBe(RESEND_AFTER_CHECK);
      expect(w.queue.row(2).status).toBe('SENT');
      expect(w.mailer.outbox).toHaveLength(1);
    });

    it('with RECONCILE_RESEND, never a second resend: a resent mail whose outcome is unknown again ends with a person', () => {
      const resentAt = PARKED_CLAIMED_AT + 70 * MIN;
      const w = parkedSetUp([parked(), parkedLaterSent(resentAt + 10 * MIN)], [], { ...ON, RECONCILE_RESEND: 'true' });
      w.sent.copies = [parkedLaterCopy(resentAt + 10 * MIN)];
      w.audit.append([
        ...claimAndPark(),
        parkedLine(resentAt, 'NEEDS_REVIEW', 'READY', RESEND_AFTER_CHECK),
        parkedLine(resentAt + 1000, 'READY', 'SENDING', 'claimed for sending'),
        parkedLine(resentAt + 2000, 'SENDING', 'NEEDS_REVIEW', 'MAIL_UNKNOWN: Service error — the mail may or may not have been sent'),
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
      const w = parkedSetUp([parked({ error, updatedAt: WORLD_T0 })], [parkedLine(WORLD_T0 - 1000, 'READY', 'SENDING', 'claimed for sending'), parkedLine(WORLD_T0, 'SENDING', 'NEEDS_REVIEW', error)]);
      const summary = run(w);
      expect(w.sent.queries).toEqual([]);
      expect(summary.nextDueAt).toBe(WORLD_T0 + 15 * MIN);
      w.clock.advance(15 * MIN);
      w.sent.copies = [parkedCopy('m1', { sentAt: WORLD_T0 })];
      run(w);
      expect(w.queue.row(2).status).toBe('SENT');
    });

    it('a failing search changes nothing and raises SENT_CHECK_FAILED', () => {
      const w = parkedSetUp([parked()]);
      w.sent.failWith = 'API call to gmail.users.messages.list failed with error: Backend Error';
      run(w);
      expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: PARKED_STALE });
      expect(w.incidents.codes()).toContain('SENT_CHECK_FAILED');
    });

    // Parked this minute: with the check on, its first look would be due in STALE_SENDING_MINUTES.
    it('with RECONCILE_SENT_MAIL off, a parked row is left to a person, and no run is due for it', () => {
      const w = parkedSetUp([parked({ updatedAt: WORLD_T0 })], claimAndPark(), { STALE_SENDING_MINUTES: '15' });
      w.sent.copies = [parkedCopy('m1')];
      const summary = run(w);
      expect(w.sent.queries).toEqual([]);
      expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: PARKED_STALE });
      expect(summary.nextDueAt).toBeNull();
    });

    it('with RECONCILE_SENT_MAIL on but no Sent folder wired, a parked row is left to a person, and no run is due for it', () => {
      const w = parkedSetUp([parked({ updatedAt: WORLD_T0 })]);
      w.deps.sentMail = undefined;
      const summary = run(w);
      expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: PARKED_STALE });
      expect(summary.nextDueAt).toBeNull();
    });
  });

  describe('a NEEDS_REVIEW row with any other reason, or whose Log says the outcome, is never touched', () => {
    it.each<[string, Partial<QueueRow>, LogEntry[]]>([
      ['ALREADY_SENT (sent_at is filled)', { error: 'ALREADY_SENT: sent_at is filled', sentAt: PARKED_CLAIMED_AT + 2000 }, claimAndPark()],
      ['parked by a multi-cell edit', { error: '' }, [...claimAndPark(), parkedLine(WORLD_T0 - MIN, '(unknown)', 'NEEDS_REVIEW', 'multi-cell edit', 'staff@example.com')]],
      ['a previous "mailed N times"', { error: 'SENT_CHECK: mailed 2 times (message ids m1, m2); a person must look' }, claimAndPark()],
      ['a previous "safe to resend"', { error: 'SENT_CHECK: no copy in Sent: safe to resend — set PENDING' }, claimAndPark()],
      ['a reason a person wrote over the code', { error: 'checking with the teacher — STALE_SENDING' }, claimAndPark()],
      ['no mail_ref to search for', { mailRef: '' }, claimAndPark()],
      ['a Log with no send claim', {}, [parkedLine(PARKED_CLAIMED_AT + 16 * MIN, 'SENDING', 'NEEDS_REVIEW', PARKED_STALE)]],
      ['a claim the Log says was mailed (SENDING → SENT), the row pasted back', {}, [...claimAndPark().slice(0, 2), parkedLine(PARKED_CLAIMED_AT + 2000, 'SENDING', 'SENT', 'mailed'), parkedLine(WORLD_T0 - MIN, '(unknown)', 'NEEDS_REVIEW', 'multi-cell edit', 'staff@example.com')]],
      ['a claim a person settled by asking for a new reply (PENDING)', {}, [...claimAndPark(), parkedLine(WORLD_T0 - 2 * MIN, 'NEEDS_REVIEW', 'PENDING', 'retry', 'staff@example.com'), parkedLine(WORLD_T0 - MIN, '(unknown)', 'NEEDS_REVIEW', 'multi-cell edit', 'staff@example.com')]],
    ])('%s', (_name, patch, history) => {
      const row = parked(patch);
      const w = parkedSetUp([row], history);
      w.sent.copies = [parkedCopy('m1')];
      const logged = w.audit.entries.length;
      run(w);
      expect(w.queue.row(2)).toMatchObject({ status: 'NEEDS_REVIEW', error: row.error, sentAt: row.sentAt });
      expect(newLines(w, logged)).toEqual([]);
      expect(w.mailer.outbox).toHaveLength(0);
    });
  });
});
