// The webhook watch's decisions: a form's webhook health, when an outage opens and closes, the hourly recovery windows, and the catch-up window of a late daily check.
import { describe, expect, it } from 'vitest';
import { recoveredNeedsApproval } from '../../../src/core/domain/typeform/reconciled-id';
import { responseWindow } from '../../../src/core/reconcile/typeform-window';
import { OUTAGE_MARGIN_MS, RECOVERY_OVERLAP_MS, RESPONSES_LAG_MS, afterRecovery, planWatch, readWatchRecord, watchDetail, watchedHook, WEBHOOK_WATCH_PROPERTY, type FormWatch } from '../../../src/core/reconcile/webhook-watch';

const HOUR = 3_600_000;
const MIN = 60_000;
const T0 = Date.UTC(2026, 11, 1, 8, 0, 0);
const APP = 'https://script.google.com/macros/s/ABC/exec';
const hooks = (...items: object[]) => JSON.stringify({ items });
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);
const form = (health: FormWatch['health']): FormWatch[] => [{ formId: 'F1', health }];

describe('watchedHook', () => {
  it.each([
    ['ours, enabled', hooks({ tag: 'a', url: `${APP}?token=x`, enabled: true }), 'enabled'],
    ['ours, disabled', hooks({ tag: 'a', url: `${APP}?token=x`, enabled: false }), 'disabled'],
    ['ours disabled beside another enabled one elsewhere', hooks({ tag: 'a', url: `${APP}?token=x`, enabled: false }, { tag: 'b', url: 'https://zapier.test', enabled: true }), 'disabled'],
    ['only one pointing at another URL', hooks({ tag: 'a', url: 'https://script.google.com/macros/s/OTHER/exec?token=x', enabled: true }), 'elsewhere'],
    ['none', hooks(), 'none'],
    ['not JSON', '<html>', 'unknown'],
  ])('%s → %s', (_label, text, health) => {
    expect(watchedHook(text, APP).health).toBe(health);
  });

  it('without a known web-app URL any enabled webhook counts', () => {
    expect(watchedHook(hooks({ tag: 'a', url: 'https://x.test', enabled: true }), '').health).toBe('enabled');
  });
});

describe('planWatch', () => {
  it('a healthy watch with nothing owed recovers nothing and notes when it was healthy', () => {
    const plan = planWatch(null, T0, form('enabled'), [], []);
    expect(plan.recovery).toBeNull();
    expect(plan.record.lastHealthyAt).toBe(T0);
    expect(plan.changed).toBe(false);
  });

  it('an outage opens a recovery at once, from an hour before the webhook was last seen healthy to 5 minutes ago', () => {
    const healthy = planWatch(null, T0, form('enabled'), [], []).record;
    const plan = planWatch(healthy, T0 + 15 * MIN, form('disabled'), [], []);
    expect(plan.changed).toBe(true);
    expect(plan.recovery).toEqual({ since: iso(T0 - OUTAGE_MARGIN_MS), until: iso(T0 + 15 * MIN - RESPONSES_LAG_MS) });
  });

  it('while unhealthy, the next recovery comes an hour later and overlaps the last window by 15 minutes', () => {
    const first = planWatch(planWatch(null, T0, form('enabled'), [], []).record, T0 + 15 * MIN, form('disabled'), [], []);
    const after = afterRecovery(first, T0 + 15 * MIN, 3, true);
    expect(after.recovered).toBe(3);
    expect(planWatch(after, T0 + 30 * MIN, form('disabled'), [], []).recovery).toBeNull();
    const hourly = planWatch(after, T0 + 75 * MIN, form('disabled'), [], []);
    expect(hourly.recovery?.since).toBe(iso(T0 + 15 * MIN - RESPONSES_LAG_MS - RECOVERY_OVERLAP_MS));
  });

  it('the first recovery after the webhook is healthy again closes the outage', () => {
    let record = planWatch(null, T0, form('enabled'), [], []).record;
    const open = planWatch(record, T0 + 15 * MIN, form('none'), [], []);
    record = afterRecovery(open, T0 + 15 * MIN, 1, true);
    const back = planWatch(record, T0 + 90 * MIN, form('enabled'), [], []);
    expect(back.changed).toBe(true);
    expect(back.recovery).not.toBeNull();
    expect(afterRecovery(back, T0 + 90 * MIN, 0, true).recoverFrom).toBeNull();
  });

  it('an incomplete recovery keeps its window owed', () => {
    const open = planWatch(planWatch(null, T0, form('enabled'), [], []).record, T0 + 15 * MIN, form('disabled'), [], []);
    expect(afterRecovery(open, T0 + 15 * MIN, 0, false).recoverFrom).toBe(open.record.recoverFrom);
  });

  it('Typeform unreadable raises nothing and proves nothing: no outage, no "last healthy"', () => {
    const plan = planWatch(null, T0, form('unknown'), [], ['F1: Typeform answered 500 for its webhooks']);
    expect(plan.record.unhealthy).toEqual([]);
    expect(plan.record.lastHealthyAt).toBeNull();
    expect(plan.recovery).toBeNull();
  });

  it('the record reads back and the incident detail names how each form stands', () => {
    const plan = planWatch(null, T0, [{ formId: 'F1', health: 'elsewhere' }, { formId: 'F2', health: 'disabled' }], ['F2'], []);
    const back = readWatchRecord({ [WEBHOOK_WATCH_PROPERTY]: JSON.stringify(plan.record) });
    expect(back).toEqual(plan.record);
    expect(watchDetail(plan.record)).toContain("F1 (pointing at another URL than this deployment's), F2 (disabled)");
    expect(watchDetail(plan.record)).toContain('switched back on by formqueue: F2');
  });
});

describe('the daily check window after checks could not run', () => {
  const NOW = Date.UTC(2026, 11, 3, 6, 0, 0);
  it('starts where the last complete check ended when that is earlier than 48 h ago', () => {
    const lastUntil = NOW - 60 * HOUR;
    expect(responseWindow(NOW, lastUntil)).toEqual({ since: iso(lastUntil), until: iso(NOW - 12 * HOUR) });
  });
  it('is the usual 48–12 h window when the last complete check was recent, and looks back 30 days at most', () => {
    expect(responseWindow(NOW, NOW - 20 * HOUR).since).toBe(iso(NOW - 48 * HOUR));
    expect(responseWindow(NOW, NOW - 90 * 24 * HOUR).since).toBe(iso(NOW - 30 * 24 * HOUR));
  });
});

describe('recoveredNeedsApproval', () => {
  const NOW = T0;
  it.each([
    ['a webhook row', 'abc', NOW - HOUR, 24, false],
    ['a recovered row submitted an hour ago', 'reconciled:t1', NOW - HOUR, 24, false],
    ['a recovered row submitted 30 hours ago', 'reconciled:t1', NOW - 30 * HOUR, 24, true],
    ['a recovered row whose submitted_at cannot be read', 'reconciled:t1', null, 24, true],
    ['a young recovered row with the setting at 0', 'reconciled:t1', NOW - HOUR, 0, true],
  ] as const)('%s → held: %s', (_label, eventId, submittedAt, hours, held) => {
    expect(recoveredNeedsApproval(eventId, submittedAt, NOW, hours)).toBe(held);
  });
});
