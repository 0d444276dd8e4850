// A round's answers per row: what each call spent (row and run tally), and a 404'd model giving way to the next of the row's list.
import { describe, expect, it } from 'vitest';
import { askedRow, fallBackFromRetired, noteSpent, spentDetail, type AskedRow } from '../../../src/core/processing/model-fallback';
import { generationConfigFor } from '../../../src/core/domain/gemini/gemini';
import { classifyGeminiOutcome, type GeminiVerdict } from '../../../src/core/domain/gemini/gemini-outcome';
import type { GeminiOutcome, GeminiRequest } from '../../../src/core/domain/ports';
import type { Run } from '../../../src/core/processing/run-context';
import { fixtureOutcome, okOutcome, runOf, T0, world, type World } from '../memory-ports';

const HOUR = 3_600_000;
const http = (status: number, body: unknown): GeminiOutcome => ({ kind: 'http', status, body: JSON.stringify(body) });
const requestOf = (model: string): GeminiRequest => ({ model, body: { contents: [{ role: 'user', parts: [{ text: 'essay' }] }] } });
/** The request as a fallback sends it: the same body, the new model's generationConfig. */
const fallbackOf = (model: string): GeminiRequest => ({ model, body: { contents: [{ role: 'user', parts: [{ text: 'essay' }] }], generationConfig: generationConfigFor(model) } });
const asking = (model: string, models: readonly string[], formId = 'F1'): AskedRow => askedRow(formId, requestOf(model), models);
const NOT_FOUND = fixtureOutcome(404, 'error-404-model');
const notFound = (model: string): GeminiVerdict => classifyGeminiOutcome(NOT_FOUND, { model });
const OK: GeminiVerdict = { kind: 'ok', text: 'Dear Mina' };
const OK_TEXT =
  'Dear Mina,\n\nThank you for your essay on caching. Your structure is clear: problem, measurement, decision. To improve clarity, explain why five minutes was the right expiry for your data.\n\nBest regards';

/** A world whose Gemini answers 404 for the models named, and the ok fixture for any other; its run at T0 + 5. */
function setup(retiredModels: string[] = []): { w: World; run: Run; call: (requests: readonly GeminiRequest[]) => GeminiOutcome[] } {
  const w = world([]);
  const run = runOf(w);
  w.clock.time = T0 + 5;
  w.gemini.respond = (request) => (retiredModels.includes(request.model) ? NOT_FOUND : fixtureOutcome(200, 'ok'));
  return { w, run, call: (requests) => w.gemini.generateAll(requests) };
}

const retiredLine = (from: string, to: string) => `Gemini answered 404 (not found) for model ${from}: it is retired or unknown. Replies are now written by ${to}.`;

describe('askedRow', () => {
  it('starts with the model its request asks, nothing spent and no model version', () => {
    const request = requestOf('gemini-3.5-flash');
    expect(askedRow('F1', request, ['gemini-3.5-flash', 'gemini-3.5-flash-lite'])).toEqual({
      formId: 'F1',
      request,
      models: ['gemini-3.5-flash', 'gemini-3.5-flash-lite'],
      spent: { prompt: 0, output: 0, thinking: 0 },
      modelVersion: '',
    });
  });
});

