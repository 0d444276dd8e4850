// Each self-test check in full: the verdict, the evidence the operator reads and the advice for every branch, exactly.
import { MISSED_DELIVERIES_UNRECOVERABLE } from '../../../src/core/domain/typeform/missed-deliveries';
import { describe, expect, it } from 'vitest';
import { judgeIdentity, judgeMailQuota, judgePlainText, judgeTextFinder, judgeTriggers, PLAIN_TEXT_SAMPLES, textFinderCells } from '../../../src/core/self-test/checks';
import { judgeGemini, judgeMissedWebhookRecovery, judgeTypeform, judgeWebApp, typeformProbeUrl, type TypeformObservation } from '../../../src/core/self-test/service-checks';
import type { CheckResult } from '../../../src/core/self-test/check-result';
import { generationConfigFor } from '../../../src/core/domain/gemini/gemini';
import type { GeminiOutcome } from '../../../src/core/domain/ports';

const ok = <T>(value: T) => ({ ok: true as const, value });
const err = (error: string) => ({ ok: false as const, error });
const ME = 'owner@example.com';
const identityPass = judgeIdentity({ activeUser: ME, webApp: ok(ME) });
const identityUnknown = judgeIdentity({ activeUser: '', webApp: ok(ME) });
const identityFail = judgeIdentity({ activeUser: 'staff@example.com', webApp: ok(ME) });

describe('evidence text is one redacted line of at most 300 characters', () => {
  const words295 = 'abcd '.repeat(59);
  it.each([
    ['whitespace runs and line breaks collapse, the ends are trimmed', '  Exception:\n  Service   Spreadsheets\tfailed  ', 'Exception: Service Spreadsheets failed'],
    ['300 characters stay whole', `${words295}abcde`, `${words295}abcde`],
    ['301 characters are cut to 299 and an ellipsis', `${words295}abcdef`, `${words295}abcd…`],
    ['a key in the error is redacted', 'fetch failed: https://x.example/v1?key=AIzaSyA1234567890abcdefghijklmnop', 'fetch failed: https://x.example/v1?key=[redacted]'],
  ])('%s', (_, error, shown) => {
    expect(judgePlainText(err(error)).evidence).toBe(`the probe itself failed: ${shown}`);
  });
});

describe('plain text on appended rows', () => {
  const title = 'Plain-text format holds on appended rows';
  it('passes when every sample reads back as the same string, listing each with its format', () => {
    expect(judgePlainText(ok({ read: PLAIN_TEXT_SAMPLES.slice(), formats: PLAIN_TEXT_SAMPLES.map(() => '@') }))).toEqual({
      id: 'plain-text', title, verdict: 'pass',
      evidence: '"007" → "007" ("@"), "+4915112345678" → "+4915112345678" ("@"), "2026-01-02" → "2026-01-02" ("@"), "TRUE" → "TRUE" ("@"), "=1+1" → "=1+1" ("@"), "1e5" → "1e5" ("@")',
    });
  });

  it('fails when Sheets converted values, describing a number, a date and a boolean, and a missing format as ""', () => {
    const read = [7, '+4915112345678', new Date('2026-01-02T00:00:00Z'), true, 2, '1e5'];
    expect(judgePlainText(ok({ read, formats: ['0', '@'] }))).toEqual({
      id: 'plain-text', title, verdict: 'fail',
      evidence: '"007" → number 7 ("0"), "+4915112345678" → "+4915112345678" ("@"), "2026-01-02" → a date (2026-01-02T00:00:00.000Z) (""), '
        + '"TRUE" → boolean true (""), "=1+1" → number 2 (""), "1e5" → "1e5" ("")',
      advice: 'Sheets converted text that formqueue writes with the "@" (plain text) format first. Answers such as phone numbers, '
        + 'dates or "=…" would be stored changed. Report this with the evidence; until then, read answers in the payload column.',
    });
  });

  it.each([
    ['one changed string', PLAIN_TEXT_SAMPLES.map((v) => (v === '1e5' ? '100000' : v))],
    ['one cell read back empty', PLAIN_TEXT_SAMPLES.map((v, i) => (i === 0 ? '' : v))],
  ])('fails on %s alone', (_, read) => {
    expect(judgePlainText(ok({ read, formats: [] })).verdict).toBe('fail');
  });

  it('a probe that threw is unknown, with the error as evidence', () => {
    expect(judgePlainText(err('Service Spreadsheets failed'))).toEqual({
      id: 'plain-text', title, verdict: 'unknown', evidence: 'the probe itself failed: Service Spreadsheets failed',
      advice: 'Run the self-test again; if it keeps failing, Sheets refused the scratch sheet (see the error).',
    });
  });
});

