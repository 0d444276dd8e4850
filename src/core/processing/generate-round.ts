// One generation round: claim due PENDING rows, read the claims back, ask Gemini for all at once, record outcomes.
import { isReconciledEventId } from '../reconcile/reconciled-id';
import { codeOf, messageOf } from '../errors';
import type { GeminiOutcome, GeminiRequest } from '../ports';
import type { IncidentCode, RowErrorCode } from '../codes';
import type { QueueRow } from '../queue-row';
import { errorSummary } from '../redact';
import { decideRetry, nextAttemptAt } from './backoff';
import {
  buildGeminiRequest,
  classifyGeminiOutcome,
  LARGER_BUDGET_FACTOR,
  withLargerBudget,
  type GeminiVerdict,
  type SystemicGeminiIncident,
} from './gemini';
import { recipientProblem } from './mail';
import { newMailRef } from './mail-ref';
import { answersOf, claimTime, isOurClaim, processingConfigFor } from './row-inputs';
import { commitBatch, isOverBudget, isoTime, markGone, moveRow, newBatch, noteWaitingRows, raiseIncident, remember, type Batch, type Run } from './run-context';

/** What a reply written by Gemini proves gone. */
const GEMINI_INCIDENTS: readonly IncidentCode[] = ['GEMINI_KEY_INVALID', 'GEMINI_MODEL_NOT_FOUND', 'GEMINI_DAILY_QUOTA', 'GEMINI_RATE_LIMITED'];

export function isDue(row: QueueRow, now: number): boolean {
  return row.status === 'PENDING' && (row.nextAttemptAt === null || row.nextAttemptAt <= now);
}

interface Prepared {
  row: QueueRow;
  request: GeminiRequest;
  approvalRequired: boolean;
}

/**
 * Up to GEMINI_CONCURRENCY due rows whose prompt renders; rows with a broken template are set aside, and rows
 * with no usable address go to a person at once (FAILED, with the reason) without costing a Gemini call.
 */
function prepareRequests(run: Run, now: number): Prepared[] {
  const prepared: Prepared[] = [];
  const problems: string[] = [];
  const problemRows = new Map<number, string>();
  const unaddressed: QueueRow[] = [];
  for (const row of run.rows) {
    if (prepared.length >= run.settings.geminiConcurrency) break;
    if (!isDue(row, now) || run.setAside.has(row.rowNumber)) continue;
    if (recipientProblem(row.recipient) !== null) {
      unaddressed.push(row);
      run.setAside.add(row.rowNumber);
      continue;
    }
    const config = processingConfigFor(row.formId, run.forms);
    try {
      const request = buildGeminiRequest({ row, config, answers: answersOf(run.deps, row), defaultModel: run.settings.geminiModel });
      // A row recovered from Typeform waits for a person whatever the form says: nobody saw it arrive.
      prepared.push({ row, request, approvalRequired: config.approvalRequired || isReconciledEventId(row.eventId) });
      markGone(run, ['TEMPLATE_INVALID']);
    } catch (error) {
      if (codeOf(error) !== 'TEMPLATE_INVALID') throw error;
      run.setAside.add(row.rowNumber);
      run.summary.deferred++;
      if (!problems.includes(messageOf(error))) problems.push(messageOf(error));
      problemRows.set(row.rowNumber, errorSummary('TEMPLATE_INVALID', messageOf(error), run.secrets));
    }
  }
  failUnaddressed(run, now, unaddressed);
  if (problems.length > 0) {
    noteWaitingRows(run, problemRows);
    raiseIncident(run, 'TEMPLATE_INVALID', problems.join('\n'), Array.from(problemRows.keys()));
  }
  return prepared;
}

