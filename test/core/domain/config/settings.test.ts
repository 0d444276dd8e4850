import { describe, expect, it } from 'vitest';
import { geminiBaseUrlProblem, readSettings, secretValues, tokenProblem } from '../../../../src/core/domain/config/settings';

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

  it.each([
    ['https://generativelanguage.googleapis.com', null],
    ['https://proxy.example.com:8443/gemini', null],
    ['http://127.0.0.1:51234', null],
    ['http://localhost:8080', null],
    ['http://[::1]:9000', null],
    ['http://generativelanguage.googleapis.com', /must be https:\/\/ \(plain http:\/\/ only to localhost/],
    ['http://127.0.0.1.evil.example', /must be https:\/\//],
    ['http://localhost@evil.example', /must be/],
    ['ftp://example.com', /must be an https:\/\/ URL/],
    ['generativelanguage.googleapis.com', /must be an https:\/\/ URL/],
  ])('GEMINI_BASE_URL %s: %s', (url, problem) => {
    const found = geminiBaseUrlProblem(url);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it('a plain-http GEMINI_BASE_URL to another host falls back to the default, with the reason', () => {
    const { settings, problems } = readSettings({ GEMINI_BASE_URL: 'http://gemini.example.com' });
    expect(settings.geminiBaseUrl).toBe('https://generativelanguage.googleapis.com');
    expect(problems[0]).toMatch(/^Script Property GEMINI_BASE_URL must be https:\/\//);
  });

  it.each([
    ['', null],
    ['Wk7-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca', null],
    ['e2e-webhook-token-7f3a9c1d2b4e6f80', null],
    ['short', /is 5 characters long; it must be at least 32 random characters/],
    ['ab'.repeat(20), /repeats too few characters to be random/],
  ])('token %j: %s', (value, problem) => {
    const found = tokenProblem(value);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it('a weak WEBHOOK_TOKEN, WEBHOOK_TOKEN_PREVIOUS or HEALTH_TOKEN is a problem that never shows the value', () => {
    const { problems } = readSettings({ WEBHOOK_TOKEN: 'hunter2hunter2', WEBHOOK_TOKEN_PREVIOUS: 'old-pass', HEALTH_TOKEN: 'ping' });
    expect(problems.map((problem) => problem.split(' ').slice(0, 3).join(' '))).toEqual([
      'Script Property WEBHOOK_TOKEN',
      'Script Property WEBHOOK_TOKEN_PREVIOUS',
      'Script Property HEALTH_TOKEN',
    ]);
    expect(problems.join('\n')).not.toMatch(/hunter2|old-pass|ping"/);
  });

  it('secretValues names every secret, HEALTH_TOKEN and TYPEFORM_TOKEN included', () => {
    const { settings } = readSettings({ WEBHOOK_TOKEN: 'w', WEBHOOK_TOKEN_PREVIOUS: 'p', HEALTH_TOKEN: 'h', GEMINI_API_KEY: 'k', TYPEFORM_TOKEN: 't' });
    expect(secretValues(settings).sort()).toEqual(['h', 'k', 'p', 't', 'w']);
  });
});
