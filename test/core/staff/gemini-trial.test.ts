// Set a Script Property… tries a new Gemini key or model with one tiny request: which changes are tried, and what each answer means.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { geminiTrialOf, judgeGeminiTrial } from '../../../src/core/staff/gemini-trial';
import type { GeminiOutcome } from '../../../src/core/domain/ports';

const KEY = `AIza${'x'.repeat(35)}`;
/** Gemini's real bodies, as the runtime ships them. */
const body = (name: string) => readFileSync(new URL(`../../../emulator/gemini-bodies/${name}.json`, import.meta.url), 'utf8');
const http = (status: number, name: string): GeminiOutcome => ({ kind: 'http', status, body: body(name) });

describe('geminiTrialOf', () => {
  it.each<[string, Record<string, string>, Record<string, string>, { apiKey: string; model: string } | null]>([
    ['a new key, no model set: the default model', { GEMINI_API_KEY: KEY }, {}, { apiKey: KEY, model: 'gemini-3.5-flash' }],
    ['a new model list: its first model, with the key already set', { GEMINI_MODEL: 'gemini-3.5-pro, gemini-3.5-flash' }, { GEMINI_API_KEY: KEY }, { apiKey: KEY, model: 'gemini-3.5-pro' }],
    ['a new model and no key yet: nothing to try it with', { GEMINI_MODEL: 'gemini-3.5-pro' }, {}, null],
    ['another setting: not tried', { MAX_ATTEMPTS: '3' }, { GEMINI_API_KEY: KEY }, null],
  ])('%s', (_what, set, current, expected) => {
    expect(geminiTrialOf({ set, remove: [] }, current)).toEqual(expected);
  });

  it('removing the key tries nothing', () => {
    expect(geminiTrialOf({ set: {}, remove: ['GEMINI_API_KEY'] }, { GEMINI_API_KEY: KEY })).toBeNull();
  });
});

describe('judgeGeminiTrial', () => {
  it.each<[string, GeminiOutcome, RegExp | null, RegExp]>([
    ['a reply: saved, and said so', http(200, 'ok'), null, /^ Gemini answered a one-line test with this key and gemini-3\.5-flash\.$/],
    ['400 API_KEY_INVALID: asked before saving', http(400, 'error-400-bad-key'), /^Gemini refused this API key in a one-line test/, /refused the key/],
    ['404 for the model: asked before saving', http(404, 'error-404-model'), /^Gemini does not know the model gemini-3\.5-flash for this key/, /does not know the model/],
    ['503: says it could not be tried, saves', http(503, 'error-503'), null, /could not be tried now/],
    ['a 429 per minute: could not be tried, saves', http(429, 'error-429-per-minute'), null, /could not be tried now/],
    ['no answer at all: could not be tried, saves', { kind: 'transport', message: 'Timeout: https://generativelanguage.googleapis.com' }, null, /could not be tried now/],
  ])('%s', (_what, outcome, refused, note) => {
    const verdict = judgeGeminiTrial(outcome, 'gemini-3.5-flash');
    if (refused === null) expect(verdict.refused).toBeNull();
    else expect(verdict.refused).toMatch(refused);
    expect(verdict.note).toMatch(note);
  });
});

describe('geminiTrialOf: the value as saved', () => {
  it.each<[string, Record<string, string>, { apiKey: string; model: string } | null]>([
    ['a key pasted with spaces and a line break is tried without them', { GEMINI_API_KEY: `  ${KEY}\n` }, { apiKey: KEY, model: 'gemini-3.5-flash' }],
    ['a key of blanks alone is no key: nothing tried', { GEMINI_API_KEY: '  \n' }, null],
    ['a model list of blanks: the default model', { GEMINI_API_KEY: KEY, GEMINI_MODEL: '   ' }, { apiKey: KEY, model: 'gemini-3.5-flash' }],
  ])('%s', (_what, set, expected) => {
    expect(geminiTrialOf({ set, remove: [] }, {})).toEqual(expected);
  });
});

describe('judgeGeminiTrial: a quota says nothing about the key or the model', () => {
  const couldNotTry = { refused: null, note: ' It could not be tried now (Gemini did not answer the one-line test clearly): formqueue → Self-test tries it again.' };
  it.each<[string, GeminiOutcome]>([
    ['Gemini\'s daily quota used up (429 per day)', http(429, 'error-429-per-day')],
    ['Apps Script\'s daily URL Fetch quota used up', { kind: 'transport', message: 'Service invoked too many times for one day: urlfetch.' }],
  ])('%s: saved, and said it could not be tried', (_what, outcome) => {
    expect(judgeGeminiTrial(outcome, 'gemini-3.5-flash')).toEqual(couldNotTry);
  });

  it.each<[string, GeminiOutcome, { refused: string | null; note: string }]>([
    [
      'the key refused',
      http(400, 'error-400-bad-key'),
      {
        refused: 'Gemini refused this API key in a one-line test: no reply can be written with it. Create a key in Google AI Studio and set it again. Save it anyway?',
        note: ' Gemini refused the key in a one-line test.',
      },
    ],
    [
      'the model unknown',
      http(404, 'error-404-model'),
      { refused: 'Gemini does not know the model gemini-2.0-old for this key (models are retired often): no reply can be written with it. Save it anyway?', note: ' Gemini does not know the model gemini-2.0-old.' },
    ],
  ])('%s: the question and the note, exactly', (_what, outcome, expected) => {
    expect(judgeGeminiTrial(outcome, 'gemini-2.0-old')).toEqual(expected);
  });
});
