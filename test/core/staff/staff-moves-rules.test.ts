// A staff move besides its status: who is named, what is reset, what the Log says, and the refusals' words.
import { describe, expect, it } from 'vitest';
import { decideStaffMove, parseStatus, staffName } from '../../../src/core/staff/staff-moves';
import { repliedRow, STAFF, T0 } from '../fakes/rows';

describe('staffName and parseStatus', () => {
  it('names staff by their address, or as unknown when Sheets does not say', () => {
    expect(staffName(' ana@example.org ')).toBe('ana@example.org');
    expect(staffName('')).toBe('staff (unknown)');
    expect(staffName(undefined as unknown as string)).toBe('staff (unknown)');
  });

  it.each<[unknown, string | null]>([['approved ', 'APPROVED'], ['Sent', 'SENT'], ['', null], [null, null], ['SENTT', null], [7, null]])(
    'parseStatus(%j) is %s', (value, status) => expect(parseStatus(value)).toBe(status));
});

describe('decideStaffMove', () => {
  it('refuses a value that is not a status, quoting it', () => {
    expect(decideStaffMove(repliedRow('FAILED'), 'FAILED', 'done', STAFF)).toEqual({ ok: false, reason: '"done" is not a formqueue status; pick one from the dropdown' });
  });

  it('refuses to approve an empty reply', () => {
    expect(decideStaffMove(repliedRow('AWAITING_APPROVAL', { result: '  ' }), 'AWAITING_APPROVAL', 'APPROVED', STAFF)).toEqual({ ok: false, reason: 'result is empty: there is no reply to approve' });
  });

  it('an approval changes status and time only, and logs who from which state', () => {
    const before = repliedRow('AWAITING_APPROVAL', { error: 'E', attempts: 2 });
    const decision = decideStaffMove(before, 'AWAITING_APPROVAL', 'approved', { user: '', now: T0 });
    expect(decision.ok && decision.row).toEqual({ ...before, status: 'APPROVED', updatedAt: T0 });
    expect(decision.ok && decision.log).toMatchObject({ at: T0, eventId: before.eventId, from: 'AWAITING_APPROVAL', to: 'APPROVED', by: 'staff (unknown)' });
  });

  it('a retry clears attempts, back-off, claim, error and sent_at, and the Log keeps the last error', () => {
    const before = repliedRow('FAILED', { attempts: 5, nextAttemptAt: T0 + 1, claimedAt: T0 - 1, error: 'GEMINI_X: bad', sentAt: null });
    const decision = decideStaffMove(before, 'FAILED', 'PENDING', STAFF);
    expect(decision.ok && decision.row).toEqual({ ...before, status: 'PENDING', attempts: 0, nextAttemptAt: null, claimedAt: null, error: '', sentAt: null, updatedAt: T0 });
    expect(decision.ok && decision.log.detail).toMatch(/; last error was: GEMINI_X: bad$/);
    expect(decision.ok && decision.log.detail).not.toContain('already mailed');
  });

  it('a retry of a row without an error says nothing about one', () => {
    const decision = decideStaffMove(repliedRow('NEEDS_REVIEW', { error: '' }), 'NEEDS_REVIEW', 'PENDING', STAFF);
    expect(decision.ok && decision.log.detail).not.toContain('last error');
  });

  it('marking sent keeps a recorded send time, or records the time of the check, and drops the claim', () => {
    const kept = decideStaffMove(repliedRow('NEEDS_REVIEW', { sentAt: T0 - 5, claimedAt: T0 - 9 }), 'NEEDS_REVIEW', 'SENT', STAFF);
    expect(kept.ok && kept.row).toMatchObject({ status: 'SENT', sentAt: T0 - 5, claimedAt: null });
    const now = decideStaffMove(repliedRow('FAILED', { sentAt: null }), 'FAILED', 'SENT', STAFF);
    expect(now.ok && now.row).toMatchObject({ status: 'SENT', sentAt: T0 });
  });

  it('a skip leaves the row as it was but for status and time', () => {
    const before = repliedRow('READY', { attempts: 3, error: 'x' });
    const decision = decideStaffMove(before, 'READY', 'SKIPPED', STAFF);
    expect(decision.ok && decision.row).toEqual({ ...before, status: 'SKIPPED', updatedAt: T0 });
    expect(decision.ok && decision.log.from).toBe('READY');
  });

  it('no move starts from an empty status', () => {
    expect(decideStaffMove(repliedRow(''), '', 'SKIPPED', STAFF).ok).toBe(false);
  });

  it('a move the table does not allow is refused with the table\'s words', () => {
    const decision = decideStaffMove(repliedRow('SENT'), 'SENT', 'PENDING', STAFF);
    expect(decision.ok).toBe(false);
    expect(!decision.ok && decision.reason).toMatch(/SENT/);
  });
});
