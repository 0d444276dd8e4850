// Self-test verdicts on the services reached over HTTP (Gemini, Typeform, missed-webhook recovery, the web app's URL): the verdict per answer, then each branch in full.
import { MISSED_DELIVERIES_UNRECOVERABLE } from '../../../src/core/domain/typeform/missed-deliveries';
import { describe, expect, it } from 'vitest';
import { judgeGemini, judgeMissedWebhookRecovery, judgeTypeform, judgeWebApp, typeformProbeUrl, type TypeformObservation } from '../../../src/core/self-test/service-checks';
import type { CheckResult } from '../../../src/core/self-test/check-result';
import { generationConfigFor } from '../../../src/core/domain/gemini/gemini';
import type { GeminiOutcome } from '../../../src/core/domain/ports';

const ok = <T>(value: T) => ({ ok: true as const, value });
const err = (error: string) => ({ ok: false as const, error });

describe('Gemini, Typeform, web app', () => {
  const gemini = (status: number, body: unknown) => judgeGemini(ok({ model: 'gemini-3.5-flash', configKeys: Object.keys(generationConfigFor('gemini-3.5-flash')), outcome: { kind: 'http', status, body: JSON.stringify(body) } }));
  it.each([
    ['a reply', 200, { candidates: [{ content: { parts: [{ text: 'OK' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 130, candidatesTokenCount: 1, thoughtsTokenCount: 40 } }, 'pass'],
    ['a bad key', 400, { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] } }, 'fail'],
    ['an unknown model', 404, { error: { code: 404, message: 'models/gemini-0 is not found', status: 'NOT_FOUND' } }, 'fail'],
    ['an overloaded model', 503, { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }, 'unknown'],
  ])('Gemini, %s: %s', (_, status, body, verdict) => {
    const result = gemini(status, body);
    expect(result.verdict).toBe(verdict);
    expect(result.evidence).toContain('generationConfig {temperature, maxOutputTokens, thinkingConfig}');
  });

  it('Gemini evidence carries the token counts (the measured basis of the cost figures) and never the key', () => {
    const result = gemini(200, { candidates: [{ content: { parts: [{ text: 'OK' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 130, thoughtsTokenCount: 40 } });
    expect(result.evidence).toContain('promptTokenCount 130, thoughtsTokenCount 40');
    expect(judgeGemini({ ok: 'not-set' })).toMatchObject({ verdict: 'fail', evidence: 'GEMINI_API_KEY is not set' });
  });

  it.each([
    [{ ok: 'not-set' as const }, 'unknown'],
    [{ url: 'https://api.typeform.com/forms?page_size=1', answer: ok({ status: 200, body: '{"total_items":0}' }) }, 'pass'],
    [{ url: 'https://api.typeform.com/forms?page_size=1', answer: ok({ status: 401, body: '{"code":"UNAUTHORIZED"}' }) }, 'fail'],
  ])('Typeform %#: %s', (probe, verdict) => {
    expect(judgeTypeform(probe).verdict).toBe(verdict);
  });

  it.each([
    [{ url: null, answer: null }, 'fail'],
    [{ url: 'https://script.google.com/macros/s/X/exec', answer: ok({ status: 200, body: '{"ok":true,"counts":{}}' }) }, 'pass'],
    [{ url: 'https://script.google.com/macros/s/X/exec', answer: ok({ status: 200, body: '{"ok":false,"error":"unauthorized"}' }) }, 'fail'],
    [{ url: 'https://script.google.com/macros/s/X/exec', answer: ok({ status: 404, body: '<html>Page Not Found</html>' }) }, 'fail'],
    [{ url: 'https://script.google.com/macros/s/X/exec', answer: err('Address unavailable') }, 'fail'],
  ])('web app %#: %s', (probe, verdict) => {
    expect(judgeWebApp(probe).verdict).toBe(verdict);
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
