// The one "not before" rule: back-off for PENDING, the send window for rows about to be mailed, nothing for the rest.
import { describe, expect, it } from 'vitest';
import { parseSendHours, UTC_CLOCK } from '../../../../src/core/domain/mail/send-window';
import { notBefore, type RowWaits } from '../../../../src/core/domain/queue/not-before';
import { STATUSES } from '../../../../src/core/domain/queue/statuses';

const NOW = Date.parse('2026-12-02T03:00:00Z');
const MORNING = Date.parse('2026-12-02T08:00:00Z');
const closed: RowWaits = { window: { hours: parseSendHours('F1', '08:00-20:00'), clock: UTC_CLOCK } };
const open: RowWaits = { window: { hours: parseSendHours('F1', '02:00-20:00'), clock: UTC_CLOCK } };

describe('notBefore', () => {
  it.each([
    ['PENDING, never failed', 'PENDING', null, {}, null],
    ['PENDING in back-off', 'PENDING', NOW + 60_000, {}, { at: NOW + 60_000, reason: 'back-off' }],
    ['PENDING whose back-off has passed', 'PENDING', NOW, {}, null],
    ['PENDING at night: generation never waits for the window', 'PENDING', null, closed, null],
    ['READY outside its window', 'READY', null, closed, { at: MORNING, reason: 'send window' }],
    ['APPROVED outside its window', 'APPROVED', null, closed, { at: MORNING, reason: 'send window' }],
    ['SENDING (claimed) after its window closed', 'SENDING', null, closed, { at: MORNING, reason: 'send window' }],
    ['READY inside its window', 'READY', null, open, null],
    ['READY of a form without a window', 'READY', null, { window: { hours: null, clock: UTC_CLOCK } }, null],
    ['READY when no window was asked for', 'READY', null, {}, null],
    ['READY with a stale next_attempt_at: only PENDING backs off', 'READY', NOW + 60_000, {}, null],
  ] as const)('%s', (_name, status, nextAttemptAt, waits, expected) => {
    expect(notBefore({ status, nextAttemptAt }, NOW, waits)).toEqual(expected);
  });

  it('no other state waits on time, window or not', () => {
    const waiting = STATUSES.filter((status) => notBefore({ status, nextAttemptAt: NOW + 1 }, NOW, closed) !== null);
    expect(waiting).toEqual(['PENDING', 'READY', 'APPROVED', 'SENDING']);
  });
});
