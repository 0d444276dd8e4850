import { describe, expect, it } from 'vitest';
import { STATUSES } from '../../../src/core/statuses';
import {
  assessUserImpact,
  computeHealth,
  healthSnapshotFromJson,
  healthSnapshotToJson,
  healthWhenUnreadable,
  MAX_NEEDS_PERSON_LISTED,
} from '../../../src/core/triage/health';
import { healthReport } from '../../../src/core/triage/health-json';
import { IncidentBook } from '../../../src/core/triage/incidents';
import { utf8Length } from '../../../src/core/triage/text';
import { SPREADSHEET_URL } from './fakes';
import { FakeClock, MemoryProperties } from '../memory-ports';
import { MINUTE, queueRow, T0 } from '../fakes/rows';

describe('computeHealth', () => {
  it('counts every status, including zeros, and rows with a mistyped status', () => {
    const health = computeHealth([queueRow('PENDING', { rowNumber: 2 }), queueRow('SENT', { rowNumber: 3 }), queueRow('SENT', { rowNumber: 4 }), queueRow('sent?', { rowNumber: 5 })], T0);
    expect(Object.keys(health.counts)).toEqual([...STATUSES]);
    expect(health.counts).toMatchObject({ PENDING: 1, SENT: 2, FAILED: 0 });
    expect(health.unknownStatus).toBe(1);
  });

  it('skips blank rows', () => {
    const blank = queueRow('', { rowNumber: 9, eventId: '' });
    expect(computeHealth([blank], T0).unknownStatus).toBe(0);
  });

  it('waiting is PENDING+GENERATING+READY+APPROVED+SENDING plus the spill, and ages come from received_at', () => {
    const rows = [
      queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 5 * MINUTE }),
      queueRow('GENERATING', { rowNumber: 3, receivedAt: T0 - 30 * MINUTE }),
      queueRow('READY', { rowNumber: 4, receivedAt: T0 - 2 * MINUTE }),
      queueRow('APPROVED', { rowNumber: 5, receivedAt: T0 }),
      queueRow('SENDING', { rowNumber: 6, receivedAt: T0 }),
      queueRow('AWAITING_APPROVAL', { rowNumber: 7, receivedAt: T0 - 90 * MINUTE }),
      queueRow('PENDING', { rowNumber: 8, receivedAt: T0 - 20 * MINUTE }),
    ];
    const health = computeHealth(rows, T0, '', null, { spilled: 2 });
    expect(health.waiting).toBe(8);
    expect(health.oldestPendingAt).toBe(T0 - 20 * MINUTE);
    expect(health.oldestWaitingAt).toBe(T0 - 30 * MINUTE);
  });

  it('lists rows needing a person with direct links to their rows', () => {
    const health = computeHealth([queueRow('SENT', { rowNumber: 2 }), queueRow('FAILED', { rowNumber: 3 }), queueRow('AWAITING_APPROVAL', { rowNumber: 4 }), queueRow('NEEDS_REVIEW', { rowNumber: 5 })], T0, SPREADSHEET_URL, 123);
    expect(health.needsPerson).toEqual([
      { rowNumber: 3, status: 'FAILED', link: `${SPREADSHEET_URL}#gid=123&range=A3` },
      { rowNumber: 4, status: 'AWAITING_APPROVAL', link: `${SPREADSHEET_URL}#gid=123&range=A4` },
      { rowNumber: 5, status: 'NEEDS_REVIEW', link: `${SPREADSHEET_URL}#gid=123&range=A5` },
    ]);
  });

  it('caps the listed rows but keeps the full count', () => {
    const rows = Array.from({ length: 500 }, (_, i) => queueRow('FAILED', { rowNumber: i + 2 }));
    const health = computeHealth(rows, T0, SPREADSHEET_URL, 0);
    expect(health.needsPerson).toHaveLength(MAX_NEEDS_PERSON_LISTED);
    expect(health.needsPersonCount).toBe(500);
  });
});

describe('the no-user-impact rule', () => {
  const cases = [
    { name: 'a Google error with no PENDING rows means no user impact', rows: [queueRow('SENT', { rowNumber: 2 }), queueRow('FAILED', { rowNumber: 3 })], google: true, affected: false, says: 'A Google error with no PENDING rows means no user impact' },
    { name: 'a Google error with PENDING rows affects respondents', rows: [queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 7 * MINUTE })], google: true, affected: true, says: '1 respondent is waiting for a reply (PENDING 1; the oldest has waited 7 min)' },
    { name: 'a Google error with READY but no PENDING rows still affects respondents', rows: [queueRow('READY', { rowNumber: 2 })], google: true, affected: true, says: 'would mean no user impact, but other rows are waiting' },
    { name: 'any incident with nothing waiting affects nobody', rows: [], google: false, affected: false, says: 'No row is waiting for a reply, so no respondent is affected' },
    { name: 'any incident with rows waiting says how many and how old the oldest', rows: [queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 3 * MINUTE }), queueRow('SENDING', { rowNumber: 3, receivedAt: T0 - 4 * MINUTE })], google: false, affected: true, says: '2 respondents are waiting for a reply (PENDING 1, SENDING 1; the oldest has waited 4 min)' },
  ];
  for (const { name, rows, google, affected, says } of cases) {
    it(name, () => {
      const impact = assessUserImpact(computeHealth(rows, T0), T0, google);
      expect(impact.affected).toBe(affected);
      expect(impact.statement).toContain(says);
    });
  }
});