/** Rows without a usable address, re-read first (a staff move or a fixed recipient wins), go to FAILED with the reason. */
function failUnaddressed(run: Run, now: number, rows: readonly QueueRow[]): void {
  if (rows.length === 0) return;
  const fresh = run.deps.queue.readRows(rows.map((row) => row.rowNumber));
  remember(run, fresh);
  const batch = newBatch();
  for (const row of fresh) {
    const seen = rows.find((item) => item.rowNumber === row.rowNumber);
    const problem = recipientProblem(row.recipient);
    if (!seen || seen.eventId !== row.eventId || !isDue(row, now) || problem === null) continue;
    const error = errorSummary(
      'MAIL_PERMANENT',
      `${problem}; no reply was generated (no Gemini call). Reply by hand if the submission gives another way, then mark the row SENT, or SKIPPED`,
      run.secrets,
    );
    moveRow(run, batch, row, 'FAILED', error, { error, claimedAt: null });
    run.summary.failed++;
  }
  commitBatch(run, batch);
}

/**
 * fetchAll throws for the whole batch when any one request meets a DNS, connection or timeout error
 * (docs/platform.md#urlfetchapp): the batch is then asked again one request at a time in this run, so only the
 * request that really failed comes back as a transport outcome (and only its row is charged the attempt).
 * Requests not asked again because the run's budget is spent come back `notAsked`: their attempt is given back.
 */
function callGemini(run: Run, requests: readonly GeminiRequest[]): GeminiOutcome[] {
  try {
    const outcomes = run.deps.gemini.generateAll(requests);
    return requests.map((_request, i) => outcomes[i] ?? { kind: 'transport', message: 'no answer for this request' });
  } catch (error) {
    if (requests.length === 1) return [{ kind: 'transport', message: messageOf(error) }];
    const batchError = messageOf(error);
    return requests.map((request): GeminiOutcome => {
      if (isOverBudget(run)) return { kind: 'transport', message: `the batch failed (${batchError}) and the run's budget ended before this request was asked alone`, notAsked: true };
      try {
        return run.deps.gemini.generateAll([request])[0] ?? { kind: 'transport', message: 'no answer for this request' };
      } catch (single) {
        return { kind: 'transport', message: messageOf(single) };
      }
    });
  }
}

/**
 * Replies lost to thinking (MAX_TOKENS before any text) are asked once more, at once, with the larger budget;
 * what that retry says replaces the first verdict, and a second loss is final for the row.
 */
function retryLostToThinking(run: Run, requests: readonly GeminiRequest[], verdicts: GeminiVerdict[]): GeminiVerdict[] {
  const lost = verdicts.flatMap((verdict, i) => (verdict.kind === 'out-of-tokens' ? [i] : []));
  if (lost.length === 0) return verdicts;
  const out = verdicts.slice();
  if (isOverBudget(run)) {
    for (const i of lost) out[i] = { kind: 'retryable', reason: "Gemini spent its whole output budget thinking; the run's budget ended before the retry with a larger budget" };
    return out;
  }
  const larger = lost.map((i) => withLargerBudget(requests[i]));
  const again = callGemini(run, larger);
  lost.forEach((index, j) => {
    const verdict = classifyGeminiOutcome(again[j], { model: larger[j].model });
    out[index] = verdict.kind === 'out-of-tokens' ? { kind: 'out-of-tokens', reason: `${verdict.reason}, also with ${LARGER_BUDGET_FACTOR}× the budget` } : verdict;
  });
  return out;
}

/**
 * Runs one round; false when no row was due (or none could be claimed), so the caller stops generating.
 * Claims are written and flushed, then read back: only rows that still say GENERATING with our claim time
 * are sent to Gemini, and only rows that still say so afterwards get the outcome.
 */
