// The webhook watch's decisions: a form's webhook health, when an outage opens and closes, the hourly recovery windows, and the catch-up window of a late daily check.
import { describe, expect, it } from 'vitest';
import { recoveredNeedsApproval } from '../../../src/core/domain/typeform/reconciled-id';
import { responseWindow } from '../../../src/core/reconcile/typeform-window';
import { OUTAGE_MARGIN_MS, RECOVERY_OVERLAP_MS, RESPONSES_LAG_MS, afterRecovery, emptyWatchRecord, mayReenable, planWatch, readWatchRecord, watchDetail, watchedHook, WEBHOOK_WATCH_PROPERTY, type FormWatch, type WatchRecord, type WebhookHealth } from '../../../src/core/reconcile/webhook-watch';

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

describe('watchedHook, whole answers', () => {
  const UNKNOWN = { health: 'unknown', tag: '', url: '' };
  it.each([
    ['not JSON', '<html>', UNKNOWN],
    ['JSON null', 'null', UNKNOWN],
    ['a JSON list', '[]', UNKNOWN],
    ['an object without items', '{}', UNKNOWN],
    ['items that are not a list', '{"items":3}', UNKNOWN],
    ['no webhook', hooks(), { health: 'none', tag: '', url: '' }],
    ['entries that are not webhooks (null, text, a number, a list) count as none', JSON.stringify({ items: [null, 'x', 3, [{ tag: 'a', url: APP, enabled: true }]] }), { health: 'none', tag: '', url: '' }],
    ['ours enabled, named', hooks({ tag: 'a', url: `${APP}?token=x`, enabled: true }), { health: 'enabled', tag: 'a', url: `${APP}?token=x` }],
    ['ours with no enabled flag is disabled', hooks({ tag: 'a', url: `${APP}?token=x` }), { health: 'disabled', tag: 'a', url: `${APP}?token=x` }],
    ['two of ours, the second enabled: enabled, naming the enabled one', hooks({ tag: 'old', url: `${APP}?token=x`, enabled: false }, { tag: 'new', url: `${APP}?token=y`, enabled: true }), { health: 'enabled', tag: 'new', url: `${APP}?token=y` }],
    ['two of ours, both disabled: disabled, naming the first', hooks({ tag: 'old', url: `${APP}?token=x`, enabled: false }, { tag: 'new', url: `${APP}?token=y`, enabled: false }), { health: 'disabled', tag: 'old', url: `${APP}?token=x` }],
    ['only others: elsewhere, naming the first of them', hooks({ tag: 'z1', url: 'https://zapier.test/1', enabled: true }, { tag: 'z2', url: 'https://zapier.test/2', enabled: false }), { health: 'elsewhere', tag: 'z1', url: 'https://zapier.test/1' }],
  ])('%s', (_label, text, hook) => {
    expect(watchedHook(text, APP)).toEqual(hook);
  });

  it('without a known web-app URL the first enabled webhook counts, a missing tag and URL read as empty', () => {
    expect(watchedHook(hooks({ tag: 'off', url: 'https://x.test', enabled: false }, { enabled: true }), '')).toEqual({ health: 'enabled', tag: '', url: '' });
  });
});

describe('mayReenable', () => {
  it.each([
    ['disabled', true],
    ['enabled', false],
    ['none', false],
    ['elsewhere', false],
    ['unknown', false],
  ] as const)('a webhook %s may be switched back on: %s', (health, may) => {
    expect(mayReenable(health)).toBe(may);
  });
});

describe('the watch record read back', () => {
  const read = (text: string | undefined) => readWatchRecord(text === undefined ? {} : { [WEBHOOK_WATCH_PROPERTY]: text });

  it('the record before any watch owes nothing and holds nothing', () => {
    expect(emptyWatchRecord()).toEqual({ at: 0, unhealthy: [], reenabled: [], errors: [], lastHealthyAt: null, recoverFrom: null, lastRecoveryAt: null, recovered: 0 });
  });

  it.each([
    ['no record', undefined],
    ['an empty property', ''],
    ['not JSON', '{at:1'],
    ['JSON null', 'null'],
    ['no watch time', JSON.stringify({ unhealthy: [{ formId: 'F1', health: 'disabled' }], recovered: 2 })],
    ['a watch time as text', JSON.stringify({ at: String(T0) })],
  ])('%s is no record', (_label, text) => {
    expect(read(text)).toBeNull();
  });

  it('a record with only its time owes nothing and recovered nothing', () => {
    expect(read(JSON.stringify({ at: T0 }))).toEqual({ ...emptyWatchRecord(), at: T0 });
  });

  it('lists that are not lists read as empty, times that are not finite numbers as none, a count as text as that count', () => {
    const text = `{"at":${T0},"unhealthy":"F1","reenabled":"F1","errors":"oops","lastHealthyAt":1e999,"recoverFrom":"${T0}","lastRecoveryAt":true,"recovered":"3"}`;
    expect(read(text)).toEqual({ at: T0, unhealthy: [], reenabled: [], errors: [], lastHealthyAt: null, recoverFrom: null, lastRecoveryAt: null, recovered: 3 });
  });

  it('unhealthy entries that are not forms are dropped; reenabled forms and errors read as text', () => {
    const stored = { at: T0, unhealthy: [null, 'F9', ['F8'], { formId: 'F1', health: 'disabled' }], reenabled: ['F1', 2], errors: ['F2: 500'], lastHealthyAt: T0 - HOUR, recoverFrom: T0 - 2 * HOUR, lastRecoveryAt: T0, recovered: 4 };
    expect(read(JSON.stringify(stored))).toEqual({
      at: T0, unhealthy: [{ formId: 'F1', health: 'disabled' }], reenabled: ['F1', '2'], errors: ['F2: 500'], lastHealthyAt: T0 - HOUR, recoverFrom: T0 - 2 * HOUR, lastRecoveryAt: T0, recovered: 4,
    } satisfies WatchRecord);
  });
});

