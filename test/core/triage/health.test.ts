import { describe, expect, it } from 'vitest';
import { STATUSES } from '../../../src/core/domain/queue/statuses';
import { assessApprovalImpact, assessUserImpact, computeHealth, healthWhenUnreadable, MAX_NEEDS_PERSON_LISTED, rowLink } from '../../../src/core/triage/health';
import { healthSnapshotFromJson, healthSnapshotToJson } from '../../../src/core/triage/health-snapshot';
import { healthReport } from '../../../src/core/triage/health-json';
import { IncidentBook } from '../../../src/core/triage/incidents';
import { utf8Length } from '../../../src/core/domain/text';
import { SPREADSHEET_URL, needsRow } from './fakes';
import { FakeClock, MemoryProperties } from '../memory-ports';
import { HOUR, MINUTE, queueRow, T0 } from '../fakes/rows';

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

  it('lists rows needing a person with direct links, mail_ref, event_id, reason and error cell; a young AWAITING_APPROVAL row is not one yet', () => {
    const rows = [
      queueRow('SENT', { rowNumber: 2 }),
      queueRow('FAILED', { rowNumber: 3, error: 'GEMINI_CONTENT: blocked (SAFETY)' }),
      queueRow('AWAITING_APPROVAL', { rowNumber: 4, receivedAt: T0 - 25 * HOUR, mailRef: 'FQ-AAAAAA' }),
      queueRow('NEEDS_REVIEW', { rowNumber: 5, mailRef: 'FQ-BBBBBB', error: 'MAIL_UNKNOWN: odd' }),
      queueRow('AWAITING_APPROVAL', { rowNumber: 6, receivedAt: T0 - HOUR }),
    ];
    const health = computeHealth(rows, T0, SPREADSHEET_URL, 123);
    expect(health.needsPerson).toEqual([
      needsRow(3, 'FAILED', `${SPREADSHEET_URL}#gid=123&range=A3`, { reason: 'prompt-blocked', error: 'GEMINI_CONTENT: blocked (SAFETY)' }),
      needsRow(4, 'AWAITING_APPROVAL', `${SPREADSHEET_URL}#gid=123&range=A4`, { mailRef: 'FQ-AAAAAA', waitingSince: T0 - 25 * HOUR }),
      needsRow(5, 'NEEDS_REVIEW', `${SPREADSHEET_URL}#gid=123&range=A5`, { reason: 'mail-outcome-unknown', mailRef: 'FQ-BBBBBB', error: 'MAIL_UNKNOWN: odd' }),
    ]);
    expect(health.needsPersonCount).toBe(3);
    expect(health.counts.AWAITING_APPROVAL).toBe(2);
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
  it('reports ok with counts, oldest PENDING minutes and no open incidents; a young AWAITING_APPROVAL row keeps it ok', () => {
    const health = computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 9 * MINUTE }), queueRow('AWAITING_APPROVAL', { rowNumber: 3, receivedAt: T0 - HOUR })], T0, SPREADSHEET_URL, 0);
    expect(healthReport(health, [], T0)).toMatchObject({
      ok: true,
      oldestPendingMinutes: 9,
      needsPerson: 0,
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

  const needsPersonCases = [
    { name: 'a FAILED row', rows: [queueRow('FAILED', { rowNumber: 3 })], ok: false },
    { name: 'a NEEDS_REVIEW row', rows: [queueRow('NEEDS_REVIEW', { rowNumber: 3 })], ok: false },
    { name: 'a mistyped status', rows: [queueRow('SENTT', { rowNumber: 3 })], ok: false },
    { name: 'an AWAITING_APPROVAL row waiting APPROVAL_WAIT_HOURS (24)', rows: [queueRow('AWAITING_APPROVAL', { rowNumber: 3, receivedAt: T0 - 24 * HOUR })], ok: false },
    { name: 'an AWAITING_APPROVAL row one minute younger than that', rows: [queueRow('AWAITING_APPROVAL', { rowNumber: 3, receivedAt: T0 - 24 * HOUR + MINUTE })], ok: true },
    { name: 'only finished and waiting rows', rows: [queueRow('SENT', { rowNumber: 3 }), queueRow('PENDING', { rowNumber: 4 }), queueRow('SKIPPED', { rowNumber: 5 })], ok: true },
  ];
  for (const { name, rows, ok } of needsPersonCases) {
    it(`${name}: ok is ${ok}, from the rows read now, whatever the incident says`, () => {
      const report = healthReport(computeHealth(rows, T0), [], T0);
      expect(report.ok).toBe(ok);
      expect(report.needsPerson).toBe(ok ? 0 : 1);
    });
  }

  it('the whole report, exactly: counts copied, a cleared incident left out, the times as ISO text', () => {
    const book = new IncidentBook(new MemoryProperties(), new FakeClock(T0 - HOUR));
    book.raise('SHEETS_UNAVAILABLE', 'down');
    book.clear('SHEETS_UNAVAILABLE');
    const health = computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - 5 * MINUTE })], T0 - MINUTE);
    expect(book.all().map((incident) => incident.state)).toEqual(['cleared']);
    const report = healthReport(health, book.all(), T0);
    expect(report).toEqual({
      ok: true,
      readable: true,
      counts: health.counts,
      waiting: 1,
      oldestPendingMinutes: 5,
      needsPerson: 0,
      openIncidents: [],
      runsOverdue: null,
      countedAt: '2025-06-01T09:59:00.000Z',
      checkedAt: '2025-06-01T10:00:00.000Z',
      bounces: { last24h: null, suppressedAddresses: null, rowsSuppressed: 0 },
    });
    expect(report.counts).not.toBe(health.counts);
    expect(healthReport(healthWhenUnreadable(T0, null), [], T0).countedAt).toBeNull();
  });

  it('runs overdue (no processQueue run for over an hour while deliveries wait): ok is false, with when the last run was and why', () => {
    const gap = { lastRunAt: T0 - 3 * HOUR - 5 * MINUTE, minutes: 185 };
    const report = healthReport(computeHealth([queueRow('PENDING', { rowNumber: 2, receivedAt: T0 - HOUR })], T0), [], T0, { gap });
    expect(report.ok).toBe(false);
    expect(report.runsOverdue).toEqual({
      lastRunAt: '2025-06-01T06:55:00.000Z',
      minutes: 185,
      reason: expect.stringMatching(/^no processQueue run for 3 h 5 min \(last 2025-06-01T06:55:00\.000Z\) while deliveries wait\. .*"Service using too much computer time for one day"/),
    });
  });

  it('ROWS_NEED_A_PERSON still open from the last run does not hold ok false once the rows are fixed, nor is it listed beside ok; a passing rate limit never does', () => {
    const book = new IncidentBook(new MemoryProperties(), new FakeClock(T0));
    book.raise('ROWS_NEED_A_PERSON', '1 row', [3]);
    book.raise('GEMINI_RATE_LIMITED', '429');
    expect(healthReport(computeHealth([queueRow('SENT', { rowNumber: 3 })], T0), book.all(), T0)).toMatchObject({ ok: true, openIncidents: [] });
  });
});

describe('rowLink and assessApprovalImpact, exactly', () => {
  it('a spreadsheet URL whose "#" part spans a line break is kept whole, since only a fragment running to the end is dropped', () => {
    expect(rowLink('https://docs.google.com/spreadsheets/d/abc/edit#x\ny', 7, 3)).toBe('https://docs.google.com/spreadsheets/d/abc/edit#x\ny#gid=7&range=A3');
  });

  it('an unreadable queue whose last figures were never counted stays unknown, even with rows in AWAITING_APPROVAL', () => {
    const lastKnown = healthSnapshotFromJson('{"v":1,"c":{"AWAITING_APPROVAL":2}}', T0);
    expect(assessApprovalImpact(healthWhenUnreadable(T0, lastKnown), T0)).toEqual({
      affected: null,
      statement: 'The queue could not be read and no earlier figures are kept, so whether respondents are affected is unknown.',
    });
  });
});
