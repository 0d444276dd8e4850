// Bounces and the suppression list in the health views: the figures, their one line, and where staff and the operator
// see them (Queue health, doGet's JSON, the daily summary).
import { describe, expect, it } from 'vitest';
import { mailFigures, mailFiguresLine, type MailFigures } from '../../../src/core/triage/mail-figures';
import { computeHealth, healthWhenUnreadable } from '../../../src/core/triage/health';
import { healthSnapshotFromJson, healthSnapshotToJson } from '../../../src/core/triage/health-snapshot';
import { healthReport } from '../../../src/core/triage/health-json';
import { healthDialogHtml } from '../../../src/core/triage/health-view';
import { planDailySummary } from '../../../src/core/triage/daily-summary';
import type { SuppressedEntry } from '../../../src/core/domain/mail/suppression';
import { SPREADSHEET_URL, testSettings } from './fakes';
import { queueRow, T0 } from '../fakes/rows';

const line = (address: string): SuppressedEntry => ({ address, reason: 'asked to stop', addedBy: 'desk', addedAt: null });
const suppressedRow = (rowNumber: number) =>
  queueRow('NEEDS_REVIEW', { rowNumber, error: 'SUPPRESSED: ann@example.org is on the Suppressed sheet (added by desk: asked to stop), so no reply is mailed to it.' });
const rows = [suppressedRow(2), suppressedRow(3), queueRow('NEEDS_REVIEW', { rowNumber: 4, error: 'MAIL_UNKNOWN: may have gone' }), queueRow('SENT', { rowNumber: 5, error: 'BOUNCED: bo@example.org: Address not found' })];
const figures: MailFigures = { bouncesLast24h: 2, suppressedAddresses: 5 };

describe('mailFigures', () => {
  it('counts the Suppressed sheet by mailbox (case, +tag, a display name and blank lines are one or none)', () => {
    const entries = [line('ann@example.org'), line('ANN+news@example.org'), line('Bo <bo@example.org>'), line(''), line('not an address')];
    expect(mailFigures(3, () => entries)).toEqual({ bouncesLast24h: 3, suppressedAddresses: 2 });
  });

  it('a sheet that cannot be read, or no spreadsheet at all, is a figure not known, never an error of the health view', () => {
    expect(mailFigures(null, () => { throw new Error('Service Spreadsheets timed out'); })).toEqual({ bouncesLast24h: null, suppressedAddresses: null });
    expect(mailFigures(0, null)).toEqual({ bouncesLast24h: 0, suppressedAddresses: null });
  });

  it.each([
    [figures, 2, '2 bounces in the last 24 hours; 5 addresses on the Suppressed sheet; 2 rows stopped because their address is suppressed'],
    [{ bouncesLast24h: 1, suppressedAddresses: 1 }, 1, '1 bounce in the last 24 hours; 1 address on the Suppressed sheet; 1 row stopped because its address is suppressed'],
    [{ bouncesLast24h: null, suppressedAddresses: null }, 0, 'bounces not checked (RECONCILE_BOUNCES off); the Suppressed sheet could not be read; 0 rows stopped because their address is suppressed'],
  ] as [MailFigures, number, string][])('the line says each figure, or that it is not known: %j', (given, stopped, expected) => {
    expect(mailFiguresLine(given, stopped)).toBe(expected);
  });
});

describe('rows stopped because their address is suppressed', () => {
  it('are counted from the rows (NEEDS_REVIEW with SUPPRESSED), still among the rows that need a person', () => {
    const health = computeHealth(rows, T0);
    expect(health.rowsSuppressed).toBe(2);
    expect(health.needsPersonCount).toBe(3);
  });

  it('are kept in the health snapshot for when Sheets is down; a snapshot from before them reads 0', () => {
    const health = computeHealth(rows, T0);
    const back = healthSnapshotFromJson(healthSnapshotToJson(health), T0 + 60_000);
    expect(back?.rowsSuppressed).toBe(2);
    expect(healthWhenUnreadable(T0 + 60_000, back).rowsSuppressed).toBe(2);
    const old = JSON.parse(healthSnapshotToJson(health));
    delete old.x;
    expect(healthSnapshotFromJson(JSON.stringify(old), T0)?.rowsSuppressed).toBe(0);
  });
});

describe('where the figures are shown', () => {
  it('doGet: `bounces` with the three figures; a bounce alone does not make ok false', () => {
    const report = healthReport(computeHealth([queueRow('SENT', { rowNumber: 2, error: 'BOUNCED: x' })], T0), [], T0, { mail: figures });
    expect(report.ok).toBe(true);
    expect(report.bounces).toEqual({ last24h: 2, suppressedAddresses: 5, rowsSuppressed: 0 });
    expect(healthReport(computeHealth(rows, T0), [], T0, { mail: { bouncesLast24h: null, suppressedAddresses: 1 } }).bounces).toEqual({ last24h: null, suppressedAddresses: 1, rowsSuppressed: 2 });
  });

  it('the Queue health dialog: one line, escaped', () => {
    const html = healthDialogHtml(computeHealth(rows, T0), [], T0, false, { mail: figures });
    expect(html).toContain('<p><b>Bounces and suppression:</b> 2 bounces in the last 24 hours; 5 addresses on the Suppressed sheet; 2 rows stopped because their address is suppressed.</p>');
    expect(healthDialogHtml(computeHealth(rows, T0), [], T0, false)).not.toContain('Bounces and suppression');
  });

  it('the daily summary: a field, with the Suppressed sheet read only when the summary goes', () => {
    let reads = 0;
    const mail = () => {
      reads++;
      return figures;
    };
    const base = { dateKey: '2025-06-01', lastSentDateKey: '2025-05-31', health: computeHealth(rows, T0, SPREADSHEET_URL, 0), incidents: [], history: [], now: T0, remainingMailQuota: 100, mail };
    expect(planDailySummary({ ...base, settings: testSettings() })).toBeNull();
    expect(planDailySummary({ ...base, lastSentDateKey: '2025-06-01', settings: testSettings({ DAILY_SUMMARY: 'true' }) })).toBeNull();
    expect(reads).toBe(0);
    const summary = planDailySummary({ ...base, settings: testSettings({ DAILY_SUMMARY: 'true' }) });
    expect(summary?.body).toContain('Bounces and suppression: 2 bounces in the last 24 hours; 5 addresses on the Suppressed sheet; 2 rows stopped because their address is suppressed');
    expect(reads).toBe(1);
  });
});
