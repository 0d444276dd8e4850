// One generation round: claim due PENDING rows, read the claims back, ask Gemini for all at once (record-verdicts.ts writes the outcomes).
import { isReconciledEventId, recoveredNeedsApproval } from '../domain/typeform/reconciled-id';
import { codeOf, messageOf } from '../domain/failures/errors';
import type { GeminiOutcome, GeminiRequest } from '../domain/ports';
import type { FormConfig } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { errorSummary } from '../domain/failures/redact';
import { buildGeminiRequest, LARGER_BUDGET_FACTOR, withLargerBudget } from '../domain/gemini/gemini';
import { classifyGeminiOutcome, type GeminiVerdict } from '../domain/gemini/gemini-outcome';
import { recipientProblem } from '../domain/mail/mail-addresses';
import { askedRow, fallBackFromRetired, noteSpent, spentDetail, type AskedRow } from './model-fallback';
import { firstLiveModel, modelsFor } from '../domain/gemini/model-list';
import { tallyTokens } from '../domain/gemini/usage-tally';
import { recordVerdicts } from './record-verdicts';
import { suppressedReason } from '../domain/mail/mail-guard';
import { parkSuppressed } from './send-plan';
import { applyOutcome } from './apply-outcome';
import { attemptsOnClaim } from '../domain/queue/outcomes';
import { notBefore } from '../domain/queue/not-before';
import { answersOf, claimTime, isOurClaim, processingConfigFor, submittedAtOf } from './row-inputs';
import { isOverBudget, markGone, newBatch, raiseIncident, suppressedOf, type Run } from './run-context';
import { commitBatch, moveRow, noteWaitingRows, releaseHeld, remember } from './run-writes';

export function isDue(row: QueueRow, now: number): boolean {
  return row.status === 'PENDING' && notBefore(row, now) === null;
}

interface Prepared {
  row: QueueRow;
  request: GeminiRequest;
  /** The form's model list (Config `model`, else GEMINI_MODEL): the request asks the first not known retired. */
  models: string[];
  approvalRequired: boolean;
  /** The form's Config, for the reply policy the written reply is checked against. */
  config: FormConfig;
}

/**
 * Up to GEMINI_CONCURRENCY due rows whose prompt renders; rows with a broken template are set aside, rows with no
 * usable address go to a person at once (FAILED, with the reason), and rows to a suppressed address to NEEDS_REVIEW
 * (SUPPRESSED), neither costing a Gemini call.
 */
