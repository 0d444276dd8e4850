// Settings at their edges: what a switch accepts, a bad Typeform or Gemini URL, a token of too few distinct characters, and unreadable prices.
import { describe, expect, it } from 'vitest';
import { geminiBaseUrlProblem, readSettings, tokenProblem } from '../../../../src/core/domain/config/settings';

describe('a switch (PAUSED, DAILY_SUMMARY, RECONCILE_SENT_MAIL, RECONCILE_RESEND)', () => {
  it.each([
    ['true', true],
    [' YES ', true],
    ['on', true],
    ['1', true],
    ['untrue', false],
    ['trueish', false],
    ['no', false],
    ['10', false],
    ['', false],
  ])('%j is %s', (value, on) => {
    const { settings } = readSettings({ PAUSED: value, DAILY_SUMMARY: value, RECONCILE_SENT_MAIL: value, RECONCILE_RESEND: value });
    expect([settings.paused, settings.dailySummary, settings.reconcileSentMail, settings.reconcileResend]).toEqual([on, on, on, on]);
  });

  it('unset is off', () => {
    expect(readSettings({}).settings.paused).toBe(false);
  });
});

describe('TYPEFORM_BASE_URL', () => {
  it('a value that is no http(s) URL is named in the problem and the default is used', () => {
    const { settings, problems } = readSettings({ TYPEFORM_BASE_URL: 'ftp://api.typeform.com' });
    expect(problems).toEqual(['Script Property TYPEFORM_BASE_URL must start with https:// or http:// (it is "ftp://api.typeform.com"); using https://api.typeform.com.']);
    expect(settings.typeformBaseUrl).toBe('https://api.typeform.com');
  });
});

describe('TYPEFORM_BASE_URL as set', () => {
  it.each([
    ['the EU API with trailing slashes: the slashes dropped', 'https://api.eu.typeform.com//', 'https://api.eu.typeform.com'],
    ["the local runtime's plain http:// stand-in", 'http://localhost:8080/typeform/', 'http://localhost:8080/typeform'],
  ])('%s', (_case, value, used) => {
    expect(readSettings({ TYPEFORM_BASE_URL: value })).toMatchObject({ settings: { typeformBaseUrl: used }, problems: [] });
  });

  it('a URL that only contains https:// further on is refused, and the default is used', () => {
    const { settings, problems } = readSettings({ TYPEFORM_BASE_URL: 'see https://api.typeform.com' });
    expect(settings.typeformBaseUrl).toBe('https://api.typeform.com');
    expect(problems).toHaveLength(1);
  });
});

describe('GEMINI_BASE_URL refused at its edges', () => {
  it.each([
    ['https:// with no host', 'https:///v1beta'],
    ['another scheme to this machine (only plain http:// may go to localhost)', 'ftp://localhost:8080'],
  ])('%s', (_case, url) => {
    expect(geminiBaseUrlProblem(url)).toBe(`must be an https:// URL (it is "${url}")`);
  });
});

describe('a token has at least 10 distinct characters', () => {
  it.each([
    ['10 distinct in 32: accepted', '0123456789'.repeat(4).slice(0, 32), null],
    ['9 distinct in 36: too plain', '012345678'.repeat(4), 'repeats too few characters to be random; it must be at least 32 random characters'],
  ])('%s', (_case, value, problem) => {
    expect(tokenProblem(value)).toBe(problem);
  });
});

describe('GEMINI_PRICES', () => {
  it('names every entry it cannot read, separated by semicolons, and ignores them', () => {
    const { settings, problems } = readSettings({ GEMINI_PRICES: 'my-model=0.3/2.5; cheap-model=free; other=1/2/3' });
    expect(settings.geminiPrices['my-model']).toEqual({ input: 0.3, output: 2.5 });
    expect(problems).toEqual([
      'Script Property GEMINI_PRICES has entries it cannot read (cheap-model=free; other=1/2/3): write model=input/output in US dollars per 1M tokens, e.g. gemini-3.5-flash=1.50/9.00; those entries are ignored.',
    ]);
  });
});
