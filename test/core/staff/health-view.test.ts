// The Queue health dialog's HTML.
import { describe, expect, it } from 'vitest';
import { healthDialogHtml } from '../../../src/core/staff/health-view';
import { computeHealth } from '../../../src/core/triage/health';
import type { Incident } from '../../../src/core/triage/incident-record';
import { DAY, row, T0 } from './rows';

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
  const rows = [row('PENDING', { receivedAt: T0 - DAY }, 2), row('PENDING', { receivedAt: T0 - 2 * DAY }, 3), row('FAILED', {}, 4), row('SENT', {}, 5)];
  const health = computeHealth(rows, T0, 'https://docs.google.com/spreadsheets/d/abc/edit', 0);

  it('shows counts by status, the oldest PENDING age, rows needing a person with links, and open incidents only', () => {
    const html = healthDialogHtml(health, [incident({}), incident({ code: 'SHEETS_UNAVAILABLE', state: 'cleared' })], T0, false);
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
