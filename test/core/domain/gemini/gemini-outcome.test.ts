// classifyGeminiOutcome with Gemini's real bodies and rule by rule with exact outputs (transport, error and success bodies), and the result cap's boundaries.
import { describe, expect, it } from 'vitest';
import type { GeminiOutcome } from '../../../../src/core/domain/ports';
import { capResultText, classifyGeminiOutcome, MAX_RESULT_CHARS } from '../../../../src/core/domain/gemini/gemini-outcome';
import { fixtureOutcome as fixture } from '../../memory-ports';

const http = (status: number, body: unknown): GeminiOutcome => ({ kind: 'http', status, body: typeof body === 'string' ? body : JSON.stringify(body) });
const errorBody = (status: number, error: Record<string, unknown>) => http(status, { error });
const success = (candidate: unknown, extra: Record<string, unknown> = {}) => http(200, { candidates: [candidate], ...extra });
const stop = (...parts: unknown[]) => success({ finishReason: 'STOP', content: { parts } });

describe('capResultText', () => {
  const half = MAX_RESULT_CHARS / 2;
  it.each([
    ['a short reply, trailing spaces and all', 'Thanks.  \n', 'Thanks.  \n'],
    ['a reply of exactly the cap, with a paragraph break late in it', `${'a'.repeat(40000)}\n\n${'b'.repeat(MAX_RESULT_CHARS - 40002)}`, null],
  ])('keeps %s as it is', (_what, text, expected) => {
    expect(capResultText(text)).toBe(expected ?? text);
  });

  it('keeps leading spaces of a cut reply', () => {
    expect(capResultText(`  ${'a'.repeat(MAX_RESULT_CHARS)}`)).toBe(`  ${'a'.repeat(MAX_RESULT_CHARS - 2)}`);
  });

  it('cuts at a paragraph break only past the middle of the cap', () => {
    const atMiddle = `${'a'.repeat(half)}\n\n${'b'.repeat(MAX_RESULT_CHARS)}`;
    expect(capResultText(atMiddle)).toBe(`${'a'.repeat(half)}\n\n${'b'.repeat(half - 2)}`);
    const pastMiddle = `${'a'.repeat(half + 1)}\n\n${'b'.repeat(MAX_RESULT_CHARS)}`;
    expect(capResultText(pastMiddle)).toBe('a'.repeat(half + 1));
  });

  it('caps a reply longer than a cell allows at a paragraph break', () => {
    const long = `${'a'.repeat(40000)}\n\n${'b'.repeat(10000)}`;
    expect(capResultText(long)).toBe('a'.repeat(40000));
    expect(capResultText('x'.repeat(MAX_RESULT_CHARS + 10)).length).toBe(MAX_RESULT_CHARS);
  });
});

