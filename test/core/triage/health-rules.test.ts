// The health figures and their words: what counts as waiting, the oldest ages, the rows for a person, the stored snapshot.
import { beforeEach, describe, expect, it } from 'vitest';
import { assessApprovalImpact, assessUserImpact, computeHealth, healthWhenUnreadable, MAX_NEEDS_PERSON_LISTED, oldestPendingMinutes, rowLink } from '../../../src/core/triage/health';
import { healthSnapshotFromJson, healthSnapshotToJson } from '../../../src/core/triage/health-snapshot';
import type { QueueHealth } from '../../../src/core/triage/health';
import { utf8Length } from '../../../src/core/domain/text';
import { SPREADSHEET_URL, needsRow } from './fakes';
import { MINUTE, queueRow, T0 } from '../fakes/rows';


describe('rowLink', () => {
  it('opens the spreadsheet on the row, replacing any fragment, sheet 0 when unknown', () => {
    expect(rowLink('https://x.test/s/edit#gid=9', 3, 12)).toBe('https://x.test/s/edit#gid=3&range=A12');
    expect(rowLink('https://x.test/s/edit', null, 2)).toBe('https://x.test/s/edit#gid=0&range=A2');
    expect(rowLink('', 3, 2)).toBeNull();
  });
});

describe('computeHealth', () => {
  it('skips blank rows, trims statuses, counts a row with an event but no status as mistyped', () => {
    const health = computeHealth([queueRow('', { eventId: '', receivedAt: null }), queueRow(' SENT ', { rowNumber: 3, receivedAt: T0 }), queueRow('', { rowNumber: 4, receivedAt: T0 }), queueRow('sent', { rowNumber: 5, receivedAt: T0 })], T0);
    expect(health.counts.SENT).toBe(1);
    expect(health.unknownStatus).toBe(2);
    expect(health.needsPersonCount).toBe(2);
    expect(health.needsPerson.map((r) => [r.rowNumber, r.status])).toEqual([[4, ''], [5, 'sent']]);
  });

  it('the oldest PENDING and oldest waiting are the earliest, whatever the row order; updated_at stands in for received_at', () => {
    const health = computeHealth([
      queueRow('READY', { rowNumber: 2, receivedAt: T0 - 10 * MINUTE }),
      queueRow('PENDING', { rowNumber: 3, receivedAt: T0 - 20 * MINUTE }),
      queueRow('PENDING', { rowNumber: 4, receivedAt: T0 - 30 * MINUTE }),
      queueRow('PENDING', { rowNumber: 5, receivedAt: T0 - 25 * MINUTE }),
      queueRow('APPROVED', { rowNumber: 6, receivedAt: null, updatedAt: T0 - 40 * MINUTE }),
      queueRow('SENT', { rowNumber: 7, receivedAt: T0 - 99 * MINUTE }),
      queueRow('PENDING', { rowNumber: 8, receivedAt: null }),
    ], T0);
    expect(health.oldestPendingAt).toBe(T0 - 30 * MINUTE);
    expect(health.oldestWaitingAt).toBe(T0 - 40 * MINUTE);
    expect(oldestPendingMinutes(health, T0)).toBe(30);
    expect(health.waiting).toBe(6);
  });

  it('a lone waiting row without any time sets no age', () => {
    const health = computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: null })], T0);
    expect(health.oldestPendingAt).toBeNull();
    expect(health.oldestWaitingAt).toBeNull();
    expect(oldestPendingMinutes(health, T0)).toBeNull();
  });

  it('lists at most MAX_NEEDS_PERSON_LISTED rows by name, with links, but counts them all', () => {
    const rows = Array.from({ length: MAX_NEEDS_PERSON_LISTED + 5 }, (_, i) => queueRow('FAILED', { rowNumber: i + 2, receivedAt: T0 }));
    const health = computeHealth(rows, T0, SPREADSHEET_URL, 7);
    expect(health.needsPersonCount).toBe(MAX_NEEDS_PERSON_LISTED + 5);
    expect(health.needsPerson).toHaveLength(MAX_NEEDS_PERSON_LISTED);
    expect(health.needsPerson[0]).toEqual(needsRow(2, 'FAILED', `${SPREADSHEET_URL}#gid=7&range=A2`));
  });

  it('spilled deliveries wait too; a negative spill count is none', () => {
    expect(computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: T0 })], T0, '', null, { spilled: 3 }).waiting).toBe(4);
    expect(computeHealth([], T0, '', null, { spilled: -2 }).spilled).toBe(0);
  });
});

