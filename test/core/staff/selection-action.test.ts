// A menu "… selected" item end to end in core: the rows read fresh, each move decided, the moves applied, the alert's text.
import { describe, expect, it } from 'vitest';
import { runSelectionAction } from '../../../src/core/staff/selection-action';
import { DIRTY_PROPERTY } from '../../../src/core/domain/queue/tick-gate';
import { staffPorts as ports } from '../fakes/staff-ports';
import { STAFF } from '../fakes/rows';

describe('runSelectionAction', () => {
  it('approves the waiting rows of the selection, leaves the others with why, and logs only the moves', () => {
    const p = ports(['AWAITING_APPROVAL', 'SENT']);
    let asked = 0;
    const message = runSelectionAction(p, { action: 'approve', rowNumbers: [2, 3], context: STAFF, approvals: () => (asked++, () => null) });
    expect(p.queue.rows.map((row) => row.status)).toEqual(['APPROVED', 'SENT']);
    expect(p.audit.entries.map((line) => line.eventId)).toEqual(['ev-2']);
    expect(message).toMatch(/Approved: 1 row \(2\)/);
    expect(message).toMatch(/row 3: /);
    expect(message).not.toMatch(/Changed meanwhile/);
    // Config is read only when rows go back to PENDING.
    expect(asked).toBe(0);
    // The next tick must not be skipped as idle: an approved row is to be mailed.
    expect(p.props.values[DIRTY_PROPERTY]).toBe(String(STAFF.now));
  });

  it('Retry asks Config whether the new replies wait for approval, and says so', () => {
    const p = ports(['FAILED']);
    const message = runSelectionAction(p, { action: 'retry', rowNumbers: [2], context: STAFF, approvals: () => () => true });
    expect(p.queue.row(2).status).toBe('PENDING');
    expect(message).toMatch(/wait for approval/);
  });

  it('a row changed between the read and the write is named as left as it is now', () => {
    const p = ports(['AWAITING_APPROVAL']);
    p.queue.beforeWriteRows = (_rows, queue) => queue.edit(2, { status: 'SKIPPED' });
    const message = runSelectionAction(p, { action: 'approve', rowNumbers: [2], context: STAFF, approvals: () => () => null });
    expect(p.queue.row(2).status).toBe('SKIPPED');
    expect(message).toMatch(/Changed meanwhile and left as they are now: row 2\./);
    expect(p.audit.entries).toEqual([]);
  });

  it('of several rows, only those changed between the read and the write are named, each once', () => {
    const p = ports(['AWAITING_APPROVAL', 'AWAITING_APPROVAL', 'AWAITING_APPROVAL']);
    p.queue.beforeWriteRows = (_rows, queue) => {
      queue.edit(2, { status: 'SKIPPED' });
      queue.edit(4, { status: 'SKIPPED' });
    };
    const message = runSelectionAction(p, { action: 'approve', rowNumbers: [2, 3, 4], context: STAFF, approvals: () => () => null });
    expect(p.queue.rows.map((row) => row.status)).toEqual(['SKIPPED', 'APPROVED', 'SKIPPED']);
    expect(message).toMatch(/\nChanged meanwhile and left as they are now: row 2, 4\.$/);
  });

  it('a selection with nothing to move writes nothing and does not wake the queue', () => {
    const p = ports(['SENT']);
    runSelectionAction(p, { action: 'approve', rowNumbers: [2], context: STAFF, approvals: () => () => null });
    expect(p.queue.writes).toEqual([]);
    expect(p.props.calls.set).toBe(0);
  });
});