describe('TextFinder', () => {
  const title = 'TextFinder matches whole cells, case-sensitively';
  const over = 'findAll("Ab1") with matchEntireCell(true).matchCase(true) over ["ab1","Ab1-more","Ab1","xAb1"]';
  const advice = 'Duplicate detection looks an event_id up with this TextFinder: a wrong match could call a new submission a duplicate, '
    + 'a missed one could queue a redelivery twice (the reply would still be sent only once per row). Report it with the evidence.';

  it('the scratch column holds the needle once among cells that differ only in case, by a suffix or a prefix', () => {
    expect(textFinderCells('Ab1')).toEqual(['ab1', 'Ab1-more', 'Ab1', 'xAb1']);
  });

  it.each<[number[], CheckResult]>([
    [[3], { id: 'text-finder', title, verdict: 'pass', evidence: `${over} returned row(s) 3; expected only row 3` }],
    [[], { id: 'text-finder', title, verdict: 'fail', evidence: `${over} returned row(s) none; expected only row 3`, advice }],
    [[1, 3], { id: 'text-finder', title, verdict: 'fail', evidence: `${over} returned row(s) 1, 3; expected only row 3`, advice }],
    [[2], { id: 'text-finder', title, verdict: 'fail', evidence: `${over} returned row(s) 2; expected only row 3`, advice }],
    [[3, 3], { id: 'text-finder', title, verdict: 'fail', evidence: `${over} returned row(s) 3, 3; expected only row 3`, advice }],
  ])('rows %j for a needle in row 3', (matchedRows, expected) => {
    expect(judgeTextFinder(ok({ needle: 'Ab1', matchedRows, expectedRow: 3 }))).toEqual(expected);
  });

  it('a probe that threw is unknown', () => {
    expect(judgeTextFinder(err('boom'))).toEqual({
      id: 'text-finder', title, verdict: 'unknown', evidence: 'the probe itself failed: boom', advice: 'Run the self-test again; the scratch sheet could not be searched.',
    });
  });
});