describe('noteSpent', () => {
  it('a reply adds its tokens to the row, takes the version Gemini named, and adds one priced reply to the run\'s tally under the form and the model asked', () => {
    const { run } = setup();
    const row = asking('gemini-3.5-flash', ['gemini-3.5-flash']);
    noteSpent(run, row, fixtureOutcome(200, 'ok'));
    expect(row).toEqual({ ...asking('gemini-3.5-flash', ['gemini-3.5-flash']), spent: { prompt: 412, output: 71, thinking: 0 }, modelVersion: 'gemini-flash-latest' });
    expect(run.summary.usage).toEqual({
      'F1|gemini-3.5-flash': { replies: 1, calls: 1, prompt: 412, output: 71, thinking: 0, cost: (412 * 1.5 + 71 * 9) / 1e6, unpriced: 0 },
    });
  });

  it('a second answer adds up; one that is no reply counts as a call, not a reply, and one naming no version keeps the version named before', () => {
    const { run } = setup();
    const row = asking('gemini-3.5-flash', ['gemini-3.5-flash']);
    noteSpent(run, row, fixtureOutcome(200, 'ok'));
    noteSpent(run, row, http(200, { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 380, thoughtsTokenCount: 7 } }));
    expect(row.spent).toEqual({ prompt: 792, output: 71, thinking: 7 });
    expect(row.modelVersion).toBe('gemini-flash-latest');
    expect(run.summary.usage).toEqual({
      'F1|gemini-3.5-flash': { replies: 1, calls: 2, prompt: 792, output: 71, thinking: 7, cost: (412 * 1.5 + 71 * 9) / 1e6 + (380 * 1.5 + 7 * 9) / 1e6, unpriced: 0 },
    });
  });

  it('a model with no price of its own is priced by the version Gemini named; with neither priced the call counts as unpriced', () => {
    const { run } = setup();
    const alias = asking('an-alias', ['an-alias'], 'F2');
    noteSpent(run, alias, http(200, { usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20 }, modelVersion: 'gemini-3.5-flash-lite' }));
    const unknown = asking('my-model', ['my-model'], 'F2');
    noteSpent(run, unknown, http(200, { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2 }, modelVersion: 'my-model-001' }));
    expect(run.summary.usage).toEqual({
      'F2|an-alias': { replies: 0, calls: 1, prompt: 100, output: 20, thinking: 0, cost: (100 * 0.3 + 20 * 2.5) / 1e6, unpriced: 0 },
      'F2|my-model': { replies: 0, calls: 1, prompt: 10, output: 2, thinking: 0, cost: 0, unpriced: 1 },
    });
    expect(unknown.modelVersion).toBe('my-model-001');
  });

  it.each<[string, GeminiOutcome]>([
    ['an error answer', fixtureOutcome(503, 'error-503')],
    ['a 404', NOT_FOUND],
    ['no connection', { kind: 'transport', message: 'Timeout' }],
    ['a 200 that is not JSON', { kind: 'http', status: 200, body: '<html>captive portal</html>' }],
  ])('%s spent nothing we are told of: the row and the tally are left as they were', (_case, outcome) => {
    const { run } = setup();
    const row = asking('gemini-3.5-flash', ['gemini-3.5-flash']);
    row.modelVersion = 'earlier';
    noteSpent(run, row, outcome);
    expect(row).toEqual({ ...asking('gemini-3.5-flash', ['gemini-3.5-flash']), modelVersion: 'earlier' });
    expect(run.summary.usage).toEqual({});
  });
});

describe('spentDetail', () => {
  it.each<[string, string, string, string]>([
    ['a priced model, another version', 'gemini-3.5-flash', 'gemini-flash-latest', 'model gemini-3.5-flash (version gemini-flash-latest); tokens: prompt 412, output 71, thinking 9; est. $0.00134'],
    ['the version is the model asked', 'gemini-3.5-flash', 'gemini-3.5-flash', 'model gemini-3.5-flash; tokens: prompt 412, output 71, thinking 9; est. $0.00134'],
    ['an alias priced by its version', 'an-alias', 'gemini-3.5-flash', 'model an-alias (version gemini-3.5-flash); tokens: prompt 412, output 71, thinking 9; est. $0.00134'],
    ['no price for either', 'my-model', '', 'model my-model; tokens: prompt 412, output 71, thinking 9; est. no price for this model (GEMINI_PRICES)'],
  ])('%s', (_case, model, modelVersion, detail) => {
    const { run } = setup();
    const row = { ...asking(model, [model]), spent: { prompt: 412, output: 71, thinking: 9 }, modelVersion };
    expect(spentDetail(run, row)).toBe(detail);
  });
});