describe('planWatch, whole records', () => {
  it('one form disabled among enabled ones: the watch is not healthy (the last healthy watch stays the one before), and why others could not be read is kept', () => {
    const healthy = planWatch(null, T0, form('enabled'), [], []).record;
    const plan = planWatch(healthy, T0 + 15 * MIN, [{ formId: 'F1', health: 'enabled' }, { formId: 'F2', health: 'disabled' }, { formId: 'F3', health: 'unknown' }], ['F2'], ['F3: Typeform answered 500']);
    expect(plan.record).toEqual({
      at: T0 + 15 * MIN, unhealthy: [{ formId: 'F2', health: 'disabled' }], reenabled: ['F2'], errors: ['F3: Typeform answered 500'],
      lastHealthyAt: T0, recoverFrom: T0 - OUTAGE_MARGIN_MS, lastRecoveryAt: null, recovered: 0,
    } satisfies WatchRecord);
  });

  it('an outage that opens within the hour after the last one closed is recovered at once, not an hour after that recovery', () => {
    let record = planWatch(null, T0, form('enabled'), [], []).record;
    record = afterRecovery(planWatch(record, T0 + 15 * MIN, form('disabled'), [], []), T0 + 15 * MIN, 0, true);
    const closing = planWatch(record, T0 + 75 * MIN, form('enabled'), [], []);
    record = afterRecovery(closing, T0 + 75 * MIN, 0, true);
    expect(record.recoverFrom).toBeNull();
    const again = planWatch(record, T0 + 90 * MIN, form('disabled'), [], []);
    expect(again.recovery).toEqual({ since: iso(T0 + 75 * MIN - OUTAGE_MARGIN_MS), until: iso(T0 + 90 * MIN - RESPONSES_LAG_MS) });
  });

  it('a plan without a recovery window changes only the recovery time and count: what is owed stays owed', () => {
    const opened = planWatch(planWatch(null, T0, form('enabled'), [], []).record, T0 + 15 * MIN, form('disabled'), [], []);
    const between = planWatch(afterRecovery(opened, T0 + 15 * MIN, 2, true), T0 + 30 * MIN, form('disabled'), [], []);
    expect(between.recovery).toBeNull();
    expect(afterRecovery(between, T0 + 31 * MIN, 0, true)).toEqual({ ...between.record, lastRecoveryAt: T0 + 31 * MIN, recovered: 2 });
  });
});

describe('watchDetail, whole texts', () => {
  const WATCH = '(watch 2026-12-01T08:00:00.000Z)';
  const record = (patch: Partial<WatchRecord>): WatchRecord => ({ ...emptyWatchRecord(), at: T0, unhealthy: form('disabled'), ...patch });
  it.each<[WebhookHealth, string]>([
    ['enabled', 'enabled'],
    ['disabled', 'disabled'],
    ['none', 'missing'],
    ['elsewhere', "pointing at another URL than this deployment's"],
    ['unknown', 'unreadable'],
  ])('a webhook %s reads as %s', (health, words) => {
    expect(watchDetail(record({ unhealthy: form(health) }))).toBe(`the Typeform webhook of form F1 (${words}) ${WATCH}`);
  });

  it.each([
    ['nothing switched back on or recovered: no tail', {}, ''],
    ['one recovered', { recovered: 1 }, '; 1 submission(s) recovered from Typeform so far'],
    ['two switched back on, three recovered', { reenabled: ['F1', 'F2'], recovered: 3 }, '; switched back on by formqueue: F1, F2; 3 submission(s) recovered from Typeform so far'],
    ['one switched back on, nothing recovered', { reenabled: ['F1'] }, '; switched back on by formqueue: F1'],
  ])('%s', (_label, patch, tail) => {
    expect(watchDetail(record(patch))).toBe(`the Typeform webhook of form F1 (disabled) ${WATCH}${tail}`);
  });
});
