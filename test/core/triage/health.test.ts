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
import { MINUTE, MemoryProperties, SPREADSHEET_URL, T0, fixedClock, needsRow, row } from './fakes';

describe('computeHealth', () => {
  it('counts every status, including zeros, and rows with a mistyped status', () => {
    const health = computeHealth([row(2, 'PENDING'), row(3, 'SENT'), row(4, 'SENT'), row(5, 'sent?')], T0);
    expect(Object.keys(health.counts)).toEqual([...STATUSES]);
    expect(health.counts).toMatchObject({ PENDING: 1, SENT: 2, FAILED: 0 });
    expect(health.unknownStatus).toBe(1);
  });

  it('skips blank rows', () => {
    const blank = { ...row(9, ''), eventId: '' };
    expect(computeHealth([blank], T0).unknownStatus).toBe(0);
  });

  it('waiting is PENDING+GENERATING+READY+APPROVED+SENDING plus the spill, and ages come from received_at', () => {
    const rows = [
      row(2, 'PENDING', T0 - 5 * MINUTE),
      row(3, 'GENERATING', T0 - 30 * MINUTE),
      row(4, 'READY', T0 - 2 * MINUTE),
      row(5, 'APPROVED', T0),
      row(6, 'SENDING', T0),
      row(7, 'AWAITING_APPROVAL', T0 - 90 * MINUTE),
      row(8, 'PENDING', T0 - 20 * MINUTE),
    ];
    const health = computeHealth(rows, T0, '', null, { spilled: 2 });
    expect(health.waiting).toBe(8);
    expect(health.oldestPendingAt).toBe(T0 - 20 * MINUTE);
    expect(health.oldestWaitingAt).toBe(T0 - 30 * MINUTE);
  });

  it('lists rows needing a person with direct links, mail_ref, event_id, reason and error cell; a young AWAITING_APPROVAL row is not one yet', () => {
    const rows = [
      row(2, 'SENT'),
      { ...row(3, 'FAILED'), error: 'GEMINI_CONTENT: blocked (SAFETY)' },
      { ...row(4, 'AWAITING_APPROVAL', T0 - 25 * 60 * MINUTE), mailRef: 'FQ-AAAAAA' },
      { ...row(5, 'NEEDS_REVIEW'), mailRef: 'FQ-BBBBBB', error: 'MAIL_UNKNOWN: odd' },
      row(6, 'AWAITING_APPROVAL', T0 - 60 * MINUTE),
    ];
    const health = computeHealth(rows, T0, SPREADSHEET_URL, 123);
    expect(health.needsPerson).toEqual([
      needsRow(3, 'FAILED', `${SPREADSHEET_URL}#gid=123&range=A3`, { reason: 'prompt-blocked', error: 'GEMINI_CONTENT: blocked (SAFETY)' }),
      needsRow(4, 'AWAITING_APPROVAL', `${SPREADSHEET_URL}#gid=123&range=A4`, { mailRef: 'FQ-AAAAAA', waitingSince: T0 - 25 * 60 * MINUTE }),
      needsRow(5, 'NEEDS_REVIEW', `${SPREADSHEET_URL}#gid=123&range=A5`, { reason: 'mail-outcome-unknown', mailRef: 'FQ-BBBBBB', error: 'MAIL_UNKNOWN: odd' }),
    ]);
    expect(health.needsPersonCount).toBe(3);
    expect(health.counts.AWAITING_APPROVAL).toBe(2);
  });

  it('caps the listed rows but keeps the full count', () => {
    const rows = Array.from({ length: 500 }, (_, i) => row(i + 2, 'FAILED'));
    const health = computeHealth(rows, T0, SPREADSHEET_URL, 0);
    expect(health.needsPerson).toHaveLength(MAX_NEEDS_PERSON_LISTED);
    expect(health.needsPersonCount).toBe(500);
  });
});

