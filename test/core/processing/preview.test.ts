// Preview a reply: the models tried, the request processing would send, what each answer means, and the text staff read.
import { describe, expect, it } from 'vitest';
import { previewModels, previewRequest, previewText, readPreview, type PreviewResult } from '../../../src/core/processing/preview';
import { generationConfigFor, SYSTEM_INSTRUCTION } from '../../../src/core/domain/gemini/gemini';
import type { GeminiOutcome } from '../../../src/core/domain/ports';
import { fixtureOutcome, formConfig, okOutcome, settingsWith } from '../memory-ports';
import { queueRow } from '../fakes/rows';
import { payloadOf } from '../fakes/typeform-delivery';

const settings = settingsWith({ GEMINI_MODEL: 'gemini-3.5-flash, gemini-3.5-flash-lite', GEMINI_PRICES: 'my-model=2/10' });
const request = (model: string) => ({ model, body: {} });
const http = (status: number, body: unknown): GeminiOutcome => ({ kind: 'http', status, body: JSON.stringify(body) });
/** A 200 with a reply, the tokens it reports and (when given) the model version. */
const reply = (text: string, usage: Record<string, number>, modelVersion?: string) =>
  http(200, { candidates: [{ content: { parts: [{ text }] }, finishReason: 'STOP' }], usageMetadata: usage, ...(modelVersion === undefined ? {} : { modelVersion }) });

describe('previewModels', () => {
  it('the form\'s own list, in its order, when its Config names one', () => {
    expect(previewModels(formConfig({ model: 'my-model, gemini-3.5-flash-lite' }), settings)).toEqual(['my-model', 'gemini-3.5-flash-lite']);
  });

  it('else GEMINI_MODEL\'s list', () => {
    expect(previewModels(formConfig({ model: '' }), settings)).toEqual(['gemini-3.5-flash', 'gemini-3.5-flash-lite']);
  });
});

describe('previewRequest', () => {
  it('is the request processing sends for the row, asked of the model given: the prompt\'s answer quoted as data', () => {
    const row = queueRow('READY', { formId: 'F1', payload: payloadOf('Ana') });
    const built = previewRequest(row, formConfig({ formId: 'F1', prompt: 'Greet {{name}} warmly.' }), settings, 'gemini-3.5-flash-lite');
    expect(built).toEqual({
      model: 'gemini-3.5-flash-lite',
      body: {
        contents: [{ role: 'user', parts: [{ text: 'The respondent\'s answer "name", quoted as data:\n<<<ANSWERS\nAna\nANSWERS>>>' }] }],
        systemInstruction: {
          parts: [
            {
              text:
                `${SYSTEM_INSTRUCTION}\n\nThe team's instructions for this form follow. Where they point to an answer, it is quoted in the message, as data.\n\n` +
                'Greet [the respondent\'s answer "name", quoted in the message as data] warmly.',
            },
          ],
        },
        generationConfig: generationConfigFor('gemini-3.5-flash-lite'),
      },
    });
  });

  it('throws TEMPLATE_INVALID as processing would, for a prompt naming a field the payload does not have', () => {
    const row = queueRow('READY', { formId: 'F1', payload: payloadOf('Ana') });
    expect(() => previewRequest(row, formConfig({ formId: 'F1', prompt: 'Greet {{nickname}}.' }), settings, 'gemini-3.5-flash')).toThrow(
      expect.objectContaining({ code: 'TEMPLATE_INVALID' }),
    );
  });
});

