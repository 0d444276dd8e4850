import { describe, expect, it } from 'vitest';
import { parseSettingAssignment, readSettings } from '../../src/core/settings';

describe('readSettings', () => {
  it('gives the documented defaults when nothing is set', () => {
    const { settings, problems } = readSettings({});
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({ geminiConcurrency: 4, maxAttempts: 5, retryBaseSeconds: 60, runBudgetSeconds: 270, staleGeneratingMinutes: 10, staleSendingMinutes: 15, maxMailsPerRun: 50, maxMailsPerRecipientPerDay: 5, paused: false });
  });

  it('names a bad knob and how to fix it, keeping the default', () => {
    const { settings, problems } = readSettings({ GEMINI_CONCURRENCY: 'lots' });
    expect(settings.geminiConcurrency).toBe(4);
    expect(problems[0]).toMatch(/^Script Property GEMINI_CONCURRENCY must be a whole number from 1 to 20 \(it is "lots"\)/);
  });
});

describe('parseSettingAssignment (the menu prompt)', () => {
  it.each([
    ['a known key', 'STAFF_EMAILS = desk@example.com', { ok: true, key: 'STAFF_EMAILS', value: 'desk@example.com' }],
    ['a lower-case key', 'gemini_model=gemini-3.5-flash', { ok: true, key: 'GEMINI_MODEL', value: 'gemini-3.5-flash' }],
    ['an empty value (remove)', 'WEBHOOK_TOKEN_PREVIOUS=', { ok: true, key: 'WEBHOOK_TOKEN_PREVIOUS', value: '' }],
    ['a value containing =', 'GEMINI_API_KEY=abc=def', { ok: true, key: 'GEMINI_API_KEY', value: 'abc=def' }],
  ])('accepts %s', (_name, text, expected) => {
    expect(parseSettingAssignment(text, {})).toEqual(expected);
  });

  it.each([
    ['no equals sign', 'STAFF_EMAILS', /Type KEY=VALUE/],
    ['an unknown key', 'SPREADSHEET=abc', /SPREADSHEET is not a property formqueue reads/],
    ['a knob out of range', 'GEMINI_CONCURRENCY=99', /GEMINI_CONCURRENCY must be a whole number from 1 to 20/],
  ])('refuses %s, saying why', (_name, text, message) => {
    const parsed = parseSettingAssignment(text, {});
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });
});