describe('health while the queue cannot be read', () => {
  it('says the queue could not be read and uses the last known snapshot', () => {
    const lastKnown = healthSnapshotFromJson(healthSnapshotToJson(computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - MINUTE })], T0, SPREADSHEET_URL, 0)), T0 + 10 * MINUTE);
    const health = healthWhenUnreadable(T0 + 10 * MINUTE, lastKnown);
    expect(health.readable).toBe(false);
    expect(health.counts.PENDING).toBe(1);
    expect(health.countedAt).toBe(T0);
    expect(health.userImpact.statement).toContain('the queue could not be read; figures as last read 10 min ago');
  });

  it('without any snapshot says the impact is unknown, unless deliveries wait in the spill', () => {
    expect(healthWhenUnreadable(T0, null).userImpact).toEqual({
      affected: null,
      statement: 'The queue could not be read and no earlier figures are kept, so whether respondents are affected is unknown.',
    });
    expect(healthWhenUnreadable(T0, null, { spilled: 3 }).userImpact.affected).toBe(true);
  });

  it('the book keeps the snapshot in one property and writes it only when figures change or it is old', () => {
    const props = new MemoryProperties();
    const rows = [queueRow('PENDING', { rowNumber: 2 }), queueRow('FAILED', { rowNumber: 3 })];
    const first = new IncidentBook(props, new FakeClock(T0));
    first.rememberHealth(computeHealth(rows, T0, SPREADSHEET_URL, 0));
    first.commit();
    const second = new IncidentBook(props, new FakeClock(T0 + MINUTE));
    second.rememberHealth(computeHealth(rows, T0 + MINUTE, SPREADSHEET_URL, 0));
    expect(second.hasChanges()).toBe(false);
    second.rememberHealth(computeHealth([...rows, queueRow('PENDING', { rowNumber: 4 })], T0 + MINUTE, SPREADSHEET_URL, 0));
    expect(second.hasChanges()).toBe(true);
    second.commit();
    expect(new IncidentBook(props, new FakeClock(T0 + 2 * MINUTE)).lastKnownHealth()?.counts.PENDING).toBe(2);
  });

  it('the snapshot of a huge queue fits one property and round-trips its figures and links', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => queueRow(i % 3 === 0 ? 'FAILED' : 'SENT', { rowNumber: i + 2 }));
    const health = computeHealth(rows, T0, SPREADSHEET_URL, 7);
    const json = healthSnapshotToJson(health);
    expect(utf8Length(json)).toBeLessThan(9 * 1024);
    const back = healthSnapshotFromJson(json, T0);
    expect(back?.counts).toEqual(health.counts);
    expect(back?.needsPerson).toEqual(health.needsPerson);
    expect(back?.needsPersonCount).toBe(health.needsPersonCount);
  });
});

describe('health JSON for doGet', () => {
  it('reports ok with counts, oldest PENDING minutes, rows needing a person and no open incidents', () => {
    const health = computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 9 * MINUTE }), queueRow('FAILED', { rowNumber: 3 })], T0, SPREADSHEET_URL, 0);
    expect(healthReport(health, [], T0)).toMatchObject({
      ok: true,
      oldestPendingMinutes: 9,
      needsPerson: 1,
      openIncidents: [],
      checkedAt: '2025-06-01T10:00:00.000Z',
    });
  });

  it('is not ok while an incident is open or the queue cannot be read', () => {
    const props = new MemoryProperties();
    const book = new IncidentBook(props, new FakeClock(T0));
    book.raise('GEMINI_KEY_INVALID', '403');
    book.raise('GEMINI_KEY_INVALID', '403');
    const report = healthReport(computeHealth([], T0), book.all(), T0);
    expect(report.ok).toBe(false);
    expect(report.openIncidents).toEqual([{ code: 'GEMINI_KEY_INVALID', since: '2025-06-01T10:00:00.000Z', count: 2 }]);
    expect(healthReport(healthWhenUnreadable(T0, null), [], T0).ok).toBe(false);
  });

  it('rows needing a person alone, or a passing rate limit, keep it ok', () => {
    const book = new IncidentBook(new MemoryProperties(), new FakeClock(T0));
    book.raise('NEEDS_REVIEW_ROWS', '1 row', [3]);
    book.raise('GEMINI_RATE_LIMITED', '429');
    expect(healthReport(computeHealth([queueRow('NEEDS_REVIEW', { rowNumber: 3 })], T0), book.all(), T0).ok).toBe(true);
  });
});