describe('assessUserImpact, in words', () => {
  // Built in beforeEach, not at collection time, so that Stryker's active mutant reaches it.
  let pending: QueueHealth;
  beforeEach(() => {
    pending = computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 12 * MINUTE }), queueRow('READY', { rowNumber: 3, receivedAt: T0 - 5 * MINUTE })], T0);
  });

  it.each<[string, boolean, string]>([
    ['nothing waits', false, 'No row is waiting for a reply, so no respondent is affected: 0 PENDING, nothing else waiting.'],
    ['nothing waits, during a Google error', true, 'A Google error with no PENDING rows means no user impact: 0 PENDING, nothing else waiting.'],
  ])('%s', (_what, google, statement) => {
    expect(assessUserImpact(computeHealth([], T0), T0, google)).toEqual({ affected: false, statement });
  });

  it('rows wait: who, how many of each, and the oldest', () => {
    expect(assessUserImpact(pending, T0)).toEqual({
      affected: true,
      statement: '2 respondents are waiting for a reply (PENDING 1, READY 1; the oldest has waited 12 min); they get it once this clears.',
    });
    expect(assessUserImpact(pending, T0, true).statement).toMatch(/^A Google error with PENDING rows delays replies: 2 respondents are/);
  });

  it('a Google error with only non-PENDING rows waiting still affects them', () => {
    const ready = computeHealth([queueRow('READY', { rowNumber: 3, receivedAt: T0 - 5 * MINUTE })], T0, '', null, { spilled: 1 });
    expect(assessUserImpact(ready, T0, true).statement).toBe(
      'A Google error with no PENDING rows would mean no user impact, but other rows are waiting: 2 respondents are waiting for a reply (READY 1, spilled 1; the oldest has waited 5 min); they get it once this clears.',
    );
  });
});

describe('healthWhenUnreadable', () => {
  it('with nothing known: impact unknown, unless deliveries wait in the spill', () => {
    const blind = healthWhenUnreadable(T0, null);
    expect(blind).toMatchObject({ readable: false, countedAt: null, checkedAt: T0, waiting: 0 });
    expect(blind.userImpact).toEqual({ affected: null, statement: 'The queue could not be read and no earlier figures are kept, so whether respondents are affected is unknown.' });
    expect(healthWhenUnreadable(T0, null, { spilled: 1 }).userImpact).toEqual({
      affected: true,
      statement: 'The queue could not be read and no earlier figures are kept, so whether respondents are affected is unknown; at least 1 delivery wait in the spill.',
    });
    expect(healthWhenUnreadable(T0, null, { spilled: 2 }).userImpact.statement).toBe(
      'The queue could not be read and no earlier figures are kept, so whether respondents are affected is unknown; at least 2 deliveries wait in the spill.',
    );
  });

  it('with the last figures: kept, said to be old, and the spill counted afresh', () => {
    const last = computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 30 * MINUTE })], T0 - 20 * MINUTE, '', null, { spilled: 5 });
    const now = healthWhenUnreadable(T0, last, { spilled: 2 });
    expect(now).toMatchObject({ readable: false, countedAt: T0 - 20 * MINUTE, checkedAt: T0, spilled: 2, waiting: 3 });
    expect(now.userImpact.statement).toBe(
      '3 respondents are waiting for a reply (PENDING 1, spilled 2; the oldest has waited 30 min) (the queue could not be read; figures as last read 20 min ago); they get it once this clears.',
    );
    const empty = healthWhenUnreadable(T0, computeHealth([], T0 - 20 * MINUTE));
    expect(empty.userImpact.statement).toBe('No row is waiting for a reply, so no respondent is affected: 0 PENDING, nothing else waiting (the queue could not be read; figures as last read 20 min ago).');
  });
});

