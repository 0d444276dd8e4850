// Recording one generation round's verdicts: each row's next state, the outage judgement, and the incidents found.
import type { IncidentCode, RowErrorCode } from '../domain/failures/codes';
import type { FormConfig } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { errorSummary } from '../domain/failures/redact';
import { decideRetry, nextAttemptAt } from './backoff';
import type { GeminiVerdict } from '../domain/gemini/gemini-outcome';
import { applyOutcome, type OutcomeFindings } from './apply-outcome';
import { newMailRef } from './mail-ref';
import { replyPolicySummary, rowReplyBreaches } from './reply-policy';
import { isoTime, markGone, newBatch, raiseIncident, type Batch, type Run } from './run-context';
import { holdBatch } from './run-writes';

/** What a reply written by Gemini proves gone. */
const GEMINI_INCIDENTS: readonly IncidentCode[] = ['GEMINI_KEY_INVALID', 'GEMINI_MODEL_NOT_FOUND', 'GEMINI_DAILY_QUOTA', 'GEMINI_RATE_LIMITED', 'URLFETCH_DAILY_QUOTA'];

/** A claim this run still holds after asking Gemini, with what the row's form asks for a written reply. */
export interface AskedClaim {
  claim: QueueRow;
  approvalRequired: boolean;
  /** Which model wrote it and what its calls spent (model-fallback.ts spentDetail), for the Log line; absent: not said. */
  spent?: string;
  /** The form's Config: the reply policy's allowed domains, reply_to and phone rule. */
  config: FormConfig;
}

/**
 * Writes each verdict to its row in one batch (held for the run's next commit). No re-read first: the compare-and-set right before the write lands
 * an outcome only where the row still holds our GENERATING claim (following a row a sort moved while Gemini wrote),
 * so a row staff changed meanwhile (e.g. SKIPPED it) keeps their decision, and writes only the cells the outcome
 * changes. Incidents the round found are raised once its writes are committed.
 */
export function recordVerdicts(run: Run, asked: readonly AskedClaim[], verdicts: readonly GeminiVerdict[]): void {
  const outage = judgeOutage(verdicts, () => run.deps.incidents.priorOpen('GEMINI_UNAVAILABLE'));
  if (outage.answered) markGone(run, ['GEMINI_UNAVAILABLE']);
  if (outage.answered && !verdicts.some(isOutageVerdict)) endOutageNow(run);

  const results = newBatch();
  const systemic: OutcomeFindings = new Map();
  asked.forEach(({ claim, approvalRequired, config, spent }, i) => recordVerdict(run, results, claim, verdicts[i], { approvalRequired, config }, systemic, outage.lasting, spent));
  // Written with the run's next commit: for a reply, usually its send claim (one compare-and-set read, write and flush
  // for both moves, checked against our GENERATING claim right before the write).
  holdBatch(run, results, () => {
    for (const [code, found] of systemic) raiseIncident(run, code, found.detail, found.rows);
  });
}

function isOutageVerdict(verdict: GeminiVerdict): boolean {
  return verdict.kind === 'retryable' && verdict.outage === true;
}

/**
 * Gemini answered every request of the round: an open GEMINI_UNAVAILABLE ends now, and is written now, not with the
 * run's end: a run killed later (a crash, the execution time limit) must not leave the outage open until some later
 * run asks Gemini again, mailed as still failing and reported as lasting until then.
 */
function endOutageNow(run: Run): void {
  if (run.deps.incidents.priorOpen('GEMINI_UNAVAILABLE') === null || run.raised.has('GEMINI_UNAVAILABLE')) return;
  run.deps.incidents.clear('GEMINI_UNAVAILABLE');
  run.deps.incidents.persistNow?.();
}

/** What one round's verdicts say about Gemini being down. */
export interface OutageJudgement {
  /** Some request got an answer of any kind (even a 429): Gemini is reachable, so GEMINI_UNAVAILABLE is gone. */
  answered: boolean;
  /** A lasting outage: the rows Gemini did not answer keep their attempts and generation pauses. */
  lasting: boolean;
}

/**
 * A round in which no request got any answer (every one 5xx, 408, a timeout or no connection) is what an outage
 * looks like; one answer of any kind (even a 429) proves Gemini reachable. It is a lasting outage, during which
 * rows keep their attempts, once an earlier run saw it too (`priorOutage`, asked only in an outage round) and it
 * has held back at least two rows: one row whose own request keeps failing is charged as usual and ends FAILED,
 * where a person sees it. A request never asked (`uncharged`) proves nothing either way.
 */
export function judgeOutage(
  verdicts: readonly GeminiVerdict[],
  priorOutage: () => { rowCount: number } | null,
): OutageJudgement {
  const answered = verdicts.some((verdict) => !(verdict.kind === 'retryable' && (verdict.outage || verdict.uncharged)));
  const outageRound = verdicts.length > 0 && verdicts.every((verdict) => verdict.kind === 'retryable' && verdict.outage === true);
  if (!outageRound) return { answered, lasting: false };
  const prior = priorOutage();
  return { answered, lasting: prior !== null && (prior.rowCount >= 2 || verdicts.length >= 2) };
}

/**
 * A row Gemini did not answer in an outage round is noted for GEMINI_UNAVAILABLE; in a lasting outage it is not the
 * row's fault (as for a bad key), so its attempt is not charged and generation pauses. True when the row was held.
 */
