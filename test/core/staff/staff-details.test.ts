// Small staff-facing rules that each had no case of their own: empty results outside approval, and the health dialog's totals.
import { describe, expect, it } from 'vitest';
import { computeHealth } from '../../../src/core/triage/health';
import { healthDialogHtml } from '../../../src/core/staff/health-view';
import { decideStaffMove, parseStatus } from '../../../src/core/staff/staff-moves';
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
  const base = computeHealth([], T0);
  it('one PENDING and one mistyped row: both listed, the queue not called empty', () => {
    const html = healthDialogHtml({ ...base, counts: { ...base.counts, PENDING: 1 }, unknownStatus: 1 }, [], T0, false);
    expect(html).toContain('<tr><td style="padding:2px 8px">not a status</td><td style="padding:2px 8px;text-align:right">1</td></tr>');
    expect(html).not.toContain('The Queue is empty.');
  });

  it('no mistyped rows: no "not a status" line', () => {
    expect(healthDialogHtml({ ...base, counts: { ...base.counts, PENDING: 1 } }, [], T0, false)).not.toContain('not a status');
  });
});
