// The Queue health dialog's HTML.
import { describe, expect, it } from 'vitest';
import { healthDialogHtml } from '../../../src/core/triage/health-view';
import { computeHealth } from '../../../src/core/triage/health';
import type { Incident } from '../../../src/core/triage/incident-record';
import { DAY, repliedRow, T0 } from '../fakes/rows';
import { needsRow } from './fakes';
import { INCIDENTS } from '../../../src/core/triage/incident-catalog';

const incident = (patch: Partial<Incident>): Incident => ({
  code: 'GEMINI_DAILY_QUOTA',
  firstSeen: T0 - 3600_000,
  lastSeen: T0,
  count: 3,
  runs: 3,
  rows: [],
  rowCount: 0,
  detail: 'quota <exceeded>',
  lastMailedAt: null,
  mailsSent: 0,
  state: 'open',
  clearedAt: null,
  ...patch,
});

describe('the Queue health dialog', () => {
  const rows = [repliedRow('PENDING', { rowNumber: 2, receivedAt: T0 - DAY }), repliedRow('PENDING', { rowNumber: 3, receivedAt: T0 - 2 * DAY }), repliedRow('FAILED', { rowNumber: 4 }), repliedRow('SENT', { rowNumber: 5 })];
  // Built inside each test, not while the file is collected: a mutation-testing run activates its mutant per test.
  const health = () => computeHealth(rows, T0, 'https://docs.google.com/spreadsheets/d/abc/edit', 0);

  it('shows counts by status, the oldest PENDING age, rows needing a person with links, and open incidents only', () => {
    const html = healthDialogHtml(health(), [incident({}), incident({ code: 'SHEETS_UNAVAILABLE', state: 'cleared' })], T0, false);
    expect(html).toMatch(/PENDING<\/td><td[^>]*>2</);
    expect(html).toMatch(/FAILED<\/td><td[^>]*>1</);
    expect(html).toContain('2 d ago');
    expect(html).toContain('1 row needs a person');
    expect(html).toContain('range=A4');
    expect(html).toContain('quota &lt;exceeded&gt;');
    expect(html).not.toContain('Sheets unavailable');
    expect(html).not.toContain('Paused');
  });

  it('says when the queue is paused, empty and calm', () => {
    const html = healthDialogHtml(computeHealth([], T0), [], T0, true);
    expect(html).toContain('Paused');
    expect(html).toContain('The Queue is empty.');
    expect(html).toContain('No open incidents.');
  });
});

describe('the Queue health dialog, exactly', () => {
  const exact = () => {
    const base = computeHealth([], T0);
    return {
      ...base,
      counts: { ...base.counts, PENDING: 2, FAILED: 1 },
      unknownStatus: 1,
      spilled: 3,
      oldestPendingAt: T0 - 90 * 60_000,
      needsPersonCount: 4,
      needsPerson: [
        needsRow(7, 'FAILED', 'https://example.com/s#gid=0&range=A7'),
        needsRow(9, '', null),
      ],
      userImpact: { affected: true, statement: 'Respondents wait <longer>.' },
    };
  };

  it('lists each non-zero status in table order, the mistyped ones, spill, oldest PENDING, rows for a person and incidents', () => {
    const html = healthDialogHtml(exact(), [incident({ count: 2, detail: 'a & b' })], T0, false);
    expect(html.split('\n')).toEqual([
      '<div style="font-family:Arial,sans-serif;font-size:13px">',
      '<table style="border-collapse:collapse">',
      '<tr><td style="background:#fff2cc;padding:2px 8px">PENDING</td><td style="padding:2px 8px;text-align:right">2</td></tr>',
      '<tr><td style="background:#ea9999;padding:2px 8px">FAILED</td><td style="padding:2px 8px;text-align:right">1</td></tr>',
      '<tr><td style="padding:2px 8px">not a status</td><td style="padding:2px 8px;text-align:right">1</td></tr>',
      '</table>',
      '<p>3 deliveries wait outside the sheet (kept while Sheets was unavailable).</p>',
      '<p>Oldest PENDING: received 2025-06-01 08:30 UTC, 1 h 30 min ago.</p>',
      '<p><b>4 rows need a person:</b> <a href="https://example.com/s#gid=0&amp;range=A7" target="_top">row 7 (FAILED)</a>, row 9 (empty), and 2 more.</p>',
      '<p><b>Open incidents</b></p><ul>',
      expect.stringMatching(/^<li><b>Gemini daily quota used up<\/b> since 2025-06-01 09:00 UTC \(2×\): a &amp; b<br><i>Next step:<\/i> .+<\/li>$/),
      '</ul>',
      '<p style="color:#666">Respondents wait &lt;longer&gt;.</p></div>',
    ]);
  });

  it('one row for a person "needs", and no "more" when all are listed', () => {
    const health = exact();
    const html = healthDialogHtml({ ...health, needsPersonCount: 1, needsPerson: [health.needsPerson[1]] }, [], T0, false);
    expect(html).toContain('<p><b>1 row needs a person:</b> row 9 (empty).</p>');
  });

  it('a queue with only mistyped rows is not called empty, and no spill line without a spill', () => {
    const html = healthDialogHtml({ ...computeHealth([], T0), unknownStatus: 2 }, [], T0, false);
    expect(html).not.toContain('The Queue is empty.');
    expect(html).not.toContain('deliveries wait outside');
    expect(html).not.toContain('need a person');
    expect(html).toContain('<p>No PENDING rows.</p>');
  });
});

