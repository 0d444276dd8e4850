import { describe, expect, it } from 'vitest';
import { planDailySummary } from '../../../src/core/triage/daily-summary';
import type { DailySummaryInput } from '../../../src/core/triage/daily-summary';
import { computeHealth } from '../../../src/core/triage/health';
import { IncidentBook } from '../../../src/core/triage/incidents';
import { API_KEY, MINUTE, MemoryProperties, SPREADSHEET_URL, T0, fixedClock, row, runOnce, testSettings } from './fakes';

function input(overrides: Partial<DailySummaryInput> = {}): DailySummaryInput {
  return {
    dateKey: '2025-06-01',
    lastSentDateKey: '2025-05-31',
    health: computeHealth([row(2, 'SENT'), row(3, 'PENDING'), row(4, 'FAILED')], T0, SPREADSHEET_URL, 0),
    incidents: [],
    history: [],
    now: T0,
    settings: testSettings({ DAILY_SUMMARY: 'true' }),
    remainingMailQuota: 100,
    ...overrides,
  };
}

describe('daily summary', () => {
  const silentCases: { name: string; overrides: Partial<DailySummaryInput> }[] = [
    { name: 'DAILY_SUMMARY is off', overrides: { settings: testSettings() } },
    { name: 'it was already sent for this date', overrides: { lastSentDateKey: '2025-06-01' } },
    { name: 'the mail quota cannot cover every staff address', overrides: { remainingMailQuota: 1 } },
    { name: 'no staff address is set', overrides: { settings: testSettings({ DAILY_SUMMARY: 'on', STAFF_EMAILS: '' }) } },
  ];
  for (const { name, overrides } of silentCases) {
    it(`is not sent when ${name}`, () => {
      expect(planDailySummary(input(overrides))).toBeNull();
    });
  }

  it('lists counts per status, rows needing a person and the incidents of the day', () => {
    const props = new MemoryProperties();
    runOnce(props, T0 - 120 * MINUTE, (book) => book.raise('SHEETS_UNAVAILABLE', 'INTERNAL'));
    runOnce(props, T0 - 100 * MINUTE, (book) => book.clear('SHEETS_UNAVAILABLE'));
    runOnce(props, T0 - 90 * MINUTE, () => undefined); // recovery mailed: now only in the history
    runOnce(props, T0 - 10 * MINUTE, (book) => book.raise('GEMINI_KEY_INVALID', `bad key ${API_KEY}`));
    const book = new IncidentBook(props, fixedClock(T0));
    const mail = planDailySummary(input({ incidents: book.all(), history: book.recentHistory() }));
    expect(mail?.to).toBe('duty@example.org,lead@example.org');
    expect(mail?.subject).toBe('[formqueue] Daily summary 2025-06-01 — 1 waiting, 1 need a person, 2 incidents');
    expect(mail?.body).toContain('Queue: PENDING 1, GENERATING 0');
    expect(mail?.body).toContain(`row 4 (FAILED): ${SPREADSHEET_URL}#gid=0&range=A4`);
    expect(mail?.body).toContain('Gemini API key invalid (GEMINI_KEY_INVALID): open since 2025-06-01 09:50 UTC, seen 1 time');
    expect(mail?.body).toContain('Sheets unavailable (SHEETS_UNAVAILABLE): resolved 2025-06-01 08:20 UTC after 20 min, seen 1 time');
    expect(mail?.body).not.toContain(API_KEY);
  });

  it('is sent once per date: the book remembers the date key', () => {
    const props = new MemoryProperties();
    const sent: string[] = [];
    for (const [at, dateKey] of [[T0, '2025-06-01'], [T0 + MINUTE, '2025-06-01'], [T0 + 24 * 60 * MINUTE, '2025-06-02']] as const) {
      const book = new IncidentBook(props, fixedClock(at));
      const mail = planDailySummary(input({ now: at, dateKey, lastSentDateKey: book.lastDailySummaryDate() }));
      if (mail) {
        sent.push(dateKey);
        book.markDailySummarySent(dateKey);
      }
      book.commit();
    }
    expect(sent).toEqual(['2025-06-01', '2025-06-02']);
  });
});
