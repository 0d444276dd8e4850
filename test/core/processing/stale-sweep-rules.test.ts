// The stale-claim rule by itself: the deadline of each claim, its exact boundary, and the words of each finding.
import { describe, expect, it } from 'vitest';
import { findStaleRows, isStale, staleDeadline } from '../../../src/core/processing/stale-sweep';
import { MINUTE_MS } from '../../../src/core/domain/time';
import { pendingRow, T0 } from '../memory-ports';

const limits = { staleGeneratingMinutes: 10, staleSendingMinutes: 20 };

describe('staleDeadline and isStale', () => {
  it.each<[string, number | null, number | null]>([
    ['GENERATING', T0, T0 + 10 * MINUTE_MS],
    ['SENDING', T0, T0 + 20 * MINUTE_MS],
    ['SENDING', null, -Infinity],
    ['READY', T0, null],
    ['PENDING', null, null],
  ])('%s claimed at %s: deadline %s', (status, claimedAt, deadline) => {
    expect(staleDeadline({ status, claimedAt }, limits)).toBe(deadline);
  });

  it('a claim is stale exactly at its deadline, not a millisecond before', () => {
    const row = { status: 'GENERATING', claimedAt: T0 };
    expect(isStale(row, T0 + 10 * MINUTE_MS - 1, limits)).toBe(false);
    expect(isStale(row, T0 + 10 * MINUTE_MS, limits)).toBe(true);
    expect(isStale({ status: 'READY', claimedAt: T0 }, T0 + 999 * MINUTE_MS, limits)).toBe(false);
  });
});

describe('findStaleRows, in words', () => {
  it('a stale generation goes back to PENDING, saying how long ago it was claimed', () => {
    const row = pendingRow({ status: 'GENERATING', claimedAt: T0 - 12 * MINUTE_MS - 20_000 });
    expect(findStaleRows([row], T0, limits)).toEqual([{ row, to: 'PENDING', reason: 'generation claimed 12 min ago never finished; it will be tried again' }]);
  });

  it('a stale send without a claim time goes to NEEDS_REVIEW, "at an unknown time"', () => {
    const row = pendingRow({ status: 'SENDING', claimedAt: null, mailRef: 'FQ-7K2M9Q' });
    expect(findStaleRows([row], T0, limits)).toEqual([
      {
        row,
        to: 'NEEDS_REVIEW',
        reason:
          'sending started at an unknown time and its outcome was never recorded: the mail may or may not have reached the person. Check, then set SENT (it arrived) or PENDING (write and send a new reply); it is never resent automatically',
      },
    ]);
  });

  it('with the Sent check on, a stale send with a mail_ref is left to it; one without a mail_ref is not', () => {
    const withRef = pendingRow({ status: 'SENDING', claimedAt: T0 - 30 * MINUTE_MS, mailRef: 'FQ-7K2M9Q' });
    const withoutRef = pendingRow({ status: 'SENDING', claimedAt: T0 - 30 * MINUTE_MS, mailRef: '', eventId: 'e2' });
    expect(findStaleRows([withRef, withoutRef], T0, limits, true).map((finding) => finding.row)).toEqual([withoutRef]);
    expect(findStaleRows([withRef], T0, limits, false)[0].reason).toMatch(/^sending started 30 min ago and its outcome/);
  });
});
