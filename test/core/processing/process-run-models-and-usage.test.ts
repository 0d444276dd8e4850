// Issue #29 rules: model lists and retired ids, usageMetadata read from an answer, prices, and the day/month totals.
import { describe, expect, it } from 'vitest';
import { firstLiveModel, modelList, modelsFor, nextLiveModel, readRetiredModels, retiredModelsToWrite, RETIRED_MODEL_RECHECK_MS } from '../../../src/core/domain/gemini/model-list';
import { estimateCost, parsePrices, priceOf, usageOf, DEFAULT_PRICES } from '../../../src/core/domain/gemini/token-usage';
import { addCall, readUsage, tokensOn, usageSections, usageToWrite, type UsageTally } from '../../../src/core/domain/gemini/usage-tally';
import { readSettings } from '../../../src/core/domain/config/settings';
import { runProcessing } from '../../../src/core/processing/process-run';
import { fixtureOutcome, okOutcome, pendingRow, T0 as start, world } from '../memory-ports';

const T0 = Date.UTC(2026, 11, 2, 10);

describe('model lists', () => {
  it('GEMINI_MODEL is read as an ordered list without blanks or repeats; its first id is the model', () => {
    const { settings } = readSettings({ GEMINI_MODEL: ' gemini-2.5-flash, ,gemini-3.5-flash,gemini-2.5-flash ' });
    expect(settings.geminiModels).toEqual(['gemini-2.5-flash', 'gemini-3.5-flash']);
    expect(settings.geminiModel).toBe('gemini-2.5-flash');
    expect(readSettings({ GEMINI_MODEL: ' , ' }).settings.geminiModels).toEqual(['gemini-3.5-flash']);
  });

  it("a form's Config list replaces GEMINI_MODEL's; blank keeps it", () => {
    expect(modelsFor('a, b', ['x'])).toEqual(['a', 'b']);
    expect(modelsFor('  ', ['x', 'y'])).toEqual(['x', 'y']);
    expect(modelList('')).toEqual([]);
  });

  it('the first model not known retired is asked; with every one retired the last is asked anyway', () => {
    const retired = new Map([['a', T0]]);
    expect(firstLiveModel(['a', 'b', 'c'], retired)).toBe('b');
    expect(nextLiveModel(['a', 'b', 'c'], 'a', new Map([['a', T0], ['b', T0]]))).toBe('c');
    expect(nextLiveModel(['a', 'b'], 'b', retired)).toBeNull();
    expect(firstLiveModel(['a'], retired)).toBe('a');
  });

  it('a retired id is remembered for a week, then asked again; unreadable storage reads as none', () => {
    const stored = JSON.stringify({ old: T0 - RETIRED_MODEL_RECHECK_MS, fresh: T0 - 1000 });
    expect(Array.from(readRetiredModels(stored, T0).keys())).toEqual(['fresh']);
    expect(readRetiredModels('{not json', T0).size).toBe(0);
    expect(retiredModelsToWrite(new Map([['fresh', T0 - 1000]]), JSON.stringify({ fresh: T0 - 1000 }))).toBeNull();
    expect(retiredModelsToWrite(new Map(), JSON.stringify({ fresh: 1 }))).toBe('');
  });
});

describe('tokens and prices', () => {
  const answer = (body: unknown) => ({ kind: 'http' as const, status: 200, body: JSON.stringify(body) });

  it('usageMetadata gives prompt, output and thinking tokens and modelVersion; an error answer spent nothing we are told of', () => {
    const found = usageOf(answer({ usageMetadata: { promptTokenCount: 812, candidatesTokenCount: 310, thoughtsTokenCount: 512 }, modelVersion: 'gemini-3.5-flash-001' }));
    expect(found).toEqual({ usage: { prompt: 812, output: 310, thinking: 512 }, modelVersion: 'gemini-3.5-flash-001' });
    expect(usageOf(answer({ candidates: [] }))).toEqual({ usage: { prompt: 0, output: 0, thinking: 0 }, modelVersion: '' });
    expect(usageOf({ kind: 'http', status: 404, body: '{}' })).toBeNull();
    expect(usageOf({ kind: 'transport', message: 'Timeout' })).toBeNull();
  });

  it('thinking is billed at the output price; a model without a price has no estimate', () => {
    const price = priceOf(DEFAULT_PRICES, 'gemini-3.5-flash');
    expect(estimateCost({ prompt: 1_000_000, output: 500_000, thinking: 500_000 }, price)).toBeCloseTo(1.5 + 9, 10);
    expect(priceOf(DEFAULT_PRICES, 'gemini-flash-latest', 'gemini-3.5-flash')).toEqual(price);
    expect(estimateCost({ prompt: 1, output: 1, thinking: 0 }, priceOf(DEFAULT_PRICES, 'my-model'))).toBeNull();
  });

  it('GEMINI_PRICES adds or replaces prices; an entry it cannot read is named as a setting problem', () => {
    const { prices, problems } = parsePrices('my-model=0.5/2; gemini-3.5-flash = 1/8 ; nonsense');
    expect(prices['my-model']).toEqual({ input: 0.5, output: 2 });
    expect(prices['gemini-3.5-flash']).toEqual({ input: 1, output: 8 });
    expect(problems).toEqual(['nonsense']);
    expect(readSettings({ GEMINI_PRICES: 'x=1' }).problems.join(' ')).toContain('GEMINI_PRICES');
  });
});