function prepareRequests(run: Run, now: number): Prepared[] {
  const prepared: Prepared[] = [];
  const problems: string[] = [];
  const problemRows = new Map<number, string>();
  const unaddressed: QueueRow[] = [];
  const suppressed: QueueRow[] = [];
  for (const row of run.rows) {
    if (prepared.length >= run.settings.geminiConcurrency) break;
    if (!isDue(row, now) || run.setAside.has(row.rowNumber)) continue;
    if (recipientProblem(row.recipient) !== null) {
      unaddressed.push(row);
      run.setAside.add(row.rowNumber);
      continue;
    }
    // A reply to a suppressed address could never be mailed: the row goes to a person before Gemini is paid for it.
    if (suppressedReason(row, suppressedOf(run)) !== null) {
      suppressed.push(row);
      run.setAside.add(row.rowNumber);
      continue;
    }
    const config = processingConfigFor(row.formId, run.forms);
    try {
      const models = modelsFor(config.model, run.settings.geminiModels);
      const model = firstLiveModel(models, run.summary.retiredModels);
      const request = buildGeminiRequest({ row, config, answers: answersOf(run.deps, row), defaultModel: run.settings.geminiModel, model });
      // An old row recovered from Typeform waits for a person whatever the form says (RECOVERED_AUTO_SEND_HOURS).
      const held = isReconciledEventId(row.eventId) && recoveredNeedsApproval(row.eventId, submittedAtOf(run.deps, row), now, run.settings.recoveredAutoSendHours);
      prepared.push({ row, request, models, approvalRequired: config.approvalRequired || held, config });
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
  parkSuppressedUnwritten(run, suppressed);
  if (problems.length > 0) {
    noteWaitingRows(run, problemRows);
    raiseIncident(run, 'TEMPLATE_INVALID', problems.join('\n'), Array.from(problemRows.keys()));
  }
  return prepared;
}

/** Rows without a usable address, re-read first (a staff move or a fixed recipient wins), go to FAILED with the reason. */
function failUnaddressed(run: Run, now: number, rows: readonly QueueRow[]): void {
  if (rows.length === 0) return;
  releaseHeld(run); // the run's copies must show the sheet before this read replaces some of them
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
    applyOutcome(run, batch, row, 'no-address', { detail: error, patch: { error } });
  }
  commitBatch(run, batch);
}

/**
 * Rows whose recipient is on the Suppressed sheet go to NEEDS_REVIEW with the reason the send step gives (SUPPRESSED),
 * unwritten: no Gemini call. The compare-and-set right before the write skips a row staff moved since.
 */
function parkSuppressedUnwritten(run: Run, rows: readonly QueueRow[]): void {
  if (rows.length === 0) return;
  const batch = newBatch();
  for (const row of rows) parkSuppressed(run, batch, row, 'not generated (no Gemini call)');
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
function retryLostToThinking(run: Run, rows: readonly AskedRow[], verdicts: readonly GeminiVerdict[]): GeminiVerdict[] {
  const requests = rows.map((row) => row.request);
  const lost = verdicts.flatMap((verdict, i) => (verdict.kind === 'out-of-tokens' ? [i] : []));
  if (lost.length === 0) return [...verdicts];
  if (isOverBudget(run)) {
    return verdicts.map((verdict): GeminiVerdict =>
      verdict.kind === 'out-of-tokens'
        ? { kind: 'retryable', reason: "Gemini spent its whole output budget thinking; the run's budget ended before the retry with a larger budget" }
        : verdict,
    );
  }
  const larger = lost.map((i) => withLargerBudget(requests[i]));
  const again = callGemini(run, larger);
  lost.forEach((i, j) => noteSpent(run, rows[i], again[j]));
  return verdicts.map((verdict, i) => {
    const j = lost.indexOf(i);
    if (j < 0) return verdict;
    const retried = classifyGeminiOutcome(again[j], { model: larger[j].model });
    return retried.kind === 'out-of-tokens' ? { kind: 'out-of-tokens', reason: `${retried.reason}, also with ${LARGER_BUDGET_FACTOR}× the budget` } : retried;
  });
}

/**
 * Runs one round; false when no row was due (or none could be claimed), so the caller stops generating.
 * Claims are written and flushed, then read back: only rows that still say GENERATING with our claim time
 * are sent to Gemini, and only rows that still say so when the outcome is written (its compare-and-set) get it.
 */
export function runGenerationRound(run: Run): boolean {
  const now = run.deps.clock.now();
  const candidates = prepareRequests(run, now);
  if (candidates.length === 0) return false;
  if (budgetReached(run)) return false;
  markGone(run, ['GEMINI_BUDGET_REACHED']);

  // The run's copies may be minutes old: the claim's compare-and-set, right before it is written, skips a row staff
  // moved since (e.g. SKIPPED) and keeps any cell they edited (run-writes.ts commitBatch); no read of its own first.
  const claimAt = claimTime(now);
  const claims = newBatch();
  const claimed = candidates.map((item) =>
    moveRow(run, claims, item.row, 'GENERATING', `claimed for generation (attempt ${item.row.attempts + 1})`, {
      claimedAt: claimAt,
      attempts: attemptsOnClaim(item.row.attempts),
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
  const rows = ours.map(({ item }) => askedRow(item.row.formId, item.request, item.models));
  const outcomes = callGemini(run, rows.map((row) => row.request));
  outcomes.forEach((outcome, i) => noteSpent(run, rows[i], outcome));
  const first = outcomes.map((outcome, i) => classifyGeminiOutcome(outcome, { model: rows[i].request.model }));
  fallBackFromRetired(run, rows, first, (requests) => callGemini(run, requests));
  const verdicts = retryLostToThinking(run, rows, first);

  // The rows as read back (our claim, with any cell staff edited since): each verdict is written where the row still
  // holds that claim, by the compare-and-set right before the write (record-verdicts.ts).
  recordVerdicts(
    run,
    ours.map(({ item, claim }, i) => ({
      claim: readBack.find((row) => row.rowNumber === claim.rowNumber) ?? claim,
      approvalRequired: item.approvalRequired,
      config: item.config,
      spent: spentDetail(run, rows[i]),
    })),
    verdicts,
  );
  return true;
}

/**
 * True when DAILY_TOKEN_BUDGET is set and today's replies (before this run and in it) have reached it: generation
 * waits (rows stay PENDING, unclaimed) with GEMINI_BUDGET_REACHED; sending goes on. A new day starts at zero.
 */
function budgetReached(run: Run): boolean {
  const budget = run.settings.dailyTokenBudget;
  if (budget <= 0) return false;
  const spent = (run.deps.tokensSpentToday ?? 0) + tallyTokens(run.summary.usage);
  if (spent < budget) return false;
  run.summary.generationHaltedBy = run.summary.generationHaltedBy ?? 'GEMINI_BUDGET_REACHED';
  raiseIncident(run, 'GEMINI_BUDGET_REACHED', `${spent.toLocaleString('en-US')} tokens spent today of DAILY_TOKEN_BUDGET ${budget.toLocaleString('en-US')}`);
  return true;
}