export function runGenerationRound(run: Run): boolean {
  const now = run.deps.clock.now();
  const candidates = prepareRequests(run, now);
  if (candidates.length === 0) return false;

  // The run's copies may be minutes old: the claim's compare-and-set, right before it is written, skips a row staff
  // moved since (e.g. SKIPPED) and keeps any cell they edited (run-context.ts commitBatch); no read of its own first.
  const claimAt = claimTime(now);
  const claims = newBatch();
  const claimed = candidates.map((item) =>
    moveRow(run, claims, item.row, 'GENERATING', `claimed for generation (attempt ${item.row.attempts + 1})`, {
      claimedAt: claimAt,
      attempts: item.row.attempts + 1,
    }),
  );
  commitBatch(run, claims);
  // commitBatch gives each claim the row number it was written at (a sort may have moved the row).
  const pairs = candidates.map((item, i) => ({ item, claim: claimed[i] }));
  const readBack = run.deps.queue.readRows(claimed.map((row) => row.rowNumber));
  remember(run, readBack);
  const ours = pairs.filter(({ claim }) => isOurClaim(readBack.find((row) => row.rowNumber === claim.rowNumber), claim));
  // A row taken from us is not claimed again in this run, whatever it says now.
  for (const pair of pairs) if (!ours.includes(pair)) run.setAside.add(pair.claim.rowNumber);
  if (ours.length === 0) return true;

  run.summary.rounds++;
  const requests = ours.map(({ item }) => item.request);
  const outcomes = callGemini(run, requests);
  const verdicts = retryLostToThinking(
    run,
    requests,
    outcomes.map((outcome, i) => classifyGeminiOutcome(outcome, { model: requests[i].model })),
  );

  const lastingOutage = judgeOutage(run, verdicts, ours.length);

  // Each outcome is written only where the row still holds our claim (the compare-and-set right before the write, which
  // follows a row a sort moved meanwhile); a row staff changed while Gemini wrote (e.g. SKIPPED it) keeps their decision.
  const results = newBatch();
  const systemic: SystemicFindings = new Map();
  ours.forEach(({ item, claim }, i) => {
    const current = readBack.find((row) => row.rowNumber === claim.rowNumber) ?? claim;
    recordVerdict(run, results, current, verdicts[i], item.approvalRequired, systemic, lastingOutage);
  });
  commitBatch(run, results);
  for (const [code, found] of systemic) raiseIncident(run, code, found.detail, found.rows);
  return true;
}

/** Incidents a round found, with the rows they held back; raised once the round's writes are committed. */
type SystemicFindings = Map<SystemicGeminiIncident | 'GEMINI_RATE_LIMITED' | 'GEMINI_UNAVAILABLE', { detail: string; rows: number[] }>;

/**
 * A round in which no request got any answer (every one 5xx, 408, a timeout or no connection) is what an outage
 * looks like; one answer of any kind (even a 429) proves Gemini reachable. It is a lasting outage, during which
 * rows keep their attempts, once an earlier run saw it too and it has held back at least two rows: one row whose
 * own request keeps failing is charged as usual and ends FAILED, where a person sees it.
 */
function judgeOutage(run: Run, verdicts: readonly GeminiVerdict[], asked: number): boolean {
  const outageRound = verdicts.length > 0 && verdicts.every((verdict) => verdict.kind === 'retryable' && verdict.outage === true);
  if (!outageRound) {
    if (verdicts.some((verdict) => !(verdict.kind === 'retryable' && (verdict.outage || verdict.uncharged)))) markGone(run, ['GEMINI_UNAVAILABLE']);
    return false;
  }
  const prior = run.deps.incidents.priorOpen('GEMINI_UNAVAILABLE');
  return prior !== null && (prior.rowCount >= 2 || asked >= 2);
}

/**
 * A row Gemini did not answer in an outage round is noted for GEMINI_UNAVAILABLE; in a lasting outage it is not the
 * row's fault (as for a bad key), so the attempt is given back and generation pauses. True when the row was held.
 */
function holdForOutage(run: Run, batch: Batch, row: QueueRow, reason: string, systemic: SystemicFindings, lastingOutage: boolean): boolean {
  const found = systemic.get('GEMINI_UNAVAILABLE') ?? { detail: reason, rows: [] };
  found.rows.push(row.rowNumber);
  systemic.set('GEMINI_UNAVAILABLE', found);
  if (!lastingOutage) return false;
  const error = errorSummary('GEMINI_UNAVAILABLE', reason, run.secrets);
  moveRow(run, batch, row, 'PENDING', `${error}; generation paused, attempt not counted`, {
    claimedAt: null,
    attempts: Math.max(0, row.attempts - 1),
    error,
  });
  run.summary.deferred++;
  run.summary.generationHaltedBy = run.summary.generationHaltedBy ?? 'GEMINI_UNAVAILABLE';
  return true;
}