describe('classifyGeminiOutcome', () => {
  it('a 200 with a STOP candidate is ok with the text', () => {
    const verdict = classifyGeminiOutcome(fixture(200, 'ok'));
    expect(verdict.kind).toBe('ok');
    expect(verdict.kind === 'ok' && verdict.text).toMatch(/^Dear Mina,\n\nThank you for your essay on caching/);
  });

  it('thought parts are left out and text parts concatenated', () => {
    const body = JSON.stringify({
      candidates: [{ finishReason: 'STOP', content: { parts: [{ text: 'plan…', thought: true }, { text: 'Hello ' }, { text: 'Mina' }] } }],
    });
    expect(classifyGeminiOutcome(http(200, body))).toEqual({ kind: 'ok', text: 'Hello Mina' });
  });

  it.each<[string, GeminiOutcome, string]>([
    ['a timeout', { kind: 'transport', message: 'Timeout: https://generativelanguage.googleapis.com' }, 'Gemini could not be reached'],
    ['a DNS failure', { kind: 'transport', message: 'Address unavailable' }, 'Gemini could not be reached'],
    ['408', http(408, ''), 'Gemini HTTP 408'],
    ['429 per minute', fixture(429, 'error-429-per-minute'), 'Gemini HTTP 429 RESOURCE_EXHAUSTED'],
    ['500', http(500, '{"error":{"code":500,"status":"INTERNAL","message":"Internal error"}}'), 'Gemini HTTP 500 INTERNAL'],
    ['502', http(502, '<html>Bad Gateway</html>'), 'Gemini HTTP 502'],
    ['503', fixture(503, 'error-503'), 'Gemini HTTP 503 UNAVAILABLE: The model is overloaded'],
    ['504', http(504, '{"error":{"code":504,"status":"DEADLINE_EXCEEDED"}}'), 'Gemini HTTP 504 DEADLINE_EXCEEDED'],
    ['a 200 that is not JSON', http(200, '<html>proxy</html>'), 'not JSON'],
  ])('%s is retryable', (_name, outcome, reason) => {
    const verdict = classifyGeminiOutcome(outcome);
    expect(verdict.kind).toBe('retryable');
    expect(verdict.kind === 'retryable' && verdict.reason).toContain(reason);
  });

  it("429 per minute carries Gemini's retryDelay in seconds", () => {
    expect(classifyGeminiOutcome(fixture(429, 'error-429-per-minute'))).toMatchObject({ kind: 'retryable', retryAfterSeconds: 17 });
  });

  it.each<[string, GeminiOutcome, string, RegExp]>([
    ['429 per day (told apart by its quotaId)', fixture(429, 'error-429-per-day'), 'GEMINI_DAILY_QUOTA', /daily quota/],
    ['400 API_KEY_INVALID', fixture(400, 'error-400-bad-key'), 'GEMINI_KEY_INVALID', /GEMINI_API_KEY/],
    ['401', http(401, '{"error":{"code":401,"status":"UNAUTHENTICATED"}}'), 'GEMINI_KEY_INVALID', /GEMINI_API_KEY/],
    ['403', http(403, '{"error":{"code":403,"status":"PERMISSION_DENIED"}}'), 'GEMINI_KEY_INVALID', /GEMINI_API_KEY/],
    ['400 FAILED_PRECONDITION', http(400, '{"error":{"code":400,"status":"FAILED_PRECONDITION"}}'), 'GEMINI_KEY_INVALID', /billing/],
    ['404', fixture(404, 'error-404-model'), 'GEMINI_MODEL_NOT_FOUND', /model "gemini-1.0-pro" was not found: set Script Property GEMINI_MODEL/],
  ])('%s is systemic (%s)', (_name, outcome, incident, reason) => {
    const verdict = classifyGeminiOutcome(outcome, { model: 'gemini-1.0-pro' });
    expect(verdict).toMatchObject({ kind: 'systemic', incident });
    expect(verdict.kind === 'systemic' && verdict.reason).toMatch(reason);
  });

  it.each<[string, GeminiOutcome, RegExp]>([
    ['a blocked prompt', fixture(200, 'blocked-prompt'), /blocked the prompt \(SAFETY\)/],
    ['a reply cut at MAX_TOKENS', fixture(200, 'cut-max-tokens'), /finishReason MAX_TOKENS/],
    ['a SAFETY finish', http(200, '{"candidates":[{"finishReason":"SAFETY","content":{"parts":[{"text":"x"}]}}]}'), /finishReason SAFETY/],
    ['empty text', http(200, '{"candidates":[{"finishReason":"STOP","content":{"parts":[{"text":"  "}]}}]}'), /empty reply/],
    ['no candidates', http(200, '{"candidates":[]}'), /no candidate/],
  ])('%s is a content failure', (_name, outcome, reason) => {
    const verdict = classifyGeminiOutcome(outcome);
    expect(verdict.kind).toBe('content');
    expect(verdict.kind === 'content' && verdict.reason).toMatch(reason);
  });

  it('MAX_TOKENS with no text (the budget spent on thinking) is its own verdict, not a cut reply', () => {
    expect(classifyGeminiOutcome(fixture(200, 'max-tokens-thinking'))).toEqual({
      kind: 'out-of-tokens',
      reason: 'Gemini spent its whole output budget thinking and wrote no reply (3071 thinking tokens)',
    });
  });

  it('a 400 INVALID_ARGUMENT that is not a bad key is rejected, not retried', () => {
    const body = '{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"Invalid JSON payload received."}}';
    expect(classifyGeminiOutcome(http(400, body))).toEqual({ kind: 'rejected', reason: 'Gemini HTTP 400 INVALID_ARGUMENT: Invalid JSON payload received.' });
  });

  it('a key echoed in an error message never reaches the reason', () => {
    const verdict = classifyGeminiOutcome({ kind: 'transport', message: 'failed GET ?key=AIzaSyTESTKEY0123456789abcdefghij' });
    expect(JSON.stringify(verdict)).not.toContain('AIzaSyTESTKEY');
  });
});

