// The account and spreadsheet checks' verdicts from observations (each assumption passes only on the evidence that proves it), the Gemini probe and the report.
import { describe, expect, it } from 'vitest';
import { judgeIdentity, judgeMailQuota, judgePlainText, judgeTextFinder, judgeTriggers, PLAIN_TEXT_SAMPLES } from '../../../src/core/self-test/checks';
import { judgeMissedWebhookRecovery } from '../../../src/core/self-test/service-checks';
import type { CheckResult } from '../../../src/core/self-test/check-result';
import { geminiProbeRequest, selfTestLogEntries, selfTestReport } from '../../../src/core/self-test/report';
import { generationConfigFor } from '../../../src/core/domain/gemini/gemini';

const ok = <T>(value: T) => ({ ok: true as const, value });
const err = (error: string) => ({ ok: false as const, error });
const pass = judgeIdentity({ activeUser: 'owner@example.com', webApp: ok('owner@example.com') });

describe('plain text on appended rows', () => {
  it.each([
    ['every value read back as the same string', PLAIN_TEXT_SAMPLES.slice(), 'pass'],
    ['a leading zero lost (a number)', [7, ...PLAIN_TEXT_SAMPLES.slice(1)], 'fail'],
    ['a date string turned into a Date', PLAIN_TEXT_SAMPLES.map((v, i) => (i === 2 ? new Date('2026-01-02T00:00:00Z') : v)), 'fail'],
    ['"=1+1" evaluated', PLAIN_TEXT_SAMPLES.map((v) => (v === '=1+1' ? 2 : v)), 'fail'],
  ])('%s: %s', (_, read, verdict) => {
    const result = judgePlainText(ok({ read, formats: PLAIN_TEXT_SAMPLES.map(() => '@') }));
    expect(result.verdict).toBe(verdict);
    expect(result.evidence).toContain('"007" →');
  });

  it('a probe that threw is unknown, with the error as evidence', () => {
    expect(judgePlainText(err('Exception: Service Spreadsheets failed'))).toMatchObject({ verdict: 'unknown', evidence: expect.stringContaining('Service Spreadsheets failed') });
  });
});

describe('TextFinder', () => {
  it.each([
    [[3], 'pass'],
    [[1, 3], 'fail'], // matched the lower-case cell: not case-sensitive
    [[2, 3, 4], 'fail'], // matched the cells with a prefix or suffix: not whole-cell
    [[], 'fail'],
  ])('rows %j for a needle in row 3: %s', (matchedRows, verdict) => {
    expect(judgeTextFinder(ok({ needle: 'Ab1', matchedRows, expectedRow: 3 })).verdict).toBe(verdict);
  });
});

describe('who runs it vs who the web app runs as', () => {
  it.each([
    ['the same account', 'owner@example.com', ok('owner@example.com'), 'pass'],
    ['the same account, other letter case', 'Owner@Example.com', ok('owner@example.com'), 'pass'],
    ['another person', 'staff@example.com', ok('owner@example.com'), 'fail'],
    ['Google hides the active user', '', ok('owner@example.com'), 'unknown'],
    ['the web app cannot be asked', 'owner@example.com', err('HTTP 404'), 'unknown'],
  ])('%s: %s', (_, activeUser, webApp, verdict) => {
    const result = judgeIdentity({ activeUser, webApp });
    expect(result.verdict).toBe(verdict);
    if (verdict === 'fail') expect(result.advice).toContain('Triggers you create run as you');
  });
});

describe('triggers', () => {
  const both = [{ handler: 'processQueue', type: 'CLOCK' }, { handler: 'onEditInstallable', type: 'ON_EDIT' }];
  it.each([
    ['both, as the deployer', both, pass, 'pass'],
    ['processQueue missing', [both[1]], pass, 'fail'],
    ['processQueue twice', [both[0], ...both], pass, 'fail'],
    ['both, but run by someone else', both, judgeIdentity({ activeUser: 'staff@example.com', webApp: ok('owner@example.com') }), 'unknown'],
    ['both, deployer unknown', both, judgeIdentity({ activeUser: '', webApp: ok('owner@example.com') }), 'unknown'],
  ])('%s: %s', (_, triggers, identity: CheckResult, verdict) => {
    expect(judgeTriggers(ok(triggers), identity).verdict).toBe(verdict);
  });
});

describe('mail quota and the Gemini probe', () => {
  it('mail quota: a positive number passes, 0 or an error fails', () => {
    expect(judgeMailQuota(ok(97)).verdict).toBe('pass');
    expect(judgeMailQuota(ok(0)).verdict).toBe('fail');
    expect(judgeMailQuota(err('You do not have permission to call MailApp.getRemainingDailyQuota')).verdict).toBe('fail');
  });

  it.each(['gemini-3.5-flash', 'gemini-2.5-flash', 'gemini-flash-latest'])('the Gemini probe for %s sends the reply\'s own generation and thinking settings', (model) => {
    expect(geminiProbeRequest(model)).toMatchObject({ model, body: { generationConfig: generationConfigFor(model) } });
  });
});

describe('the report', () => {
  it('counts the verdicts, gives evidence for each and the doc section for what to do, and one Log line per check', () => {
    const results = [pass, judgeMailQuota(ok(0))];
    const report = selfTestReport(results, Date.UTC(2026, 11, 1, 8, 5));
    expect(report.split('\n')[0]).toBe('formqueue self-test, 2026-12-01 08:05 UTC: 1 pass, 1 fail, 0 unknown');
    expect(report).toContain('PASS: You (running this) and the account the web app runs as');
    expect(report).toContain('FAIL: The mail quota can be read');
    expect(report).toContain('(docs/self-test.md#mail-quota)');
    expect(selfTestLogEntries(results, 'owner@example.com', 1)).toEqual([
      expect.objectContaining({ eventId: 'self-test', to: 'PASS', by: 'owner@example.com' }),
      expect.objectContaining({ eventId: 'self-test', to: 'FAIL', detail: expect.stringContaining('getRemainingDailyQuota() = 0') }),
    ]);
  });

  it('counts a warn in the head line and labels it WARN, with the doc section', () => {
    const report = selfTestReport([pass, judgeMissedWebhookRecovery(false)], Date.UTC(2026, 11, 1, 8, 5));
    expect(report.split('\n')[0]).toBe('formqueue self-test, 2026-12-01 08:05 UTC: 1 pass, 0 fail, 0 unknown, 1 warn');
    expect(report).toContain('WARN: Missed-webhook recovery (the daily Typeform check)');
    expect(report).toContain('(docs/self-test.md#missed-webhooks)');
  });
});