describe('the stored snapshot', () => {
  let health: QueueHealth;
  beforeEach(() => {
    health = computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 30 * MINUTE }), queueRow('APPROVED', { rowNumber: 3, receivedAt: T0 - 40 * MINUTE }), queueRow('FAILED', { rowNumber: 4, receivedAt: T0 }), queueRow('oops', { rowNumber: 5, receivedAt: T0 })], T0, SPREADSHEET_URL, 4);
  });

  it('round-trips the figures and rebuilds the links', () => {
    const back = healthSnapshotFromJson(healthSnapshotToJson(health), T0 + MINUTE);
    expect(back).toEqual({ ...health, checkedAt: T0 + MINUTE, userImpact: assessUserImpact({ ...health, checkedAt: T0 + MINUTE }, T0 + MINUTE) });
  });

  it('keeps each listed row\'s reason, event_id, mail_ref and error cell, the error redacted before it is cut', () => {
    const key = 'AIzaSyD3m0Key_0123456789abcdefghijklmn';
    // The cut (160) falls 16 characters into the key: cut first, "AIzaSyD3m0Key_01" would stay, which no rule knows.
    const head = `MAIL_UNKNOWN: ${'word '.repeat(40)}`.slice(0, 160 - 16);
    const rows = [queueRow('NEEDS_REVIEW', { rowNumber: 2, mailRef: 'FQ-ABCDEF', error: `${head}${key} and more` })];
    const json = healthSnapshotToJson(computeHealth(rows, T0, SPREADSHEET_URL, 4), [key]);
    expect(json).not.toContain(key.slice(0, 10));
    const [listed] = healthSnapshotFromJson(json, T0)?.needsPerson ?? [];
    expect(listed).toMatchObject({ rowNumber: 2, reason: 'mail-outcome-unknown', eventId: 'ev-2', mailRef: 'FQ-ABCDEF', error: `${head}[redacted] and m` });
  });

  it('a snapshot written before reasons were kept reads each row as its status\'s general case', () => {
    const old = JSON.stringify({ v: 1, at: T0, c: { FAILED: 1, NEEDS_REVIEW: 1 }, u: 1, p: null, w: null, n: 3, r: [[2, 'FAILED'], [3, 'NEEDS_REVIEW'], [4, 'oops']], s: SPREADSHEET_URL, g: 0 });
    expect(healthSnapshotFromJson(old, T0)?.needsPerson.map((row) => [row.reason, row.mailRef, row.error])).toEqual([
      ['failed-other', '', ''],
      ['parked-by-edit', '', ''],
      ['unknown-status', '', ''],
    ]);
  });

  it('keeps only the non-zero counts', () => {
    expect(JSON.parse(healthSnapshotToJson(health)).c).toEqual({ PENDING: 1, APPROVED: 1, FAILED: 1 });
  });

  it('halves the listed rows until it fits one property, never the counts', () => {
    const long = 'S'.repeat(40);
    const many = { ...health, needsPerson: Array.from({ length: 400 }, (_, i) => needsRow(i + 2, `${long}-extra`, null, { eventId: '' })) };
    const json = healthSnapshotToJson(many);
    expect(utf8Length(json)).toBeLessThanOrEqual(8000);
    const back = JSON.parse(json);
    expect(back.r.length).toBe(50); // 400 → 200 → 100 → 50: each row keeps its reason, event_id and error too
    expect(back.r[0]).toEqual([2, long, 'unknown-status', '', '', '', null]);
    expect(back.n).toBe(health.needsPersonCount);
  });

  it.each<[string, string | null | undefined]>([
    ['nothing stored', null],
    ['an empty value', ''],
    ['undefined', undefined],
    ['not JSON', '{oops'],
    ['another version', JSON.stringify({ v: 2 })],
    ['JSON null', 'null'],
  ])('%s reads as no snapshot', (_what, json) => expect(healthSnapshotFromJson(json, T0)).toBeNull());

  it('a snapshot missing its fields reads as zeros and nulls', () => {
    expect(healthSnapshotFromJson(JSON.stringify({ v: 1 }), T0)).toMatchObject({
      readable: true, countedAt: null, unknownStatus: 0, waiting: 0, oldestPendingAt: null, oldestWaitingAt: null,
      needsPersonCount: 0, needsPerson: [], spreadsheetUrl: '', sheetId: null, spilled: 0,
    });
  });
});

describe('assessApprovalImpact: rows recovered into AWAITING_APPROVAL wait for staff', () => {
  const awaiting = (n: number) => Array.from({ length: n }, (_, i) => queueRow('AWAITING_APPROVAL', { rowNumber: 10 + i, receivedAt: T0 - 5 * MINUTE }));
  const pending = queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 30 * MINUTE });
  it.each<[string, () => QueueHealth, boolean | null, string]>([
    ['no such row: the usual rule', () => computeHealth([pending], T0), true, '1 respondent is waiting for a reply (PENDING 1; the oldest has waited 30 min); they get it once this clears.'],
    ['one, nothing else waiting', () => computeHealth(awaiting(1), T0), true, '1 row waits in AWAITING_APPROVAL: those respondents get no reply until staff approve it.'],
    [
      'two and a PENDING row',
      () => computeHealth([pending, ...awaiting(2)], T0),
      true,
      '2 rows wait in AWAITING_APPROVAL: those respondents get no reply until staff approve them; and 1 respondent is waiting for a reply (PENDING 1; the oldest has waited 30 min); they get it once this clears.',
    ],
    [
      'figures last read 20 min ago',
      () => healthWhenUnreadable(T0, computeHealth(awaiting(2), T0 - 20 * MINUTE)),
      true,
      '2 rows wait in AWAITING_APPROVAL (the queue could not be read; figures as last read 20 min ago): those respondents get no reply until staff approve them.',
    ],
    ['figures never read: unknown', () => healthWhenUnreadable(T0, null), null, 'The queue could not be read and no earlier figures are kept, so whether respondents are affected is unknown.'],
  ])('%s', (_what, health, affected, statement) => {
    expect(assessApprovalImpact(health(), T0)).toEqual({ affected, statement });
  });
});