describe('classifyGeminiOutcome: transport', () => {
  it('collapses and trims the message into one line', () => {
    expect(classifyGeminiOutcome({ kind: 'transport', message: '  Timeout \n\n after  30s ' })).toEqual({
      kind: 'retryable',
      reason: 'Gemini could not be reached: Timeout after 30s',
      outage: true,
    });
  });

  it("Apps Script's daily URL Fetch quota is systemic (no row is charged for it), and says when it resets", () => {
    expect(classifyGeminiOutcome({ kind: 'transport', message: 'Exception: Service invoked too many times for one day: urlfetch.' })).toEqual({
      kind: 'systemic',
      incident: 'URLFETCH_DAILY_QUOTA',
      reason:
        "Apps Script's daily URL Fetch quota is used up (Exception: Service invoked too many times for one day: urlfetch.); it resets 24 hours after the first call of its window",
    });
  });

  it.each([
    [240, null],
    [241, 239],
  ])('a reason of %i characters is kept whole or cut to %s plus an ellipsis', (length, cutTo) => {
    const prefix = 'Gemini could not be reached: ';
    const message = 'x'.repeat(length - prefix.length);
    const verdict = classifyGeminiOutcome({ kind: 'transport', message: `${message}` });
    const line = `${prefix}${message}`;
    expect(verdict.kind === 'retryable' && verdict.reason).toBe(cutTo === null ? line : `${line.slice(0, cutTo)}…`);
  });
});

