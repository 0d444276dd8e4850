// Small staff-facing rules that each had no case of their own: empty results outside approval, the health dialog's totals,
// the ledger facts of a hand-marked send, and the reason a paste writes.
import { beforeEach, describe, expect, it } from 'vitest';
import { computeHealth } from '../../../src/core/triage/health';
import { healthDialogHtml } from '../../../src/core/triage/health-view';
import { decideStaffMove, parseStatus } from '../../../src/core/staff/staff-moves';
import { decideSystemColumnEdit, decideUncheckedResultEdit, decideUncheckedStatusEdit } from '../../../src/core/staff/edit-guard';
import { repliedRow, STAFF, T0 } from '../fakes/rows';

describe('an empty result', () => {
  it('blocks only approval: skipping or retrying a row without a reply stands', () => {
    expect(decideStaffMove(repliedRow('AWAITING_APPROVAL', { result: ' ' }), 'AWAITING_APPROVAL', 'APPROVED', STAFF)).toEqual({ ok: false, reason: 'result is empty: there is no reply to approve' });
    expect(decideStaffMove(repliedRow('FAILED', { result: '' }), 'FAILED', 'SKIPPED', STAFF).ok).toBe(true);
    expect(decideStaffMove(repliedRow('FAILED', { result: '' }), 'FAILED', 'PENDING', STAFF).ok).toBe(true);
  });

  it.each([[null], [undefined]])('parseStatus(%j) is no status', (value) => {
    expect(parseStatus(value)).toBeNull();
  });
});

describe('the health dialog counts every row, mistyped ones too', () => {
  let base: ReturnType<typeof computeHealth>;
  beforeEach(() => {
    base = computeHealth([], T0);
  });
  it('one PENDING and one mistyped row: both listed, the queue not called empty', () => {
    const html = healthDialogHtml({ ...base, counts: { ...base.counts, PENDING: 1 }, unknownStatus: 1 }, [], T0, false);
    expect(html).toContain('<tr><td style="padding:2px 8px">not a status</td><td style="padding:2px 8px;text-align:right">1</td></tr>');
    expect(html).not.toContain('The Queue is empty.');
  });

  it('no mistyped rows: no "not a status" line', () => {
    expect(healthDialogHtml({ ...base, counts: { ...base.counts, PENDING: 1 } }, [], T0, false)).not.toContain('not a status');
  });
});

describe('marking a row sent by hand records the ledger facts', () => {
  it('with the mail_ref the row has, and the send time', () => {
    const decision = decideStaffMove(repliedRow('FAILED', { mailRef: 'FQ-7K2M9Q', sentAt: T0 - 1000 }), 'FAILED', 'SENT', STAFF);
    expect(decision.ok && decision.log.detail).toMatch(/ mail_ref=FQ-7K2M9Q sent_at=2025-06-01T09:59:59\.000Z\]$/);
    const bare = decideStaffMove(repliedRow('FAILED'), 'FAILED', 'SENT', STAFF);
    expect(bare.ok && bare.log.detail).toMatch(/ sent_at=2025-06-01T10:00:00\.000Z\]$/);
    expect(bare.ok && bare.log.detail).not.toContain('mail_ref=');
  });
});

describe('a paste that leaves a row waiting for a person says why in error', () => {
  const reason = (detail: string) => `STAFF_EDIT_UNCHECKED: ${detail}`;
  it('a pasted FAILED over a row with a reason keeps that reason; over a blank one it writes its own', () => {
    expect(decideUncheckedStatusEdit(repliedRow('FAILED', { error: 'GEMINI_BLOCKED: safety' }), 'FAILED', STAFF).row.error).toBe('GEMINI_BLOCKED: safety');
    const blank = decideUncheckedStatusEdit(repliedRow('FAILED', { error: '  ' }), 'FAILED', STAFF);
    expect(blank.row.error).toBe(reason('multi-cell edit to FAILED: not checked, as Sheets gives no previous values'));
  });

  it('a parked row gets the paste as its reason, replacing an older one', () => {
    const parked = decideUncheckedStatusEdit(repliedRow('APPROVED', { error: 'old' }), 'APPROVED', STAFF);
    expect(parked.row.error).toMatch(/^STAFF_EDIT_UNCHECKED: multi-cell edit to "APPROVED" could not be checked/);
    const system = decideSystemColumnEdit('event_id', null, repliedRow('READY', { error: 'old' }), STAFF);
    expect(system.kind === 'park' && system.row.error).toMatch(/^STAFF_EDIT_UNCHECKED: event_id was changed by a paste/);
    expect(decideUncheckedResultEdit(repliedRow('APPROVED', { error: 'old' }), STAFF).row.error).toMatch(/^STAFF_EDIT_UNCHECKED: result changed after approval/);
  });
});
