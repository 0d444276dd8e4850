// One processQueue run after the script lock is held: drain, collapse, sweep, then generate and send in rounds.
import { failureIncident } from '../domain/failures/failure';
import { errorSummary } from '../domain/failures/redact';
import { secretValues } from '../domain/config/settings';
import { isMailable } from '../domain/mail/mail-guard';
import { MINUTE_MS } from '../domain/time';
import { findDuplicates } from './duplicates';
import { modelList } from '../domain/gemini/model-list';
import { runGenerationRound } from './generate-round';
import { checkJournal } from './journal-step';
import { restoreFromLedger } from './ledger-step';
import { runSendStep } from './send-step';
import { runBounceCheck } from './bounce-step';
import { windowWakeAt } from './send-window-step';
import { applyOutcome } from './apply-outcome';
import { notBefore } from '../domain/queue/not-before';
import { nextLookAt, runSentCheck, sentCheckMailbox } from './sent-check-step';
import { findStaleRows, neverMailedBack, staleDeadline } from './stale-sweep';
import { holdStaleDrafts } from './template-change';
import { clearGoneIncidents, isOverBudget, markGone, newBatch, newSummary, raiseIncident, type ProcessingDeps, type ProcessingOptions, type ProcessingSummary, type Run } from './run-context';
import { commitBatch, releaseHeld } from './run-writes';
import { ledgerOf, submissionLedger } from './run-ledger';

export type { ProcessingDeps, ProcessingOptions, ProcessingSummary } from './run-context';

/** Rows held by a paused condition (systemic Gemini error, mail quota, broken template) are looked at again after this. */
export const HALT_RECHECK_MS = 5 * MINUTE_MS;
/** A guard against our own bugs: no run loops forever even on a clock that stands still. */
const MAX_ROUNDS_PER_RUN = 500;

/**
 * Never throws: a Sheets outage ends the run as SHEETS_UNAVAILABLE, anything else unexpected as CODE_BUG,
 * and every write that did happen was a complete step (rows are moved in whole batches or not at all).
 */
export function runProcessing(deps: ProcessingDeps, options: ProcessingOptions): ProcessingSummary {
  const settings = deps.settings;
  const summary = newSummary();
  summary.retiredModels = new Map(deps.retiredModels ?? []);
  const run: Run = {
    deps,
    settings,
    deadline: options.startedAt + settings.runBudgetSeconds * 1000,
    rows: [],
    forms: [],
    summary,
    raised: new Set(),
    setAside: new Set(),
    secrets: secretValues(settings),
    gone: new Set(),
    ledger: new Map(),
    held: null,
  };
  let ended = false;
  try {
    deps.drainSpill();
    if (settings.paused) {
      run.summary.stoppedBecause = 'paused';
      return run.summary;
    }
    run.rows = deps.queue.readAll();
    markGone(run, ['SHEETS_UNAVAILABLE']);
    run.forms = deps.config.readForms();
    reportConfigProblems(run);
    // Before anything can mail or re-draft: a READY reply drafted with a template since changed waits for a person.
    holdStaleDrafts(run, deps.templatesSeen ?? {});
    restoreFromLedger(run);
    checkJournal(run);
    collapseDuplicates(run);
    runSentCheck(run);
    runBounceCheck(run);
    sweepStaleRows(run);
    // A stale claim swept back to PENDING may be a copy of a row that is PENDING too (a staff paste of a GENERATING
    // row): collapsed before either is generated, so one submission never has two rows in flight.
    collapseDuplicates(run);
    generateAndSend(run);
    noteRetiredModelsGone(run);
    releaseHeld(run);
    run.summary.nextDueAt = nextDueAt(run, deps.clock.now());
    ended = true;
  } catch (error) {
    // Outcomes held for the next commit are written whatever failed after them (a mail's SENT above all).
    try {
      releaseHeld(run);
    } catch {
      // The sheet itself is failing: the error below says so; the rows stay claimed, as after any failed write.
    }
    endWithError(run, error);
  }
  try {
    clearGoneIncidents(run);
  } catch (error) {
    if (ended) endWithError(run, error);
  }
  return run.summary;
}

/**
 * GEMINI_MODEL_RETIRED ends once no model list in use names a model known retired (staff took it out, or it answered
 * again after RETIRED_MODEL_RECHECK_MS); while a list still names one, the incident stays open without reminders.
 */
function noteRetiredModelsGone(run: Run): void {
  const lists = [...run.settings.geminiModels, ...run.forms.flatMap((form) => modelList(form.model))];
  if (!lists.some((model) => run.summary.retiredModels.has(model))) markGone(run, ['GEMINI_MODEL_RETIRED']);
}