describe('classifyGeminiOutcome: error bodies', () => {
  const retryInfo = (retryDelay: unknown) => ({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay });
  const quotaFailure = (...quotaIds: unknown[]) => ({ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: quotaIds.map((quotaId) => ({ quotaId })) });

  it.each<[string, unknown, number | undefined]>([
    ['"26s"', '26s', 26],
    ['" 26s " (spaces)', ' 26s ', 26],
    ['"1.5s"', '1.5s', 1.5],
    ['"1.25s"', '1.25s', 1.25],
    ['"x26s"', 'x26s', undefined],
    ['"26sx"', '26sx', undefined],
    ['"26"', '26', undefined],
    ['{ seconds: "3", nanos: 500000000 }', { seconds: '3', nanos: 500000000 }, 3.5],
    ['{ seconds: 2 }', { seconds: 2 }, 2],
    ['{ nanos: 5 } (no seconds)', { nanos: 5 }, undefined],
    ['a bare number', 30, undefined],
  ])('a 429 with retryDelay %s waits %s seconds', (_what, retryDelay, seconds) => {
    const verdict = classifyGeminiOutcome(errorBody(429, { status: 'RESOURCE_EXHAUSTED', details: [retryInfo(retryDelay)] }));
    const expected = seconds === undefined ? { kind: 'retryable', reason: 'Gemini HTTP 429 RESOURCE_EXHAUSTED', rateLimited: true } : { kind: 'retryable', reason: 'Gemini HTTP 429 RESOURCE_EXHAUSTED', retryAfterSeconds: seconds, rateLimited: true };
    expect(verdict).toStrictEqual(expected);
  });

  it('a retry delay is kept when a later detail has none', () => {
    const verdict = classifyGeminiOutcome(errorBody(429, { details: [retryInfo('26s'), { reason: 'RATE_LIMIT_EXCEEDED' }, null, 'text'] }));
    expect(verdict).toStrictEqual({ kind: 'retryable', reason: 'Gemini HTTP 429', retryAfterSeconds: 26, rateLimited: true });
  });

  it.each<[string, unknown[], boolean]>([
    ['a per-day quota id', [quotaFailure('GenerateRequestsPerDayPerProjectPerModel-FreeTier')], true],
    ['a per-day quota id beside a per-minute one', [quotaFailure('GenerateRequestsPerMinutePerProjectPerModel', 'GenerateRequestsPerDayPerProjectPerModel')], true],
    ['only per-minute quota ids', [quotaFailure('GenerateRequestsPerMinutePerProjectPerModel')], false],
    ['a quota id that is not text', [quotaFailure(['GenerateRequestsPerDay'])], false],
    ['violations that are not objects', [{ violations: [null, 'PerDay'] }], false],
    ['violations that are no list', [{ violations: { quotaId: 'PerDay' } }], false],
  ])('a 429 with %s is the daily quota: %s', (_what, details, daily) => {
    const verdict = classifyGeminiOutcome(errorBody(429, { status: 'RESOURCE_EXHAUSTED', details }));
    expect(verdict.kind).toBe(daily ? 'systemic' : 'retryable');
  });

  it.each<[string, GeminiOutcome, unknown]>([
    ['a 500 with no body', http(500, ''), { kind: 'retryable', reason: 'Gemini HTTP 500', outage: true }],
    ['a 500 with a JSON list', http(500, '[1]'), { kind: 'retryable', reason: 'Gemini HTTP 500', outage: true }],
    ['a 503 with only a message', errorBody(503, { message: 'Overloaded' }), { kind: 'retryable', reason: 'Gemini HTTP 503: Overloaded', outage: true }],
    ['a 503 with only a status', errorBody(503, { status: 'UNAVAILABLE' }), { kind: 'retryable', reason: 'Gemini HTTP 503 UNAVAILABLE', outage: true }],
    ['a 499', http(499, ''), { kind: 'rejected', reason: 'Gemini HTTP 499' }],
    ['a 300', http(300, ''), { kind: 'rejected', reason: 'Gemini HTTP 300' }],
    ['a 199', http(199, ''), { kind: 'rejected', reason: 'Gemini HTTP 199' }],
    ['a 409 FAILED_PRECONDITION (only a 400 says billing or region)', errorBody(409, { status: 'FAILED_PRECONDITION' }), { kind: 'rejected', reason: 'Gemini HTTP 409 FAILED_PRECONDITION' }],
    ['a 429 without details', errorBody(429, { status: 'RESOURCE_EXHAUSTED' }), { kind: 'retryable', reason: 'Gemini HTTP 429 RESOURCE_EXHAUSTED', rateLimited: true }],
    [
      'a 400 whose ErrorInfo says API_KEY_INVALID',
      errorBody(400, { status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] }),
      { kind: 'systemic', incident: 'GEMINI_KEY_INVALID', reason: 'Gemini HTTP 400 INVALID_ARGUMENT (check Script Property GEMINI_API_KEY)' },
    ],
    ['a 400 with another ErrorInfo reason', errorBody(400, { status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_EXPIRED_X' }] }), { kind: 'rejected', reason: 'Gemini HTTP 400 INVALID_ARGUMENT' }],
    [
      'a 404 when the call did not say which model',
      http(404, ''),
      { kind: 'systemic', incident: 'GEMINI_MODEL_NOT_FOUND', reason: "Gemini model the configured model was not found: set Script Property GEMINI_MODEL (or the form's model in Config) to a current model id. Gemini HTTP 404" },
    ],
  ])('%s', (_what, outcome, verdict) => {
    expect(classifyGeminiOutcome(outcome)).toStrictEqual(verdict);
  });
});

describe('classifyGeminiOutcome: success bodies', () => {
  it.each<[string, GeminiOutcome, unknown]>([
    ['a JSON list', http(200, '[]'), { kind: 'retryable', reason: 'Gemini answered 200 with a body that is not JSON' }],
    ['a 204 with no body', http(204, ''), { kind: 'retryable', reason: 'Gemini answered 200 with a body that is not JSON' }],
    ['a blocked prompt without a message', http(200, { promptFeedback: { blockReason: 'SAFETY' } }), { kind: 'content', reason: 'Gemini blocked the prompt (SAFETY)' }],
    [
      'a blocked prompt with a message',
      http(200, { promptFeedback: { blockReason: 'OTHER', blockReasonMessage: 'Not allowed.' } }),
      { kind: 'content', reason: 'Gemini blocked the prompt (OTHER): Not allowed.' },
    ],
    ['no candidates field', http(200, {}), { kind: 'content', reason: 'Gemini returned no candidate' }],
    ['candidates that are no list', http(200, { candidates: { finishReason: 'STOP' } }), { kind: 'content', reason: 'Gemini returned no candidate' }],
    ['a candidate that is not an object', http(200, { candidates: ['Hello'] }), { kind: 'content', reason: 'Gemini returned no candidate' }],
    ['a candidate without finishReason', success({ content: { parts: [{ text: 'Hi' }] } }), { kind: 'content', reason: 'Gemini stopped before finishing the reply (finishReason FINISH_REASON_UNSPECIFIED)' }],
    ['text parts that are not text, or not objects', stop({ text: 'Hi' }, { text: 5 }, null, 'x', { text: ' there' }), { kind: 'ok', text: 'Hi there' }],
    ['parts that are no list', success({ finishReason: 'STOP', content: { parts: { text: 'Hi' } } }), { kind: 'content', reason: 'Gemini returned an empty reply' }],
    ['a thought part marked false is text', stop({ text: 'Hi', thought: false }), { kind: 'ok', text: 'Hi' }],
    [
      'MAX_TOKENS and no text, without usage counts',
      success({ finishReason: 'MAX_TOKENS', content: { parts: [] } }),
      { kind: 'out-of-tokens', reason: 'Gemini spent its whole output budget thinking and wrote no reply' },
    ],
    [
      'MAX_TOKENS and no text, with the thinking tokens counted',
      success({ finishReason: 'MAX_TOKENS', content: { parts: [{ text: 'plan', thought: true }] } }, { usageMetadata: { thoughtsTokenCount: 4090 } }),
      { kind: 'out-of-tokens', reason: 'Gemini spent its whole output budget thinking and wrote no reply (4090 thinking tokens)' },
    ],
  ])('%s', (_what, outcome, verdict) => {
    expect(classifyGeminiOutcome(outcome)).toStrictEqual(verdict);
  });
});
