// Decision table for the Sent-folder check: when to look, which copies count, and what 0, 1 or many copies decide.
import { describe, expect, it } from 'vitest';
import { standingSendClaim } from '../../../src/core/domain/mail/mail-guard';
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
} from '../../../src/core/processing/sent-check';
import { findStaleRows } from '../../../src/core/processing/stale-sweep';
import { pendingRow } from '../memory-ports';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const line = (at: number, from: string, to: string, detail = '', by = 'system'): LogEntry => ({ at, eventId: 'e1', from, to, by, detail });
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

  it('the resend move settles the Log\'s claim, so the send step may mail the row once more', () => {
    expect(standingSendClaim(claimLines())).not.toBeNull();
    expect(standingSendClaim([...claimLines(), line(T0 + 61 * MIN, 'SENDING', 'READY', RESEND_AFTER_CHECK)])).toBeNull();
  });
});