describe('who runs it vs who the web app runs as', () => {
  const title = 'You (running this) and the account the web app runs as';
  const hidden = 'Google hides one of the two addresses (for example a consumer account running a script it does not own). '
    + 'Make sure the account that ran `npm run deploy` also runs Set up / repair.';
  it.each<[string, string, ReturnType<typeof ok<string>> | ReturnType<typeof err>, CheckResult]>([
    ['the same account', ME, ok(ME), { id: 'identity', title, verdict: 'pass', evidence: 'you: owner@example.com; the web app runs as: owner@example.com (the same account)' }],
    ['the same account in other letter case', 'Owner@Example.com', ok(ME),
      { id: 'identity', title, verdict: 'pass', evidence: 'you: Owner@Example.com; the web app runs as: owner@example.com (the same account)' }],
    ['Google hides the active user', '', ok(ME), { id: 'identity', title, verdict: 'unknown', evidence: 'you: (not revealed by Google); the web app runs as: owner@example.com', advice: hidden }],
    ['Google hides the deployer', ME, ok(''), { id: 'identity', title, verdict: 'unknown', evidence: 'you: owner@example.com; the web app runs as: (not revealed)', advice: hidden }],
    ['another person', 'staff@example.com', ok(ME), {
      id: 'identity', title, verdict: 'fail', evidence: 'you: staff@example.com; the web app runs as: owner@example.com',
      advice: 'You are not the deploying account. Triggers you create run as you, not as owner@example.com: their mail counts against your quota, '
        + 'and intake\'s user lock does not serialise your triggers with the web app. Let the deploying account run Set up / repair (and this self-test), '
        + 'and delete triggers you created (Apps Script editor → Triggers).',
    }],
    ['the web app cannot be asked', ME, err('HTTP 404\n  Not Found'), {
      id: 'identity', title, verdict: 'unknown', evidence: 'you: owner@example.com; the web app could not be asked: HTTP 404 Not Found',
      advice: 'See the web-app check below: until the web app answers, formqueue cannot tell who it runs as.',
    }],
  ])('%s', (_, activeUser, webApp, expected) => {
    expect(judgeIdentity({ activeUser, webApp })).toEqual(expected);
  });

  it('names an unrevealed runner in the evidence even when the web app cannot be asked', () => {
    expect(judgeIdentity({ activeUser: '', webApp: err('timeout') }).evidence).toBe('you: (not revealed by Google); the web app could not be asked: timeout');
  });
});

describe('triggers', () => {
  const title = 'The triggers exist for the deploying account';
  const pq = { handler: 'processQueue', type: 'CLOCK' };
  const edit = { handler: 'onEditInstallable', type: 'ON_EDIT' };
  const repair = 'Run formqueue → Set up / repair as the deploying account: it creates exactly one of each and removes duplicates. Without processQueue nothing is answered.';
  const listed = 'your triggers on this project:';
  it.each<[string, { handler: string; type: string }[], CheckResult, CheckResult]>([
    ['both, as the deployer', [pq, edit], identityPass, { id: 'triggers', title, verdict: 'pass', evidence: `${listed} processQueue (CLOCK), onEditInstallable (ON_EDIT)` }],
    ['both, deployer unknown', [pq, edit], identityUnknown, {
      id: 'triggers', title, verdict: 'unknown', evidence: `${listed} processQueue (CLOCK), onEditInstallable (ON_EDIT)`,
      advice: 'They are yours; whether you are the deploying account is unknown (see above).',
    }],
    ['none, run by someone else', [], identityFail, {
      id: 'triggers', title, verdict: 'unknown', evidence: `${listed} none`,
      advice: 'Apps Script lists only the triggers of the account running the self-test, and that is not the deploying account (see above): run the self-test as the deploying account.',
    }],
    ['none', [], identityPass, { id: 'triggers', title, verdict: 'fail', evidence: `${listed} none (missing: processQueue, onEditInstallable)`, advice: repair }],
    ['processQueue twice', [pq, pq, edit], identityPass, {
      id: 'triggers', title, verdict: 'fail', evidence: `${listed} processQueue (CLOCK), processQueue (CLOCK), onEditInstallable (ON_EDIT) (duplicated: processQueue)`, advice: repair,
    }],
    ['both twice', [pq, edit, pq, edit], identityPass, {
      id: 'triggers', title, verdict: 'fail',
      evidence: `${listed} processQueue (CLOCK), onEditInstallable (ON_EDIT), processQueue (CLOCK), onEditInstallable (ON_EDIT) (duplicated: processQueue, onEditInstallable)`, advice: repair,
    }],
    ['each handler on the other\'s trigger type', [{ handler: 'processQueue', type: 'ON_EDIT' }, { handler: 'onEditInstallable', type: 'CLOCK' }], identityPass, {
      id: 'triggers', title, verdict: 'fail', evidence: `${listed} processQueue (ON_EDIT), onEditInstallable (CLOCK) (missing: processQueue, onEditInstallable)`, advice: repair,
    }],
    ['one missing and one twice, deployer unknown', [pq, pq], identityUnknown, {
      id: 'triggers', title, verdict: 'fail', evidence: `${listed} processQueue (CLOCK), processQueue (CLOCK) (missing: onEditInstallable; duplicated: processQueue)`, advice: repair,
    }],
  ])('%s', (_, triggers, identity, expected) => {
    expect(judgeTriggers(ok(triggers), identity)).toEqual(expected);
  });

  it('a probe that threw is unknown', () => {
    expect(judgeTriggers(err('no'), identityPass)).toEqual({
      id: 'triggers', title, verdict: 'unknown', evidence: 'the probe itself failed: no', advice: 'Run Set up / repair, then the self-test again.',
    });
  });
});

