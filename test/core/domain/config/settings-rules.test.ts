// Script Properties read into settings: trimming, lists, flags, each knob's bounds and the words of each problem.
import { describe, expect, it } from 'vitest';
import { DEFAULT_GEMINI_BASE_URL, DEFAULT_GEMINI_MODEL, readSettings } from '../../../../src/core/domain/config/settings';

describe('readSettings', () => {
  it('with nothing set: empty secrets and ids, the default model and endpoint, every knob at its fallback, flags off', () => {
    const { settings, problems } = readSettings({});
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({
      webhookToken: '', webhookTokenPrevious: '', geminiApiKey: '', geminiModel: DEFAULT_GEMINI_MODEL, geminiBaseUrl: DEFAULT_GEMINI_BASE_URL,
      typeformToken: '', spreadsheetId: '', staffEmails: [], geminiConcurrency: 4, maxAttempts: 5, retryBaseSeconds: 60,
      runBudgetSeconds: 270, staleGeneratingMinutes: 10, staleSendingMinutes: 15, maxMailsPerRun: 50, maxMailsPerRecipientPerDay: 5,
      archiveAfterDays: 30, triageReminderMinutes: 60, approvalWaitHours: 24, paused: false, dailySummary: false,
    });
  });

  it('trims every value and splits staff addresses on commas, semicolons and spaces', () => {
    const { settings } = readSettings({
      WEBHOOK_TOKEN: ' tok ', WEBHOOK_TOKEN_PREVIOUS: ' old ', GEMINI_API_KEY: ' key\n', GEMINI_MODEL: ' m ', SPREADSHEET_ID: ' id ',
      TYPEFORM_TOKEN: ' tf ', STAFF_EMAILS: ' a@x.y, b@x.y;c@x.y  d@x.y ,, ',
    });
    expect(settings).toMatchObject({ webhookToken: 'tok', webhookTokenPrevious: 'old', geminiApiKey: 'key', geminiModel: 'm', spreadsheetId: 'id', typeformToken: 'tf' });
    expect(settings.staffEmails).toEqual(['a@x.y', 'b@x.y', 'c@x.y', 'd@x.y']);
  });

  it('drops trailing slashes from the Gemini endpoint and accepts http:// for a local stand-in', () => {
    expect(readSettings({ GEMINI_BASE_URL: 'http://127.0.0.1:8787///' }).settings.geminiBaseUrl).toBe('http://127.0.0.1:8787');
  });

  it('refuses an endpoint that is not http(s), naming it, and uses the default', () => {
    const { settings, problems } = readSettings({ GEMINI_BASE_URL: 'ftp://x.test' });
    expect(settings.geminiBaseUrl).toBe(DEFAULT_GEMINI_BASE_URL);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^Script Property GEMINI_BASE_URL must .*\(it is "ftp:\/\/x\.test"\).*; using https:\/\/generativelanguage\.googleapis\.com\.$/);
    expect(readSettings({ GEMINI_BASE_URL: 'see https://x.test' }).problems).toHaveLength(1);
  });

  it.each<[string, boolean]>([['true', true], ['YES', true], [' on ', true], ['1', true], ['', false], ['false', false], ['no', false], ['truely', false], ['0', false]])(
    'PAUSED=%j reads as %s', (value, paused) => expect(readSettings({ PAUSED: value, DAILY_SUMMARY: value }).settings).toMatchObject({ paused, dailySummary: paused }));

  it.each<[string, string, number]>([
    ['GEMINI_CONCURRENCY', '1', 1],
    ['GEMINI_CONCURRENCY', '20', 20],
    ['MAX_ATTEMPTS', ' 7 ', 7],
    ['RUN_BUDGET_SECONDS', '330', 330],
    ['STALE_GENERATING_MINUTES', '7', 7],
    ['TRIAGE_REMINDER_MINUTES', '10080', 10080],
    ['APPROVAL_WAIT_HOURS', '1', 1],
    ['APPROVAL_WAIT_HOURS', '720', 720],
  ])('%s=%j is accepted at its bounds', (key, value, expected) => {
    const { settings, problems } = readSettings({ [key]: value });
    expect(problems).toEqual([]);
    expect(Object.values(settings)).toContain(expected);
  });

  it.each<[string, string]>([['GEMINI_CONCURRENCY', '0'], ['GEMINI_CONCURRENCY', '21'], ['MAX_ATTEMPTS', '2.5'], ['MAX_ATTEMPTS', 'five'], ['STALE_SENDING_MINUTES', '6'], ['APPROVAL_WAIT_HOURS', '0'], ['APPROVAL_WAIT_HOURS', '721'], ['APPROVAL_WAIT_HOURS', '1.5']])(
    '%s=%j is refused with its range and the fallback used', (key, value) => {
      const { settings, problems } = readSettings({ [key]: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^Script Property ${key} must be a whole number from \\d+ to \\d+ \\(it is "${value}"\\); using \\d+\\. Fix it in Project Settings → Script Properties\\.$`));
      expect(settings).toEqual({ ...readSettings({}).settings });
    });

  it('the range and fallback in a problem are the knob\'s own', () => {
    expect(readSettings({ GEMINI_CONCURRENCY: '99' }).problems[0]).toContain('from 1 to 20 (it is "99"); using 4.');
  });
});