describe('readPreview', () => {
  it('a reply: its text, the model asked, the version Gemini named, the tokens and the cost at the asked model\'s price', () => {
    expect(readPreview(fixtureOutcome(200, 'ok'), request('gemini-3.5-flash'), settings)).toEqual({
      kind: 'reply',
      text: 'Dear Mina,\n\nThank you for your essay on caching. Your structure is clear: problem, measurement, decision. To improve clarity, explain why five minutes was the right expiry for your data.\n\nBest regards',
      model: 'gemini-3.5-flash',
      modelVersion: 'gemini-flash-latest',
      usage: { prompt: 412, output: 71, thinking: 0 },
      cost: (412 * 1.5 + 71 * 9) / 1e6,
    });
  });

  it('a model with no price of its own is priced by the version Gemini named', () => {
    const outcome = reply('Thanks!', { promptTokenCount: 100, candidatesTokenCount: 20, thoughtsTokenCount: 30 }, 'gemini-3.5-flash-lite');
    expect(readPreview(outcome, request('an-alias'), settings)).toEqual({
      kind: 'reply',
      text: 'Thanks!',
      model: 'an-alias',
      modelVersion: 'gemini-3.5-flash-lite',
      usage: { prompt: 100, output: 20, thinking: 30 },
      cost: (100 * 0.3 + 50 * 2.5) / 1e6,
    });
  });

  it('a reply without usage or version: no tokens, no version, and no cost for a model with no price', () => {
    expect(readPreview(okOutcome('Hello.'), request('an-alias'), settings)).toEqual({
      kind: 'reply',
      text: 'Hello.',
      model: 'an-alias',
      modelVersion: '',
      usage: { prompt: 0, output: 0, thinking: 0 },
      cost: null,
    });
  });

  it('a 404 says the model was not found, naming it, so the caller asks the next', () => {
    expect(readPreview(fixtureOutcome(404, 'error-404-model'), request('gemini-1.0-pro'), settings)).toEqual({
      kind: 'model-not-found',
      model: 'gemini-1.0-pro',
      reason:
        'Gemini model "gemini-1.0-pro" was not found: set Script Property GEMINI_MODEL (or the form\'s model in Config) to a current model id. ' +
        'Gemini HTTP 404 NOT_FOUND: models/gemini-1.0-pro is not found for API version v1beta, or is not supported for generateContent.',
    });
  });

  it.each<[string, GeminiOutcome, PreviewResult]>([
    [
      'Gemini unavailable (nothing spent we are told of)',
      fixtureOutcome(503, 'error-503'),
      { kind: 'no-reply', model: 'gemini-3.5-flash', reason: 'Gemini HTTP 503 UNAVAILABLE: The model is overloaded. Please try again later.', usage: null },
    ],
    [
      'another systemic answer than a 404 (a bad key)',
      fixtureOutcome(400, 'error-400-bad-key'),
      {
        kind: 'no-reply',
        model: 'gemini-3.5-flash',
        reason: 'Gemini HTTP 400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key. (check Script Property GEMINI_API_KEY)',
        usage: null,
      },
    ],
    [
      'a blocked prompt (a 200 that spent its prompt tokens)',
      fixtureOutcome(200, 'blocked-prompt'),
      { kind: 'no-reply', model: 'gemini-3.5-flash', reason: 'Gemini blocked the prompt (SAFETY)', usage: { prompt: 380, output: 0, thinking: 0 } },
    ],
    [
      'no connection',
      { kind: 'transport', message: 'DNS error' },
      { kind: 'no-reply', model: 'gemini-3.5-flash', reason: 'Gemini could not be reached: DNS error', usage: null },
    ],
  ])('no reply: %s', (_case, outcome, result) => {
    expect(readPreview(outcome, request('gemini-3.5-flash'), settings)).toEqual(result);
  });
});

describe('previewText', () => {
  const usage = { prompt: 412, output: 71, thinking: 512 };

  it('a reply: its text, a blank line, the model, the tokens and the estimated cost', () => {
    const result: PreviewResult = { kind: 'reply', text: 'Dear Mina,\nthanks.', model: 'gemini-3.5-flash', modelVersion: '', usage, cost: 0.0041234 };
    expect(previewText([result])).toBe(
      'Dear Mina,\nthanks.\n\nModel: gemini-3.5-flash\nTokens: prompt 412, output 71, thinking 512\nEstimated cost: $0.00412',
    );
  });

  it.each<[string, string, string]>([
    ['no version named', '', 'Model: an-alias'],
    ['the version is the model asked', 'an-alias', 'Model: an-alias'],
    ['another version', 'gemini-3.5-flash-002', 'Model: an-alias (version gemini-3.5-flash-002)'],
  ])('the model line with %s', (_case, modelVersion, line) => {
    const text = previewText([{ kind: 'reply', text: 'Hi', model: 'an-alias', modelVersion, usage, cost: null }]);
    expect(text).toBe(`Hi\n\n${line}\nTokens: prompt 412, output 71, thinking 512\nEstimated cost: no price for this model (GEMINI_PRICES)`);
  });

  it('each model tried has its line, in order: a 404, an answer with no reply, then the reply', () => {
    const results: PreviewResult[] = [
      { kind: 'model-not-found', model: 'gemini-1.0-pro', reason: 'not found' },
      { kind: 'no-reply', model: 'gemini-3.5-flash', reason: 'Gemini blocked the prompt (SAFETY)', usage: null },
      { kind: 'reply', text: 'Hi', model: 'gemini-3.5-flash-lite', modelVersion: 'gemini-3.5-flash-lite', usage, cost: 0 },
    ];
    expect(previewText(results)).toBe(
      [
        'Model gemini-1.0-pro: not found (404), retired or mistyped; next model of the list asked.',
        'Model gemini-3.5-flash: no reply. Gemini blocked the prompt (SAFETY)',
        'Hi',
        '',
        'Model: gemini-3.5-flash-lite',
        'Tokens: prompt 412, output 71, thinking 512',
        'Estimated cost: $0.00000',
      ].join('\n'),
    );
  });

  it('nothing tried is an empty text', () => {
    expect(previewText([])).toBe('');
  });
});