describe('mail quota', () => {
  const title = 'The mail quota can be read';
  it.each<[string, ReturnType<typeof ok<number>> | ReturnType<typeof err>, CheckResult]>([
    ['1 left passes', ok(1), { id: 'mail-quota', title, verdict: 'pass', evidence: 'MailApp.getRemainingDailyQuota() = 1 recipients left today' }],
    ['0 left fails', ok(0), {
      id: 'mail-quota', title, verdict: 'fail', evidence: 'MailApp.getRemainingDailyQuota() = 0',
      advice: 'No mail can be sent until the quota resets (24 hours after the first send of the day). Replies wait as READY and go out after that, once each.',
    }],
    ['an error fails', err('You do not have permission'), {
      id: 'mail-quota', title, verdict: 'fail', evidence: 'MailApp.getRemainingDailyQuota() threw: You do not have permission',
      advice: 'Without it formqueue cannot check the quota before a send. Run Set up / repair to grant the mail scope, then try again.',
    }],
  ])('%s', (_, probe, expected) => {
    expect(judgeMailQuota(probe)).toEqual(expected);
  });
});

describe('Gemini', () => {
  const title = 'Gemini answers with the key and model';
  const model = 'gemini-3.5-flash';
  const sent = `model ${model}, generationConfig {temperature, maxOutputTokens, thinkingConfig}`;
  const http = (status: number, body: unknown): GeminiOutcome => ({ kind: 'http', status, body: JSON.stringify(body) });
  const reply = (text: string, usageMetadata?: unknown) => http(200, { candidates: [{ content: { parts: [{ text }] }, finishReason: 'STOP' }], ...(usageMetadata ? { usageMetadata } : {}) });
  const retry = 'A passing outage or rate limit: formqueue retries these by itself. Run the self-test again in a few minutes.';
  const refused = 'Gemini refused these generation settings or the tiny prompt: report it with the evidence.';
  it.each<[string, GeminiOutcome, CheckResult]>([
    ['a reply with every token count', reply('OK', { promptTokenCount: 130, candidatesTokenCount: 1, thoughtsTokenCount: 40, totalTokenCount: 171 }), {
      id: 'gemini', title, verdict: 'pass',
      evidence: `${sent}: HTTP 200, reply "OK"; usageMetadata promptTokenCount 130, candidatesTokenCount 1, thoughtsTokenCount 40, totalTokenCount 171`,
    }],
    ['a reply with some token counts', reply('OK', { promptTokenCount: 130, thoughtsTokenCount: 40 }), {
      id: 'gemini', title, verdict: 'pass', evidence: `${sent}: HTTP 200, reply "OK"; usageMetadata promptTokenCount 130, thoughtsTokenCount 40`,
    }],
    ['a long reply without usage: its first 40 characters', reply(`${'x'.repeat(39)}yz`), { id: 'gemini', title, verdict: 'pass', evidence: `${sent}: HTTP 200, reply "${'x'.repeat(39)}y"` }],
    ['usage without the four counts', reply('OK', { cachedContentTokenCount: 3 }), { id: 'gemini', title, verdict: 'pass', evidence: `${sent}: HTTP 200, reply "OK"` }],
    ['a bad key', http(400, { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] } }), {
      id: 'gemini', title, verdict: 'fail', evidence: `${sent}: HTTP 400: Gemini HTTP 400 INVALID_ARGUMENT: API key not valid. (check Script Property GEMINI_API_KEY)`,
      advice: 'The key is refused: create a new one in Google AI Studio and set GEMINI_API_KEY.',
    }],
    ['an unknown model, named in the evidence', http(404, { error: { code: 404, message: 'models/gemini-0 is not found', status: 'NOT_FOUND' } }), {
      id: 'gemini', title, verdict: 'fail',
      evidence: `${sent}: HTTP 404: Gemini model "${model}" was not found: set Script Property GEMINI_MODEL (or the form's model in Config) to a current model id. Gemini HTTP 404 NOT_FOUND: models/gemini-0 is not found`,
      advice: `The model ${model} does not exist for this key (models are retired often): set GEMINI_MODEL to a current one.`,
    }],
    ['the daily quota spent', http(429, { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' }] }] } }), {
      id: 'gemini', title, verdict: 'fail', evidence: `${sent}: HTTP 429: Gemini HTTP 429 RESOURCE_EXHAUSTED: Quota exceeded (daily quota; it resets at midnight Pacific time)`,
      advice: 'The daily quota of this key is used up: replies wait until it resets (midnight Pacific time), or enable billing.',
    }],
    ['an overloaded model', http(503, { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }), {
      id: 'gemini', title, verdict: 'unknown', evidence: `${sent}: HTTP 503: Gemini HTTP 503 UNAVAILABLE: The model is overloaded.`, advice: retry,
    }],
    ['no HTTP answer: the message once', { kind: 'transport', message: 'Address unavailable:\n  https://x' }, {
      id: 'gemini', title, verdict: 'unknown', evidence: `${sent}: no HTTP answer: Gemini could not be reached: Address unavailable: https://x`, advice: retry,
    }],
    ['settings refused', http(400, { error: { code: 400, message: 'Invalid thinking budget', status: 'INVALID_ARGUMENT' } }), {
      id: 'gemini', title, verdict: 'fail', evidence: `${sent}: HTTP 400: Gemini HTTP 400 INVALID_ARGUMENT: Invalid thinking budget`, advice: refused,
    }],
    ['the prompt blocked', http(200, { promptFeedback: { blockReason: 'SAFETY' } }), {
      id: 'gemini', title, verdict: 'fail', evidence: `${sent}: HTTP 200: Gemini blocked the prompt (SAFETY)`, advice: refused,
    }],
  ])('%s', (_, outcome, expected) => {
    expect(judgeGemini(ok({ model, configKeys: Object.keys(generationConfigFor(model)), outcome }))).toEqual(expected);
  });

  it('without a key it fails; a probe that threw is unknown', () => {
    expect(judgeGemini({ ok: 'not-set' })).toEqual({
      id: 'gemini', title, verdict: 'fail', evidence: 'GEMINI_API_KEY is not set',
      advice: 'Create a key in Google AI Studio and set GEMINI_API_KEY (formqueue → Set a Script Property…).',
    });
    expect(judgeGemini(err('boom'))).toEqual({
      id: 'gemini', title, verdict: 'unknown', evidence: 'the probe itself failed: boom',
      advice: 'Run the self-test again; if it persists, check GEMINI_BASE_URL and appsscript.json\'s urlFetchWhitelist.',
    });
  });
});