describe('the dialog in staff words', () => {
  it('shows an incident\'s next step and the missed-deliveries note without a repository path', () => {
    const open = incident({ code: 'SENT_CHECK_FAILED' });
    const html = healthDialogHtml(computeHealth([], T0), [open], T0, { paused: false, typeformTokenSet: false });
    expect(INCIDENTS.SENT_CHECK_FAILED.nextStep).toContain('(docs/oauth-scopes.md)');
    expect(html).toContain('accept the consent screen; or set RECONCILE_SENT_MAIL off');
    expect(html).toContain('Missed');
    expect(html).not.toMatch(/docs\/\S+\.md/);
  });
});

describe('the dialog with runs overdue, usage figures and an object state', () => {
  it('a queue not paused (given as an object with the token set) shows the overdue banner and the usage sections, and no pause', () => {
    const html = healthDialogHtml(computeHealth([], T0), [], T0, { paused: false, typeformTokenSet: true }, {
      gap: { lastRunAt: T0 - 3 * 60 * 60_000, minutes: 180 },
      usage: [{ title: 'Today <UTC>', lines: ['3 replies', '1 & 2 tokens'] }, { title: 'Month', lines: ['9 replies'] }],
    });
    expect(html.split('\n')).toEqual([
      '<div style="font-family:Arial,sans-serif;font-size:13px">',
      '<p style="background:#f4cccc;padding:6px"><b>Queue runs are overdue</b>: no processQueue run for 3 h 0 min (last 2025-06-01 07:00 UTC) while deliveries wait. Apps Script ran no processQueue trigger: most often the account&#39;s daily trigger runtime is used up (&quot;Service using too much computer time for one day&quot;; 90 min a day on a consumer account, 6 h on Workspace), otherwise the trigger was removed or disabled, or Google failed. Deliveries are still recorded; replies wait until runs are possible again.</p>',
      '<table style="border-collapse:collapse">',
      '</table>',
      '<p>The Queue is empty.</p>',
      '<p>No PENDING rows.</p>',
      '<p>No open incidents.</p>',
      '<p><b>Replies, tokens and estimated cost</b></p>',
      '<p><i>Today &lt;UTC&gt;</i><br>3 replies<br>1 &amp; 2 tokens</p>',
      '<p><i>Month</i><br>9 replies</p>',
      '<p style="color:#666">No row is waiting for a reply, so no respondent is affected: 0 PENDING, nothing else waiting.</p></div>',
    ]);
  });
});