function recordVerdict(
  run: Run,
  batch: Batch,
  row: QueueRow,
  verdict: GeminiVerdict,
  approvalRequired: boolean,
  systemic: SystemicFindings,
  lastingOutage: boolean,
): void {
  const now = run.deps.clock.now();
  const summary = (code: RowErrorCode, reason: string) => errorSummary(code, reason, run.secrets);
  const leaving = { claimedAt: null };
  switch (verdict.kind) {
    case 'ok': {
      const taken = new Set(run.rows.map((other) => other.mailRef).filter((ref) => ref !== ''));
      const to = approvalRequired ? 'AWAITING_APPROVAL' : 'READY';
      moveRow(run, batch, row, to, approvalRequired ? 'reply written; waits for approval' : 'reply written', {
        ...leaving,
        result: verdict.text,
        mailRef: row.mailRef || newMailRef(run.deps.random, taken),
        nextAttemptAt: null,
        error: '',
      });
      run.summary.generated++;
      markGone(run, GEMINI_INCIDENTS);
      return;
    }
    case 'retryable': {
      if (verdict.uncharged) {
        // Never asked (the batch failed and the run ended first): not this row's fault, so no attempt is used.
        const error = summary('GEMINI_RETRYABLE', verdict.reason);
        moveRow(run, batch, row, 'PENDING', `${error}; attempt not counted`, { ...leaving, attempts: Math.max(0, row.attempts - 1), error });
        run.summary.deferred++;
        return;
      }
      if (verdict.outage && holdForOutage(run, batch, row, verdict.reason, systemic, lastingOutage)) return;
      if (decideRetry(row.attempts, run.settings.maxAttempts) === 'give-up') {
        const error = summary('GEMINI_RETRYABLE', `gave up after ${row.attempts} attempts; last: ${verdict.reason}`);
        moveRow(run, batch, row, 'FAILED', error, { ...leaving, error });
        run.summary.failed++;
        return;
      }
      const at = nextAttemptAt(row.attempts, now, run.settings, run.deps.random, verdict.retryAfterSeconds);
      const error = summary('GEMINI_RETRYABLE', verdict.reason);
      if (verdict.rateLimited) {
        // Raised every time; triage mails it only once it persists, so a passing burst stays quiet.
        const found = systemic.get('GEMINI_RATE_LIMITED') ?? { detail: error, rows: [] };
        found.rows.push(row.rowNumber);
        systemic.set('GEMINI_RATE_LIMITED', found);
      }
      moveRow(run, batch, row, 'PENDING', `${error}; next try at ${isoTime(at)}`, { ...leaving, nextAttemptAt: at, error });
      run.summary.deferred++;
      return;
    }
    case 'systemic': {
      // Not the row's fault: its attempt is given back and it keeps its place in the queue.
      const error = summary(verdict.incident, verdict.reason);
      moveRow(run, batch, row, 'PENDING', `${error}; generation paused, attempt not counted`, {
        ...leaving,
        attempts: Math.max(0, row.attempts - 1),
        error,
      });
      run.summary.deferred++;
      run.summary.generationHaltedBy = run.summary.generationHaltedBy ?? verdict.incident;
      const found = systemic.get(verdict.incident) ?? { detail: error, rows: [] };
      found.rows.push(row.rowNumber);
      systemic.set(verdict.incident, found);
      return;
    }
    case 'out-of-tokens': {
      const error = summary(
        'GEMINI_CONTENT',
        `${verdict.reason}. Next step: set a model that thinks less for this form (Config "model", or Script Property ` +
          'GEMINI_MODEL, e.g. a Flash or Flash-Lite model) or shorten the prompt, then Retry the row; or write the reply in ' +
          'result yourself and set APPROVED',
      );
      moveRow(run, batch, row, 'FAILED', error, { ...leaving, error });
      run.summary.failed++;
      return;
    }
    case 'content':
    case 'rejected': {
      const error = summary(verdict.kind === 'content' ? 'GEMINI_CONTENT' : 'GEMINI_REJECTED', verdict.reason);
      moveRow(run, batch, row, 'FAILED', error, { ...leaving, error });
      run.summary.failed++;
      return;
    }
  }
}