describe('Typeform', () => {
  const title = 'Typeform token (TYPEFORM_TOKEN), if set';
  const US = 'https://api.typeform.com/forms?page_size=1';
  const at = (answer: TypeformObservation['answer'], url = US): TypeformObservation => ({ url, answer });
  const base = 'leave TYPEFORM_BASE_URL unset for https://api.typeform.com, or set https://api.eu.typeform.com for an EU account';
  const refused = 'The token is refused: create a personal access token in Typeform (Account → Personal tokens) and set TYPEFORM_TOKEN again, or remove it.';
  it.each<[string, Parameters<typeof judgeTypeform>[0], CheckResult]>([
    ['not set', { ok: 'not-set' }, {
      id: 'typeform', title, verdict: 'unknown', evidence: 'TYPEFORM_TOKEN is not set',
      advice: 'Deliveries need no token (the webhook URL carries its own). Set it to let the daily Typeform check find submissions whose webhook never arrived (docs/reconciliation.md).',
    }],
    ['200', at(ok({ status: 200, body: '{"total_items":1,"page_count":1,"items":[]}' })), { id: 'typeform', title, verdict: 'pass', evidence: `GET ${US}: HTTP 200` }],
    ['200 from the EU API names the URL asked', at(ok({ status: 200, body: '{}' }), 'https://api.eu.typeform.com/forms?page_size=1'), {
      id: 'typeform', title, verdict: 'pass', evidence: 'GET https://api.eu.typeform.com/forms?page_size=1: HTTP 200',
    }],
    ['401', at(ok({ status: 401, body: '{"code":"AUTHENTICATION_FAILED"}' })), { id: 'typeform', title, verdict: 'fail', evidence: `GET ${US}: HTTP 401 {"code":"AUTHENTICATION_FAILED"}`, advice: refused }],
    ['403: a token without forms:read', at(ok({ status: 403, body: '{"code":"FORBIDDEN"}' })), {
      id: 'typeform', title, verdict: 'fail', evidence: `GET ${US}: HTTP 403 {"code":"FORBIDDEN"}`,
      advice: 'The token lacks a scope: create a personal access token with responses:read, forms:read and webhooks:read and set TYPEFORM_TOKEN again.',
    }],
    ['404: TYPEFORM_BASE_URL is not Typeform', at(ok({ status: 404, body: 'Not Found' }), 'https://example.org/forms?page_size=1'), {
      id: 'typeform', title, verdict: 'fail', evidence: 'GET https://example.org/forms?page_size=1: HTTP 404 Not Found', advice: `This is not Typeform's API: ${base}.`,
    }],
    ['500', at(ok({ status: 500, body: 'oops' })), {
      id: 'typeform', title, verdict: 'unknown', evidence: `GET ${US}: HTTP 500 oops`, advice: 'Typeform answered something unexpected; run the self-test again later.',
    }],
    ['a probe that threw', at(err('DNS error')), {
      id: 'typeform', title, verdict: 'unknown', evidence: 'the probe itself failed: DNS error', advice: `Typeform could not be reached at ${US}: ${base}; then run the self-test again.`,
    }],
  ])('%s', (_, probe, expected) => {
    expect(judgeTypeform(probe)).toEqual(expected);
  });

  it.each([
    ['https://api.typeform.com', 'https://api.typeform.com/forms?page_size=1'],
    ['https://api.eu.typeform.com/', 'https://api.eu.typeform.com/forms?page_size=1'],
    ['https://api.eu.typeform.com//', 'https://api.eu.typeform.com/forms?page_size=1'],
    ['http://127.0.0.1:8787/typeform', 'http://127.0.0.1:8787/typeform/forms?page_size=1'],
  ])('the probe asks under TYPEFORM_BASE_URL %s', (baseUrl, url) => {
    expect(typeformProbeUrl(baseUrl)).toBe(url);
  });
});

