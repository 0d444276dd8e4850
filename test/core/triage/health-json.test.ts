// The health JSON answer (healthReport): which open incidents it lists beside the rows read now.
import { describe, expect, it } from 'vitest';
import { healthReport } from '../../../src/core/triage/health-json';
import { computeHealth } from '../../../src/core/triage/health';
import type { Incident } from '../../../src/core/triage/incident-record';
import { queueRow, T0 } from '../fakes/rows';

const rowsNeedAPerson = (): Incident => ({
  code: 'ROWS_NEED_A_PERSON',
  firstSeen: T0 - 3 * 3600_000,
  lastSeen: T0,
  count: 5,
  runs: 5,
  rows: [4],
  rowCount: 1,
  detail: 'row 4 failed',
  lastMailedAt: null,
  mailsSent: 0,
  state: 'open',
  clearedAt: null,
});

describe('healthReport', () => {
  it('a readable queue with a row still needing a person lists the open ROWS_NEED_A_PERSON incident', () => {
    const health = computeHealth([queueRow('FAILED', { rowNumber: 4 })], T0);
    const report = healthReport(health, [rowsNeedAPerson()], T0);
    expect(report.needsPerson).toBe(1);
    expect(report.openIncidents).toEqual([{ code: 'ROWS_NEED_A_PERSON', since: new Date(T0 - 3 * 3600_000).toISOString(), count: 5 }]);
  });

  it('a readable queue with no row needing a person leaves the open ROWS_NEED_A_PERSON incident out', () => {
    const report = healthReport(computeHealth([], T0), [rowsNeedAPerson()], T0);
    expect(report.openIncidents).toEqual([]);
  });
});
