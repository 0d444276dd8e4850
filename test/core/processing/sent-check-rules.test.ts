// The Sent check's rules case by case: which rows it is for, what the row and the Log say about the claim, when a parked row's
// next look is due, and the edges of which copies count and when a resend is allowed.
import { describe, expect, it } from 'vitest';
import type { SentCopy } from '../../../src/core/domain/ports';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { decideLook, isSentCheckCandidate, NO_COPY_YET, otherMailboxReview, parkedLookAt, RESEND_AFTER_CHECK, SECOND_LOOK_AFTER_MS, sentCheckState, countsAsCopy } from '../../../src/core/processing/sent-check';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const line = (at: number, from: string, to: string, detail = '', by = 'system'): LogEntry => ({ at, eventId: 'e1', from, to, by, detail });
const STALE = 'STALE_SENDING: sending started 16 min ago and its outcome was never recorded';
const noted = (at: number) => `SENT_CHECK: ${NO_COPY_YET} ${iso(at)}; looking again after ${iso(at + SECOND_LOOK_AFTER_MS)}`;

type CandidateFields = Pick<QueueRow, 'status' | 'sentAt' | 'mailRef' | 'claimedAt' | 'error'>;
const sendingRow: CandidateFields = { status: 'SENDING', sentAt: null, mailRef: 'FQ-AAAAAA', claimedAt: T0, error: '' };
const parkedRow: CandidateFields = { status: 'NEEDS_REVIEW', sentAt: null, mailRef: 'FQ-AAAAAA', claimedAt: null, error: STALE };

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

  it('the claim line\'s sender is the account of the state', () => {
    const history = [line(T0, 'READY', 'SENDING', 'claimed for sending [ledger: mail_ref=FQ-AAAAAA claimed_at=2026-01-05T09:00:00.000Z sender=ana@school.example]')];
    expect(sentCheckState({ status: 'SENDING', claimedAt: T0, error: '' }, history)?.sender).toBe('ana@school.example');
  });
});
