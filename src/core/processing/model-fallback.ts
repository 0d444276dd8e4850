// A round's answers per row: a model Gemini answers 404 for gives way to the next of the row's list, and what every call spent.
import type { GeminiOutcome, GeminiRequest } from '../domain/ports';
import { withModel } from '../domain/gemini/gemini';
import { classifyGeminiOutcome, type GeminiVerdict } from '../domain/gemini/gemini-outcome';
import { nextLiveModel } from '../domain/gemini/model-list';
import { addCall } from '../domain/gemini/usage-tally';
import { addUsage, estimateCost, NO_USAGE, priceOf, usageDetail, usageOf, type TokenUsage } from '../domain/gemini/token-usage';
import { isOverBudget, raiseIncident, type Run } from './run-context';

/** One row's request as the round goes: the model it is asked of now, its list, and what its calls spent. */
export interface AskedRow {
  formId: string;
  request: GeminiRequest;
  models: readonly string[];
  spent: TokenUsage;
  /** What Gemini said wrote the answer (`modelVersion`), '' until a 200 came back. */
  modelVersion: string;
}

export function askedRow(formId: string, request: GeminiRequest, models: readonly string[]): AskedRow {
  return { formId, request, models, spent: NO_USAGE, modelVersion: '' };
}

/** Adds what one answer spent to the row and to the run's tally (per form and the model asked). */
export function noteSpent(run: Run, row: AskedRow, outcome: GeminiOutcome): void {
  const found = usageOf(outcome);
  if (found === null) return;
  row.spent = addUsage(row.spent, found.usage);
  if (found.modelVersion !== '') row.modelVersion = found.modelVersion;
  const cost = estimateCost(found.usage, priceOf(run.settings.geminiPrices, row.request.model, found.modelVersion));
  addCall(run.summary.usage, { formId: row.formId, model: row.request.model, usage: found.usage, cost, reply: classifyGeminiOutcome(outcome).kind === 'ok' });
}

/** The Log's words for what a row's calls spent and which model wrote it. */
export function spentDetail(run: Run, row: AskedRow): string {
  const cost = estimateCost(row.spent, priceOf(run.settings.geminiPrices, row.request.model, row.modelVersion));
  return usageDetail(row.request.model, row.modelVersion, row.spent, cost);
}

/** A list longer than this is not walked further in one round (each step is one more call for the rows on it). */
const MAX_FALLBACK_STEPS = 5;

/**
 * Rows whose model Gemini did not find (404) are asked again at once with the next model of their list that is not
 * known retired; the retired id is remembered for the run and stored for the next ones, and staff are told once which
 * model replaced which. A row whose list has no model left keeps its 404 verdict (GEMINI_MODEL_NOT_FOUND: generation
 * pauses, attempt given back). The row's claim (one attempt) covers every model asked: a 404 charges nothing.
 */
export function fallBackFromRetired(
  run: Run,
  rows: readonly AskedRow[],
  verdicts: GeminiVerdict[],
  call: (requests: readonly GeminiRequest[]) => GeminiOutcome[],
): void {
  // Per retired id, every model that replaced it: two forms' lists may go on from the same id to different models.
  const replaced = new Map<string, Set<string>>();
  const retired = run.summary.retiredModels;
  const before = new Map(retired);
  const isNotFound = (verdict: GeminiVerdict) => verdict.kind === 'systemic' && verdict.incident === 'GEMINI_MODEL_NOT_FOUND';
  const answeredNotFound = new Set<string>();
  const rememberNotFound = (): number[] => {
    const notFound = verdicts.flatMap((verdict, i) => (isNotFound(verdict) ? [i] : []));
    for (const i of notFound) {
      const model = rows[i].request.model;
      if (answeredNotFound.has(model)) continue; // already stamped this round
      answeredNotFound.add(model);
      retired.set(model, run.deps.clock.now());
    }
    return notFound;
  };
  for (let step = 0; step < MAX_FALLBACK_STEPS; step++) {
    const notFound = rememberNotFound();
    const moving = notFound.filter((i) => nextLiveModel(rows[i].models, rows[i].request.model, run.summary.retiredModels) !== null);
    if (moving.length === 0) break;
    for (const i of moving) {
      const next = nextLiveModel(rows[i].models, rows[i].request.model, run.summary.retiredModels) as string;
      const to = replaced.get(rows[i].request.model) ?? new Set<string>();
      replaced.set(rows[i].request.model, to.add(next));
      rows[i].request = withModel(rows[i].request, next);
    }
    if (isOverBudget(run)) {
      // Not asked: the row goes back to PENDING with its attempt given back, and the next run asks the next model.
      for (const i of moving) verdicts[i] = { kind: 'retryable', reason: `the model was not found; the run's budget ended before ${rows[i].request.model} was asked`, uncharged: true };
      break;
    }
    const again = call(moving.map((i) => rows[i].request));
    moving.forEach((i, j) => {
      noteSpent(run, rows[i], again[j]);
      verdicts[i] = classifyGeminiOutcome(again[j], { model: rows[i].request.model });
    });
  }
  // The last step's 404s too: a model that answered 404 after the step limit is not asked first again next run.
  rememberNotFound();
  // A model that wrote a reply is not retired, whatever an earlier 404 said.
  verdicts.forEach((verdict, i) => {
    if (verdict.kind === 'ok') retired.delete(rows[i].request.model);
  });
  if (verdicts.every(isNotFound)) {
    // Every model of the round answered 404: a wrong GEMINI_BASE_URL or path looks like that too, so nothing is
    // remembered as retired (GEMINI_MODEL_NOT_FOUND pauses generation; the ids are asked again once it is fixed).
    retired.clear();
    for (const [model, at] of before) retired.set(model, at);
    return;
  }
  if (replaced.size > 0) {
    const lines = Array.from(replaced, ([from, to]) => {
      const by = to.size === 1 ? [...to][0] : `${[...to].join(' or ')} (the next model on each form's list)`;
      return `Gemini answered 404 (not found) for model ${from}: it is retired or unknown. Replies are now written by ${by}.`;
    });
    raiseIncident(run, 'GEMINI_MODEL_RETIRED', lines.join('\n'));
  }
}