function holdForOutage(run: Run, batch: Batch, row: QueueRow, reason: string, findings: OutcomeFindings, lastingOutage: boolean): boolean {
  if (!lastingOutage) {
    const found = findings.get('GEMINI_UNAVAILABLE') ?? { detail: reason, rows: [] };
    found.rows.push(row.rowNumber);
    findings.set('GEMINI_UNAVAILABLE', found);
    return false;
  }
  const error = errorSummary('GEMINI_UNAVAILABLE', reason, run.secrets);
  applyOutcome(run, batch, row, 'outage', { detail: `${error}; generation paused, attempt not counted`, patch: { error }, findings, incidentDetail: reason });
  return true;
}

/** The outcome class of one verdict (the outcome table's row), and the cells and Log detail it writes. */
function recordVerdict(
  run: Run,
  batch: Batch,
  row: QueueRow,
  verdict: GeminiVerdict,
  form: { approvalRequired: boolean; config: FormConfig },
  findings: OutcomeFindings,
  lastingOutage: boolean,
  spent?: string,
): void {
  const now = run.deps.clock.now();
  const withSpent = (detail: string) => (spent === undefined ? detail : `${detail}; ${spent}`);
  const summary = (code: RowErrorCode, reason: string) => errorSummary(code, reason, run.secrets);
  switch (verdict.kind) {
    case 'ok':
      recordReply(run, batch, row, verdict.text, form, spent);
      return;
    case 'retryable': {
      if (verdict.uncharged) {
        // Never asked (the batch failed and the run ended first): not this row's fault, so no attempt is used.
        const error = summary('GEMINI_RETRYABLE', verdict.reason);
        applyOutcome(run, batch, row, 'not-asked', { detail: `${error}; attempt not counted`, patch: { error } });
        return;
      }
      if (verdict.outage && holdForOutage(run, batch, row, verdict.reason, findings, lastingOutage)) return;
      if (decideRetry(row.attempts, run.settings.maxAttempts) === 'give-up') {
        const error = summary('GEMINI_RETRYABLE', `gave up after ${row.attempts} attempts; last: ${verdict.reason}`);
        applyOutcome(run, batch, row, 'retries-spent', { detail: error, patch: { error } });
        return;
      }
      const at = nextAttemptAt(row.attempts, now, run.settings, run.deps.random, verdict.retryAfterSeconds);
      const error = summary('GEMINI_RETRYABLE', verdict.reason);
      // A rate limit is raised every time; triage mails it only once it persists, so a passing burst stays quiet.
      applyOutcome(run, batch, row, verdict.rateLimited ? 'rate-limited' : 'retryable', {
        detail: `${error}; next try at ${isoTime(at)}`,
        patch: { nextAttemptAt: at, error },
        findings,
        incidentDetail: error,
      });
      return;
    }
    case 'systemic': {
      // Not the row's fault: its attempt is not charged and it keeps its place in the queue.
      const error = summary(verdict.incident, verdict.reason);
      applyOutcome(run, batch, row, 'systemic', {
        detail: `${error}; generation paused, attempt not counted`,
        patch: { error },
        findings,
        incident: verdict.incident,
        incidentDetail: error,
      });
      return;
    }
    case 'out-of-tokens': {
      const error = summary(
        'GEMINI_CONTENT',
        // Within the error cell's 300 characters, and only moves a person may make from FAILED (not APPROVED).
        `${verdict.reason}. Next step: set a model that thinks less (Config "model" or GEMINI_MODEL, e.g. Flash-Lite) ` +
          'or shorten the prompt, then Retry; or reply yourself and set SENT',
      );
      applyOutcome(run, batch, row, 'generation-permanent', { detail: withSpent(error), patch: { error } });
      return;
    }
    case 'content':
    case 'rejected': {
      const error = summary(verdict.kind === 'content' ? 'GEMINI_CONTENT' : 'GEMINI_REJECTED', verdict.reason);
      applyOutcome(run, batch, row, 'generation-permanent', { detail: error, patch: { error } });
      return;
    }
  }
}

/**
 * A written reply: READY, or AWAITING_APPROVAL when the form asks for approval or the reply breaks the reply policy
 * (checked on every reply: one that breaks it waits for a person whatever the form says, the rule in `error`).
 */
function recordReply(run: Run, batch: Batch, row: QueueRow, text: string, form: { approvalRequired: boolean; config: FormConfig }, spent?: string): void {
  // An empty mailRef in the set is harmless: newMailRef never draws ''.
  const taken = new Set(run.rows.map((other) => other.mailRef));
  const breaches = rowReplyBreaches({ result: text, recipient: row.recipient }, form.config);
  const error = breaches.length === 0 ? '' : errorSummary('REPLY_POLICY', replyPolicySummary(breaches), run.secrets);
  const to = form.approvalRequired || error !== '' ? 'AWAITING_APPROVAL' : 'READY';
  const written = error !== '' ? `reply written; held for a person: ${error}` : form.approvalRequired ? 'reply written; waits for approval' : 'reply written';
  const detail = spent === undefined ? written : `${written}; ${spent}`;
  applyOutcome(run, batch, row, to === 'READY' ? 'reply-written' : 'reply-held', {
    detail,
    patch: { result: text, mailRef: row.mailRef || newMailRef(run.deps.random, taken), nextAttemptAt: null, error },
  });
  markGone(run, GEMINI_INCIDENTS);
}
