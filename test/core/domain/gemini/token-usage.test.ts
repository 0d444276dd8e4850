// What a Gemini answer says it spent, the price table (defaults and GEMINI_PRICES), and the Log's words for a reply's cost.
import { describe, expect, it } from 'vitest';
import type { GeminiOutcome } from '../../../../src/core/domain/ports';
import { addUsage, formatCost, parsePrices, priceOf, usageDetail, usageOf, type ModelPrice } from '../../../../src/core/domain/gemini/token-usage';

const http = (status: number, body: string): GeminiOutcome => ({ kind: 'http', status, body });
const METADATA = JSON.stringify({ usageMetadata: { promptTokenCount: 812, candidatesTokenCount: 310, thoughtsTokenCount: 512 }, modelVersion: 'gemini-3.5-flash-001' });
const SPENT = { usage: { prompt: 812, output: 310, thinking: 512 }, modelVersion: 'gemini-3.5-flash-001' };
const NOTHING = { usage: { prompt: 0, output: 0, thinking: 0 }, modelVersion: '' };

const DEFAULTS: Record<string, ModelPrice> = {
  'gemini-3.5-flash': { input: 1.5, output: 9 },
  'gemini-3.5-flash-lite': { input: 0.3, output: 2.5 },
  'gemini-3.1-pro-preview': { input: 2, output: 12 },
};

describe('usageOf', () => {
  it.each([
    [199, null],
    [200, SPENT],
    [299, SPENT],
    [300, null],
    [404, null],
    [503, null],
  ])('an answer with status %i reports %j', (status, expected) => {
    expect(usageOf(http(status, METADATA))).toEqual(expected);
  });

  it('a transport failure spent nothing we are told of', () => {
    expect(usageOf({ kind: 'transport', message: 'Timeout' })).toBeNull();
  });

  it.each([
    ['text that is not JSON', 'Service Unavailable', null],
    ['JSON null', 'null', null],
    ['a number', '5', null],
    ['a string', '"text"', null],
    ['an object without usageMetadata', '{}', NOTHING],
    ['a null usageMetadata', '{"usageMetadata":null}', NOTHING],
    ['a usageMetadata that is not an object', '{"usageMetadata":"812"}', NOTHING],
  ])('a 200 body that is %s reports %j', (_name, body, expected) => {
    expect(usageOf(http(200, body))).toEqual(expected);
  });

  it.each([
    ['negative', -5, 0],
    ['fractional', 12.9, 12],
    ['numeric text', '40', 40],
    ['non-numeric text', 'many', 0],
    ['null', null, 0],
  ])('a %s token count reads as %i', (_name, value, expected) => {
    const body = JSON.stringify({ usageMetadata: { promptTokenCount: value, candidatesTokenCount: value, thoughtsTokenCount: value } });
    expect(usageOf(http(200, body))).toEqual({ usage: { prompt: expected, output: expected, thinking: expected }, modelVersion: '' });
  });

  it('a count too large to be a number (1e999) reads as 0', () => {
    expect(usageOf(http(200, '{"usageMetadata":{"promptTokenCount":1e999,"candidatesTokenCount":3}}'))).toEqual({ usage: { prompt: 0, output: 3, thinking: 0 }, modelVersion: '' });
  });

  it('modelVersion is kept to 100 characters, and anything but text is none', () => {
    expect(usageOf(http(200, JSON.stringify({ modelVersion: 'v'.repeat(150) })))?.modelVersion).toBe('v'.repeat(100));
    expect(usageOf(http(200, JSON.stringify({ modelVersion: 3.5 })))?.modelVersion).toBe('');
  });
});

describe('addUsage', () => {
  it('adds prompt, output and thinking tokens each to its own', () => {
    expect(addUsage({ prompt: 10, output: 20, thinking: 30 }, { prompt: 3, output: 2, thinking: 1 })).toEqual({ prompt: 13, output: 22, thinking: 31 });
  });
});

describe('priceOf', () => {
  const own = { input: 1, output: 2 };
  const version = { input: 3, output: 4 };
  const blank = { input: 5, output: 6 };

  it.each<[string, Record<string, ModelPrice>, string, string, ModelPrice | null]>([
    ["the model's own price comes before its version's", { m: own, v: version }, 'm', 'v', own],
    ['the version Gemini named is priced when the model is not', { v: version }, 'm', 'v', version],
    ['neither priced: no price', { other: own }, 'm', 'v', null],
    ['a blank version names no model, even beside a blank entry', { '': blank }, 'm', '', null],
  ])('%s', (_name, prices, model, modelVersion, expected) => {
    expect(priceOf(prices, model, modelVersion)).toEqual(expected);
  });
});

describe('formatCost', () => {
  it.each([
    [0.00412, '$0.00412'],
    [0, '$0.00000'],
    [1.234567, '$1.23457'],
    [null, 'no price for this model (GEMINI_PRICES)'],
  ])('%j reads %j', (cost, text) => {
    expect(formatCost(cost)).toBe(text);
  });
});

describe('usageDetail', () => {
  const usage = { prompt: 812, output: 310, thinking: 512 };

  it.each([
    ['gemini-3.5-flash', '', 0.00807, 'model gemini-3.5-flash; tokens: prompt 812, output 310, thinking 512; est. $0.00807'],
    ['gemini-3.5-flash', 'gemini-3.5-flash', 0.00807, 'model gemini-3.5-flash; tokens: prompt 812, output 310, thinking 512; est. $0.00807'],
    [
      'gemini-flash-latest',
      'gemini-3.5-flash-001',
      null,
      'model gemini-flash-latest (version gemini-3.5-flash-001); tokens: prompt 812, output 310, thinking 512; est. no price for this model (GEMINI_PRICES)',
    ],
  ])('model %j answered as version %j reads in full', (model, modelVersion, cost, text) => {
    expect(usageDetail(model, modelVersion, usage, cost)).toBe(text);
  });
});

describe('parsePrices', () => {
  it('no GEMINI_PRICES leaves the default table', () => {
    expect(parsePrices('')).toEqual({ prices: DEFAULTS, problems: [] });
  });

  it.each<[string, string, ModelPrice]>([
    ['my-model=0.3/2.5', 'my-model', { input: 0.3, output: 2.5 }],
    ['my-model = 12.25 / 30.25', 'my-model', { input: 12.25, output: 30.25 }],
    ['vendor/model.v2_x=1000/1000', 'vendor/model.v2_x', { input: 1000, output: 1000 }],
    ['gemini-3.5-flash=1/8', 'gemini-3.5-flash', { input: 1, output: 8 }],
  ])('%j prices %j', (text, model, price) => {
    expect(parsePrices(text)).toEqual({ prices: { ...DEFAULTS, [model]: price }, problems: [] });
  });

  it.each([
    ['a name with a space', 'my model=1/2'],
    ['words after the prices', 'my-model=1/2 per 1M'],
    ['an input price over 1000', 'my-model=1001/2'],
    ['an output price over 1000', 'my-model=2/1001'],
    ['a decimal point without digits', 'my-model=1/2.x'],
    ['no output price', 'my-model=1'],
  ])('%s is a problem and prices nothing', (_name, text) => {
    expect(parsePrices(text)).toEqual({ prices: DEFAULTS, problems: [text] });
  });

  it('entries are separated by semicolons or new lines, blank ones ignored', () => {
    expect(parsePrices('a=1/2;;\n b=3/4 \n\nnonsense')).toEqual({ prices: { ...DEFAULTS, a: { input: 1, output: 2 }, b: { input: 3, output: 4 } }, problems: ['nonsense'] });
  });
});
