// The health figures at their edges: rows without an event_id, what is cut in the stored snapshot, old snapshots, the words.
import { describe, expect, it } from 'vitest';
import { computeHealth, healthWhenUnreadable } from '../../../src/core/triage/health';
import { healthSnapshotFromJson, healthSnapshotToJson } from '../../../src/core/triage/health-snapshot';
import { utf8Length } from '../../../src/core/domain/text';
import { HOUR, MINUTE, queueRow, T0 } from '../fakes/rows';
import { SPREADSHEET_URL } from './fakes';

describe('computeHealth: which rows count', () => {
  it('a row with a status but no event_id is a row (staff typed it), counted and listed; only a row with neither is blank', () => {
    const health = computeHealth([queueRow('FAILED', { rowNumber: 2, eventId: '' }), queueRow('', { rowNumber: 3, eventId: '' })], T0);
    expect(health.counts.FAILED).toBe(1);
    expect(health.unknownStatus).toBe(0);
    expect(health.needsPerson.map((row) => [row.rowNumber, row.eventId])).toEqual([[2, '']]);
  });

  it('an AWAITING_APPROVAL row listed for a person carries since when it waits (updated_at, else received_at); others none', () => {
    const health = computeHealth([
      queueRow('AWAITING_APPROVAL', { rowNumber: 2, receivedAt: T0 - 50 * HOUR, updatedAt: T0 - 49 * HOUR }),
      queueRow('AWAITING_APPROVAL', { rowNumber: 3, receivedAt: T0 - 50 * HOUR, updatedAt: null }),
      queueRow('FAILED', { rowNumber: 4, updatedAt: T0 - HOUR }),
    ], T0, '', null, { approvalWaitHours: 24 });
    expect(health.needsPerson.map((row) => [row.rowNumber, row.reason, row.waitingSince])).toEqual([
      [2, 'approval-overdue', T0 - 49 * HOUR],
      [3, 'approval-overdue', T0 - 50 * HOUR],
      [4, 'failed-other', null],
    ]);
  });
});

describe('healthWhenUnreadable with nothing known', () => {
  it('has every figure at zero: no rows counted, none mistyped, none for a person', () => {
    const blind = healthWhenUnreadable(T0, null);
    expect(blind).toMatchObject({ unknownStatus: 0, needsPersonCount: 0, needsPerson: [], oldestPendingAt: null, oldestWaitingAt: null, spilled: 0 });
    expect(Object.values(blind.counts).every((n) => n === 0)).toBe(true);
  });
});

describe('the user impact in words, at its edges', () => {
  it('only spilled deliveries wait (no row has an age): the statement names no oldest', () => {
    expect(computeHealth([], T0, '', null, { spilled: 2 }).userImpact).toEqual({
      affected: true,
      statement: '2 respondents are waiting for a reply (spilled 2); they get it once this clears.',
    });
  });

  it('waiting rows without any time: counted, with no oldest', () => {
    expect(computeHealth([queueRow('PENDING', { receivedAt: null })], T0).userImpact.statement).toBe(
      '1 respondent is waiting for a reply (PENDING 1); they get it once this clears.',
    );
  });
});

describe('the stored snapshot, what it cuts', () => {
  it('cuts a listed row\'s event_id to 80 characters, its mail_ref to 20 and the spreadsheet URL to 500', () => {
    const url = `https://docs.google.com/spreadsheets/d/${'u'.repeat(600)}`;
    const rows = [queueRow('FAILED', { rowNumber: 2, eventId: 'e'.repeat(100), mailRef: 'FQ-'.padEnd(30, 'M') })];
    const snapshot = JSON.parse(healthSnapshotToJson(computeHealth(rows, T0, url, 1)));
    const [stored] = snapshot.r;
    expect(stored[3]).toBe('e'.repeat(80));
    expect(stored[4]).toBe('FQ-'.padEnd(20, 'M'));
    expect(snapshot.s).toBe(url.slice(0, 500));
  });

  it('a snapshot of exactly 8,000 bytes keeps every listed row; one byte more halves them', () => {
    // 'é' is two bytes: the limit is in UTF-8 bytes, and 20 listed rows of two-byte text come close to it.
    const rows = Array.from({ length: 20 }, (_, i) => queueRow('FAILED', { rowNumber: i + 2, eventId: `ev-${'é'.repeat(70)}-${i}`, mailRef: 'FQ-'.padEnd(20, 'M'), error: `E: ${'é'.repeat(80)}` }));
    const sized = (urlLength: number) => healthSnapshotToJson(computeHealth(rows, T0, `https://s.test/${'z'.repeat(urlLength)}`, 0));
    const base = utf8Length(sized(0));
    expect(base).toBeLessThan(8000);
    expect(base).toBeGreaterThan(8000 - 480);
    const exact = sized(8000 - base);
    expect(utf8Length(exact)).toBe(8000);
    expect(JSON.parse(exact).r).toHaveLength(20);
    expect(JSON.parse(sized(8001 - base)).r).toHaveLength(10);
  });
});

describe('a snapshot written before the needs-a-person fields were kept', () => {
  it.each<[string, string]>([
    ['FAILED', 'failed-other'],
    ['NEEDS_REVIEW', 'parked-by-edit'],
    ['AWAITING_APPROVAL', 'approval-overdue'],
    ['SENT', 'failed-other'],
    ['PENDING', 'failed-other'],
    ['sent by hand', 'unknown-status'],
  ])('a %s row reads as reason %s, with an empty event_id, mail_ref and error and no waiting time', (status, reason) => {
    const old = JSON.stringify({ v: 1, at: T0, c: {}, u: 0, p: null, w: null, n: 1, r: [[2, status]], s: SPREADSHEET_URL, g: 0 });
    expect(healthSnapshotFromJson(old, T0)?.needsPerson).toEqual([
      { rowNumber: 2, status, link: `${SPREADSHEET_URL}#gid=0&range=A2`, reason, eventId: '', mailRef: '', error: '', waitingSince: null },
    ]);
  });

  it('a stored waiting time is read back as the number it was', () => {
    const health = computeHealth([queueRow('AWAITING_APPROVAL', { rowNumber: 2, updatedAt: T0 - 30 * HOUR })], T0, '', null, { approvalWaitHours: 24 });
    const [row] = healthSnapshotFromJson(healthSnapshotToJson(health), T0 + MINUTE)?.needsPerson ?? [];
    expect(row).toMatchObject({ reason: 'approval-overdue', waitingSince: T0 - 30 * HOUR, eventId: 'ev-2' });
  });
});