function endWithError(run: Run, error: unknown): void {
  const incident = failureIncident(error, run.secrets);
  run.summary.stoppedBecause = incident.failure;
  // The next tick must come back: to see the outage end, or to report the bug again (triage folds repeats).
  run.summary.nextDueAt = safeNow(run);
  try {
    raiseIncident(run, incident.code, incident.detail);
  } catch {
    // Nothing is left to tell; throwing would only make Google mail its own failure notice every minute.
  }
}

function safeNow(run: Run): number | null {
  try {
    return run.deps.clock.now();
  } catch {
    return null;
  }
}

/** Config cells a run cannot read as meant (config-check.ts): one incident naming each, until Config reads clean. */
function reportConfigProblems(run: Run): void {
  const problems = run.forms.flatMap((form) => form.problems ?? []);
  if (problems.length > 0) raiseIncident(run, 'CONFIG_SHEET_INVALID', problems.join('\n'));
  else markGone(run, ['CONFIG_SHEET_INVALID']);
}

function collapseDuplicates(run: Run): void {
  const batch = newBatch();
  // Read at most once a run, and only when a row may collapse.
  const archived = () => (run.archivedKeys ??= run.deps.queue.archivedKeys());
  for (const finding of findDuplicates(run.rows, archived)) {
    const error = errorSummary('DUPLICATE', `the same submission is already in ${finding.original}; not generated or mailed`, run.secrets);
    applyOutcome(run, batch, finding.row, 'duplicate', { detail: error, patch: { error } });
  }
  commitBatch(run, batch);
}

function sweepStaleRows(run: Run): void {
  const batch = newBatch();
  const findings = findStaleRows(run.rows, run.deps.clock.now(), run.settings, sentCheckMailbox(run) !== null);
  // Claimed rows a dead run never reached go back by themselves: the Log shows no "about to send" line for them.
  const sending = findings.filter((finding) => finding.row.status === 'SENDING');
  if (sending.length > 0) ledgerOf(run, sending.map((finding) => finding.row));
  for (const finding of findings) {
    const back = finding.row.status === 'SENDING' ? neverMailedBack(submissionLedger(run, finding.row)) : null;
    if (back !== null) {
      const note = "not mailed: the run that claimed it stopped before this row's turn (a batch's mails go in order, and the Log has no \"about to send\" line for it)";
      applyOutcome(run, batch, finding.row, 'claim-never-mailed', { detail: note, claimedFrom: back });
      continue;
    }
    const generating = finding.to === 'PENDING';
    const error = errorSummary(generating ? 'STALE_GENERATING' : 'STALE_SENDING', finding.reason, run.secrets);
    applyOutcome(run, batch, finding.row, generating ? 'stale-generating' : 'stale-sending', { detail: error, patch: { error } });
  }
  commitBatch(run, batch);
}

/** Sends before each round, so a busy queue never starves sending; the budget is checked before each round. */
function generateAndSend(run: Run): void {
  for (let round = 0; round < MAX_ROUNDS_PER_RUN; round++) {
    if (isOverBudget(run)) {
      run.summary.stoppedBecause = 'budget';
      return;
    }
    if (run.summary.sendingHaltedBy === null) runSendStep(run);
    // No key, no call: Gemini would only refuse it (a second incident, "API key invalid", for the one cause that
    // CONFIG_MISSING already names). Replies already written are still sent above.
    if (run.settings.geminiApiKey === '') run.summary.generationHaltedBy ??= 'CONFIG_MISSING';
    if (run.summary.generationHaltedBy !== null) return;
    if (isOverBudget(run)) {
      run.summary.stoppedBecause = 'budget';
      return;
    }
    if (!runGenerationRound(run)) return;
  }
}

/** The earliest moment work is known to be due, so the caller can skip idle ticks until then. */
function nextDueAt(run: Run, now: number): number | null {
  let next: number | null = null;
  const consider = (at: number) => {
    next = next === null ? at : Math.min(next, at);
  };
  const recheck = now + HALT_RECHECK_MS;
  for (const row of run.rows) {
    const heldBack = run.setAside.has(row.rowNumber);
    if (row.status === 'PENDING') {
      const due = notBefore(row, now)?.at ?? now;
      consider(heldBack || run.summary.generationHaltedBy !== null ? Math.max(due, recheck) : due);
    } else if (isMailable(row)) {
      // A row waiting for its send window wakes the gate when the window opens, not every few minutes overnight.
      const opensAt = windowWakeAt(run, row, now);
      if (opensAt !== null) consider(opensAt);
      else consider(heldBack || run.summary.sendingHaltedBy !== null ? recheck : now);
    } else {
      // A claim left by a run that died becomes stale at a known time: the sweep must run then.
      const look = nextLookAt(run, row, now);
      const stale = look ?? staleDeadline(row, run.settings);
      if (stale !== null) consider(stale);
    }
  }
  return next === null ? null : Math.max(next, now);
}