describe('fallBackFromRetired', () => {
  it('a 404 moves the row to the next model of its list, asked at once; the retired id is remembered with the time and staff are told which replaced which', () => {
    const { w, run, call } = setup();
    const rows = [asking('gemini-1.0-pro', ['gemini-1.0-pro', 'gemini-3.5-flash']), asking('gemini-3.5-flash-lite', ['gemini-3.5-flash-lite'], 'F2')];
    const verdicts = [notFound('gemini-1.0-pro'), OK];
    fallBackFromRetired(run, rows, verdicts, call);
    expect(w.gemini.calls).toEqual([[fallbackOf('gemini-3.5-flash')]]);
    expect(verdicts).toEqual([{ kind: 'ok', text: OK_TEXT }, OK]);
    expect(rows[0]).toEqual({
      formId: 'F1',
      request: fallbackOf('gemini-3.5-flash'),
      models: ['gemini-1.0-pro', 'gemini-3.5-flash'],
      spent: { prompt: 412, output: 71, thinking: 0 },
      modelVersion: 'gemini-flash-latest',
    });
    expect(rows[1]).toEqual(asking('gemini-3.5-flash-lite', ['gemini-3.5-flash-lite'], 'F2'));
    expect(run.summary.usage).toEqual({
      'F1|gemini-3.5-flash': { replies: 1, calls: 1, prompt: 412, output: 71, thinking: 0, cost: (412 * 1.5 + 71 * 9) / 1e6, unpriced: 0 },
    });
    expect(run.summary.retiredModels).toEqual(new Map([['gemini-1.0-pro', T0 + 5]]));
    expect(w.incidents.raised).toEqual([{ code: 'GEMINI_MODEL_RETIRED', detail: retiredLine('gemini-1.0-pro', 'gemini-3.5-flash'), rows: [] }]);
    expect(run.raised).toEqual(new Set(['GEMINI_MODEL_RETIRED']));
  });

  it('a model known retired is passed over for the next one in the list', () => {
    const { w, run, call } = setup();
    run.summary.retiredModels.set('b', T0 - HOUR);
    const rows = [asking('a', ['a', 'b', 'gemini-3.5-flash']), asking('gemini-3.5-flash', ['gemini-3.5-flash'])];
    fallBackFromRetired(run, rows, [notFound('a'), OK], call);
    expect(w.gemini.calls).toEqual([[fallbackOf('gemini-3.5-flash')]]);
    expect(run.summary.retiredModels).toEqual(new Map([['b', T0 - HOUR], ['a', T0 + 5]]));
    expect(w.incidents.raised.map((incident) => incident.detail)).toEqual([retiredLine('a', 'gemini-3.5-flash')]);
  });

  it('a fallback that answers 404 too gives way to the next: one call per step, each model remembered, each replacement told', () => {
    const { w, run, call } = setup(['a', 'b']);
    const rows = [asking('a', ['a', 'b', 'c']), asking('d', ['d'])];
    const verdicts = [notFound('a'), OK];
    fallBackFromRetired(run, rows, verdicts, call);
    expect(w.gemini.calls).toEqual([[fallbackOf('b')], [fallbackOf('c')]]);
    expect(verdicts).toEqual([{ kind: 'ok', text: OK_TEXT }, OK]);
    expect(run.summary.retiredModels).toEqual(new Map([['a', T0 + 5], ['b', T0 + 5]]));
    expect(w.incidents.raised).toEqual([{ code: 'GEMINI_MODEL_RETIRED', detail: `${retiredLine('a', 'b')}\n${retiredLine('b', 'c')}`, rows: [] }]);
  });

  it('rows on the same retired model move together, in one call, in row order', () => {
    const { w, run, call } = setup();
    const rows = [asking('a', ['a', 'gemini-3.5-flash']), asking('d', ['d']), asking('a', ['a', 'gemini-3.5-flash-lite'], 'F2')];
    const verdicts = [notFound('a'), OK, notFound('a')];
    fallBackFromRetired(run, rows, verdicts, call);
    expect(w.gemini.calls).toEqual([[fallbackOf('gemini-3.5-flash'), fallbackOf('gemini-3.5-flash-lite')]]);
    expect(verdicts).toEqual([{ kind: 'ok', text: OK_TEXT }, OK, { kind: 'ok', text: OK_TEXT }]);
    // One line per retired id, naming every model that replaced it (each form's list goes on to its own next model).
    expect(w.incidents.raised.map((incident) => incident.detail)).toEqual([
      'Gemini answered 404 (not found) for model a: it is retired or unknown. Replies are now written by gemini-3.5-flash or gemini-3.5-flash-lite (the next model on each form\'s list).',
    ]);
  });

  it('a row whose list has no model left keeps its 404; the id is remembered, as another row\'s model answered; nothing replaced, nothing told', () => {
    const { w, run, call } = setup();
    const first = notFound('a');
    const verdicts = [first, OK];
    fallBackFromRetired(run, [asking('a', ['a']), asking('d', ['d'])], verdicts, call);
    expect(w.gemini.calls).toEqual([]);
    expect(verdicts[0]).toBe(first);
    expect(verdicts).toEqual([notFound('a'), OK]);
    expect(run.summary.retiredModels).toEqual(new Map([['a', T0 + 5]]));
    expect(w.incidents.raised).toEqual([]);
  });

  it('every model of the round answering 404 (a wrong GEMINI_BASE_URL looks like that): no id is remembered as retired and no replacement is told', () => {
    const { w, run, call } = setup(['a', 'b', 'c']);
    run.summary.retiredModels.set('x', T0 - HOUR);
    const rows = [asking('a', ['a', 'b']), asking('c', ['c'])];
    const verdicts = [notFound('a'), notFound('c')];
    fallBackFromRetired(run, rows, verdicts, call);
    expect(w.gemini.calls).toEqual([[fallbackOf('b')]]);
    expect(verdicts).toEqual([notFound('b'), notFound('c')]);
    expect(run.summary.retiredModels).toEqual(new Map([['x', T0 - HOUR]]));
    expect(w.incidents.raised).toEqual([]);
    expect(run.raised).toEqual(new Set());
  });

  it('with the run\'s budget spent the next model is not asked: the row goes back uncharged, naming it, and the retired id is still told', () => {
    const { w, run, call } = setup();
    w.clock.time = run.deadline;
    const rows = [asking('a', ['a', 'b']), asking('d', ['d'])];
    const verdicts = [notFound('a'), OK];
    fallBackFromRetired(run, rows, verdicts, call);
    expect(w.gemini.calls).toEqual([]);
    expect(verdicts).toEqual([{ kind: 'retryable', reason: "the model was not found; the run's budget ended before b was asked", uncharged: true }, OK]);
    expect(rows[0].request).toEqual(fallbackOf('b'));
    expect(run.summary.retiredModels).toEqual(new Map([['a', run.deadline]]));
    expect(w.incidents.raised.map((incident) => incident.detail)).toEqual([retiredLine('a', 'b')]);
  });

  it('a round walks at most five models down a list: the sixth 404 stays the row\'s verdict, and that model is remembered too, so the next run starts past it', () => {
    const models = ['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6'];
    const { w, run, call } = setup(models);
    const rows = [asking('m0', models), asking('d', ['d'])];
    const verdicts = [notFound('m0'), OK];
    fallBackFromRetired(run, rows, verdicts, call);
    expect(w.gemini.calls).toEqual(['m1', 'm2', 'm3', 'm4', 'm5'].map((model) => [fallbackOf(model)]));
    expect(verdicts).toEqual([notFound('m5'), OK]);
    expect(rows[0].request.model).toBe('m5');
    expect(Array.from(run.summary.retiredModels.keys())).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    expect(w.incidents.raised.map((incident) => incident.detail.split('\n'))).toEqual([
      [retiredLine('m0', 'm1'), retiredLine('m1', 'm2'), retiredLine('m2', 'm3'), retiredLine('m3', 'm4'), retiredLine('m4', 'm5')],
    ]);
  });

  it('a model that wrote a reply is not retired, whatever an earlier run\'s 404 said; a 404 of the same round still is', () => {
    const { w, run, call } = setup();
    run.summary.retiredModels.set('gemini-3.5-flash', T0 - HOUR);
    const verdicts = [OK, notFound('a')];
    fallBackFromRetired(run, [asking('gemini-3.5-flash', ['gemini-3.5-flash']), asking('a', ['a'])], verdicts, call);
    expect(w.gemini.calls).toEqual([]);
    expect(run.summary.retiredModels).toEqual(new Map([['a', T0 + 5]]));
  });

  it('other verdicts, systemic ones included, are no 404: nothing is asked again, remembered or told', () => {
    const { w, run, call } = setup();
    const keyInvalid = classifyGeminiOutcome(fixtureOutcome(400, 'error-400-bad-key'), { model: 'a' });
    const verdicts: GeminiVerdict[] = [keyInvalid, classifyGeminiOutcome(fixtureOutcome(503, 'error-503')), OK];
    fallBackFromRetired(run, [asking('a', ['a', 'b']), asking('a', ['a', 'b']), asking('a', ['a', 'b'])], verdicts, call);
    expect(w.gemini.calls).toEqual([]);
    expect(verdicts).toEqual([keyInvalid, classifyGeminiOutcome(fixtureOutcome(503, 'error-503')), OK]);
    expect(run.summary.retiredModels).toEqual(new Map());
    expect(w.incidents.raised).toEqual([]);
  });

  it('a round of nothing but other failures keeps what earlier runs found retired', () => {
    const { run, call } = setup();
    run.summary.retiredModels.set('x', T0 - HOUR);
    fallBackFromRetired(run, [asking('a', ['a', 'b'])], [classifyGeminiOutcome(fixtureOutcome(503, 'error-503'))], call);
    expect(run.summary.retiredModels).toEqual(new Map([['x', T0 - HOUR]]));
  });

  it('a retired id keeps the time of its first 404 of the round, though a row left on it is met again after the fallback call took time', () => {
    const { w, run, call } = setup(['a']);
    w.gemini.onCall = () => w.clock.advance(HOUR);
    const rows = [asking('a', ['a', 'b']), asking('a', ['a'], 'F2')];
    const verdicts = [notFound('a'), notFound('a')];
    fallBackFromRetired(run, rows, verdicts, call);
    expect(w.gemini.calls).toEqual([[fallbackOf('b')]]);
    expect(verdicts).toEqual([{ kind: 'ok', text: OK_TEXT }, notFound('a')]);
    expect(run.summary.retiredModels).toEqual(new Map([['a', T0 + 5]]));
  });

  it('the fallback\'s answer is read as any other: a fallback that answers 503 leaves the row retryable', () => {
    const { w, run, call } = setup();
    w.gemini.respond = (request) => (request.model === 'b' ? fixtureOutcome(503, 'error-503') : okOutcome());
    const verdicts = [notFound('a'), OK];
    fallBackFromRetired(run, [asking('a', ['a', 'b']), asking('d', ['d'])], verdicts, call);
    expect(verdicts).toEqual([classifyGeminiOutcome(fixtureOutcome(503, 'error-503')), OK]);
    expect(run.summary.retiredModels).toEqual(new Map([['a', T0 + 5]]));
  });
});