describe('the no-user-impact rule', () => {
  const cases = [
    { name: 'a Google error with no PENDING rows means no user impact', rows: [row(2, 'SENT'), row(3, 'FAILED')], google: true, affected: false, says: 'A Google error with no PENDING rows means no user impact' },
    { name: 'a Google error with PENDING rows affects respondents', rows: [row(2, 'PENDING', T0 - 7 * MINUTE)], google: true, affected: true, says: '1 respondent is waiting for a reply (PENDING 1; the oldest has waited 7 min)' },
    { name: 'a Google error with READY but no PENDING rows still affects respondents', rows: [row(2, 'READY')], google: true, affected: true, says: 'would mean no user impact, but other rows are waiting' },
    { name: 'any incident with nothing waiting affects nobody', rows: [], google: false, affected: false, says: 'No row is waiting for a reply, so no respondent is affected' },
    { name: 'any incident with rows waiting says how many and how old the oldest', rows: [row(2, 'PENDING', T0 - 3 * MINUTE), row(3, 'SENDING', T0 - 4 * MINUTE)], google: false, affected: true, says: '2 respondents are waiting for a reply (PENDING 1, SENDING 1; the oldest has waited 4 min)' },
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
    const lastKnown = healthSnapshotFromJson(healthSnapshotToJson(computeHealth([row(2, 'PENDING', T0 - MINUTE)], T0, SPREADSHEET_URL, 0)), T0 + 10 * MINUTE);
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
    const rows = [row(2, 'PENDING'), row(3, 'FAILED')];
    const first = new IncidentBook(props, fixedClock(T0));
    first.rememberHealth(computeHealth(rows, T0, SPREADSHEET_URL, 0));
    first.commit();
    const second = new IncidentBook(props, fixedClock(T0 + MINUTE));
    second.rememberHealth(computeHealth(rows, T0 + MINUTE, SPREADSHEET_URL, 0));
    expect(second.hasChanges()).toBe(false);
    second.rememberHealth(computeHealth([...rows, row(4, 'PENDING')], T0 + MINUTE, SPREADSHEET_URL, 0));
    expect(second.hasChanges()).toBe(true);
    second.commit();
    expect(new IncidentBook(props, fixedClock(T0 + 2 * MINUTE)).lastKnownHealth()?.counts.PENDING).toBe(2);
  });

  it('the snapshot of a huge queue fits one property and round-trips its figures and links', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => row(i + 2, i % 3 === 0 ? 'FAILED' : 'SENT'));
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
    const health = computeHealth([row(2, 'PENDING', T0 - 9 * MINUTE), row(3, 'AWAITING_APPROVAL', T0 - 60 * MINUTE)], T0, SPREADSHEET_URL, 0);
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
    const book = new IncidentBook(props, fixedClock(T0));
    book.raise('GEMINI_KEY_INVALID', '403');
    book.raise('GEMINI_KEY_INVALID', '403');
    const report = healthReport(computeHealth([], T0), book.all(), T0);
    expect(report.ok).toBe(false);
    expect(report.openIncidents).toEqual([{ code: 'GEMINI_KEY_INVALID', since: '2025-06-01T10:00:00.000Z', count: 2 }]);
    expect(healthReport(healthWhenUnreadable(T0, null), [], T0).ok).toBe(false);
  });

  const needsPersonCases = [
    { name: 'a FAILED row', rows: [row(3, 'FAILED')], ok: false },
    { name: 'a NEEDS_REVIEW row', rows: [row(3, 'NEEDS_REVIEW')], ok: false },
    { name: 'a mistyped status', rows: [row(3, 'SENTT')], ok: false },
    { name: 'an AWAITING_APPROVAL row waiting APPROVAL_WAIT_HOURS (24)', rows: [row(3, 'AWAITING_APPROVAL', T0 - 24 * 60 * MINUTE)], ok: false },
    { name: 'an AWAITING_APPROVAL row one minute younger than that', rows: [row(3, 'AWAITING_APPROVAL', T0 - 24 * 60 * MINUTE + MINUTE)], ok: true },
    { name: 'only finished and waiting rows', rows: [row(3, 'SENT'), row(4, 'PENDING'), row(5, 'SKIPPED')], ok: true },
  ];
  for (const { name, rows, ok } of needsPersonCases) {
    it(`${name}: ok is ${ok}, from the rows read now, whatever the incident says`, () => {
      const report = healthReport(computeHealth(rows, T0), [], T0);
      expect(report.ok).toBe(ok);
      expect(report.needsPerson).toBe(ok ? 0 : 1);
    });
  }

  it('ROWS_NEED_A_PERSON still open from the last run does not hold ok false once the rows are fixed; a passing rate limit never does', () => {
    const book = new IncidentBook(new MemoryProperties(), fixedClock(T0));
    book.raise('ROWS_NEED_A_PERSON', '1 row', [3]);
    book.raise('GEMINI_RATE_LIMITED', '429');
    expect(healthReport(computeHealth([row(3, 'SENT')], T0), book.all(), T0).ok).toBe(true);
  });
});