describe('the web app', () => {
  const title = "The web app's own URL answers";
  const url = 'https://script.google.com/macros/s/X/exec?token=abc&view=health';
  const where = 'https://script.google.com/macros/s/X/exec';
  const notJson = 'The web app did not answer formqueue\'s JSON: check the deployment\'s access ("Anyone") and that it runs the current version (`npm run deploy`).';
  it.each<[string, { status: number; body: string }, CheckResult]>([
    ['200 with formqueue\'s JSON passes; the query string is not shown', { status: 200, body: '{"ok":true,"counts":{}}' },
      { id: 'web-app', title, verdict: 'pass', evidence: `${where}: HTTP 200 {"ok":true,"counts":{}}` }],
    ['200 but unauthorized', { status: 200, body: '{"ok":false,"error":"unauthorized"}' },
      { id: 'web-app', title, verdict: 'fail', evidence: `${where}: HTTP 200 {"ok":false,"error":"unauthorized"}`, advice: notJson }],
    ['404', { status: 404, body: '<html>Page Not Found</html>' }, {
      id: 'web-app', title, verdict: 'fail', evidence: `${where}: HTTP 404 <html>Page Not Found</html>`,
      advice: 'The deployment is gone or not public: Typeform turns a webhook off on 404. Deploy again and update Typeform with the URL.',
    }],
    ['500 with formqueue\'s JSON', { status: 500, body: '{"ok":true}' }, { id: 'web-app', title, verdict: 'fail', evidence: `${where}: HTTP 500 {"ok":true}`, advice: notJson }],
    ['200 with a sign-in page', { status: 200, body: '<html>Sign in</html>' }, { id: 'web-app', title, verdict: 'fail', evidence: `${where}: HTTP 200 <html>Sign in</html>`, advice: notJson }],
    ['200 with JSON null', { status: 200, body: 'null' }, { id: 'web-app', title, verdict: 'fail', evidence: `${where}: HTTP 200 null`, advice: notJson }],
    ['200 with a JSON number', { status: 200, body: '5' }, { id: 'web-app', title, verdict: 'fail', evidence: `${where}: HTTP 200 5`, advice: notJson }],
    ['200 with an object without "ok"', { status: 200, body: '{"counts":{}}' }, { id: 'web-app', title, verdict: 'fail', evidence: `${where}: HTTP 200 {"counts":{}}`, advice: notJson }],
  ])('%s', (_, answer, expected) => {
    expect(judgeWebApp({ url, answer: ok(answer) })).toEqual(expected);
  });

  it.each<[string, Parameters<typeof judgeWebApp>[0], CheckResult]>([
    ['no deployment', { url: null, answer: null }, {
      id: 'web-app', title, verdict: 'fail', evidence: 'ScriptApp.getService().getUrl() is empty: there is no web-app deployment',
      advice: 'Run `npm run deploy` from your machine; it prints the URL for Typeform.',
    }],
    ['no HEALTH_TOKEN to ask with', { url, answer: null }, {
      id: 'web-app', title, verdict: 'unknown', evidence: `${where}: not asked (HEALTH_TOKEN is not set)`, advice: 'Run Set up / repair: it generates the token.',
    }],
    ['the fetch threw', { url, answer: err('Address unavailable') }, {
      id: 'web-app', title, verdict: 'fail', evidence: `${where}: Address unavailable`,
      advice: 'The URL could not be fetched. Check the deployment exists (Deploy → Manage deployments) with access "Anyone"; never archive it.',
    }],
  ])('%s', (_, probe, expected) => {
    expect(judgeWebApp(probe)).toEqual(expected);
  });
});

describe('missed-webhook recovery', () => {
  it('warns while TYPEFORM_TOKEN is unset: recovery of deliveries Google refused or answered backlog_full is off, with the fix', () => {
    expect(judgeMissedWebhookRecovery(false)).toEqual({
      id: 'missed-webhooks',
      title: 'Missed-webhook recovery (the daily Typeform check)',
      verdict: 'warn',
      evidence: 'TYPEFORM_TOKEN is not set: missed-webhook recovery is off',
      advice: `A delivery Google refused (over 30 at once) or answered backlog_full is not recovered: it stays in Typeform only. ${MISSED_DELIVERIES_UNRECOVERABLE}`,
    });
  });

  it('passes once TYPEFORM_TOKEN is set', () => {
    expect(judgeMissedWebhookRecovery(true)).toEqual({
      id: 'missed-webhooks', title: 'Missed-webhook recovery (the daily Typeform check)', verdict: 'pass',
      evidence: 'TYPEFORM_TOKEN is set: the daily Typeform check recovers submissions whose webhook never got through',
    });
  });
});