describe('day and month totals', () => {
  const run = (): UsageTally => {
    const tally: UsageTally = {};
    addCall(tally, { formId: 'f1', model: 'gemini-3.5-flash', usage: { prompt: 100, output: 50, thinking: 20 }, cost: 0.001, reply: true });
    addCall(tally, { formId: 'f1', model: 'gemini-3.5-flash', usage: { prompt: 100, output: 0, thinking: 200 }, cost: 0.002, reply: false });
    return tally;
  };

  it('a run adds to the day and the month; a new day starts at zero and keeps the last one for the summary', () => {
    const first = usageToWrite(undefined, run(), '2026-12-01') as string;
    expect(tokensOn(readUsage(first), '2026-12-01')).toBe(470);
    const second = usageToWrite(first, run(), '2026-12-02') as string;
    const stored = readUsage(second);
    expect(tokensOn(stored, '2026-12-02')).toBe(470);
    expect(tokensOn(stored, '2026-12-03')).toBe(0);
    expect(stored.month['f1|gemini-3.5-flash']).toMatchObject({ replies: 2, calls: 4, prompt: 400, thinking: 440 });
    expect(stored.previousDayKey).toBe('2026-12-01');
    expect(usageToWrite(second, {}, '2026-12-02')).toBeNull();
  });

  it('the sections name each period with one line per form and model', () => {
    const stored = readUsage(usageToWrite(undefined, run(), '2026-12-01') as string);
    const sections = usageSections(stored, '2026-12-02');
    expect(sections.map((section) => section.title)).toEqual(['Day 2026-12-01', 'This month so far (2026-12)']);
    expect(sections[0].lines).toEqual(['form f1, gemini-3.5-flash: 1 replies (2 calls), tokens prompt 200, output 50, thinking 220; est. $0.0030']);
  });
});

describe('falling back from a retired model in a run', () => {
  it('a model that answers 404 gives way to the next in the same round, is remembered, and the row keeps one attempt', () => {
    const w = world([pendingRow()], { GEMINI_MODEL: 'old-model, gemini-3.5-flash' });
    const asked: string[] = [];
    w.gemini.respond = (request) => {
      asked.push(request.model);
      return request.model === 'old-model' ? fixtureOutcome(404, 'error-404-model') : okOutcome('A reply.');
    };
    const summary = runProcessing(w.deps, { startedAt: start });
    expect(asked).toEqual(['old-model', 'gemini-3.5-flash']);
    expect(w.queue.row(2)).toMatchObject({ attempts: 1, result: 'A reply.' });
    expect(Array.from(summary.retiredModels.keys())).toEqual(['old-model']);
    expect(w.incidents.raised.map((raise: { code: string }) => raise.code)).toContain('GEMINI_MODEL_RETIRED');
  });

  it('when every model answers 404 (a wrong base URL looks the same) none is remembered as retired', () => {
    const w = world([pendingRow()], { GEMINI_MODEL: 'a-model, b-model' });
    w.gemini.respond = () => fixtureOutcome(404, 'error-404-model');
    const summary = runProcessing(w.deps, { startedAt: start });
    expect(summary.retiredModels.size).toBe(0);
    expect(summary.generationHaltedBy).toBe('GEMINI_MODEL_NOT_FOUND');
    expect(w.queue.row(2).attempts).toBe(0);
    expect(w.incidents.raised.map((raise: { code: string }) => raise.code)).not.toContain('GEMINI_MODEL_RETIRED');
  });
});
