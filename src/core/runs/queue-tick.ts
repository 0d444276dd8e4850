// One processQueue run once the script lock is held: settings, processing, archive, health, side conditions, triage mail.
import type { RunOutcome, TickPorts, TickReport, Workspace } from './tick-ports';
import { addCaughtUp, watchRunGap, watchSideConditions } from './tick-watches';
import { mailFiguresOf, sendTriage } from './tick-triage';
import { codeOf, messageOf } from '../domain/failures/errors';
import { failureIncident } from '../domain/failures/failure';
import { REJECTED_TOTALS_PROPERTY, foldTally, totalsOn, type RejectedTotals } from '../domain/typeform/rejection-tally';
import { FORMS_MIRROR_PROPERTY, mirrorToWrite } from '../domain/config/forms-mirror';
import type { ConfigStore } from '../domain/sheet-ports';
import { journalStateProperties, readJournalState } from '../processing/journal-check';
import { runProcessing, type ProcessingSummary } from '../processing/process-run';
import { BOUNCE_CHECK_PROPERTY, readBounceCheckState } from '../processing/bounces';
import { readTemplatesSeen, templatesSeenToWrite, TEMPLATES_SEEN_PROPERTY } from '../processing/template-change';
import { RETIRED_MODELS_PROPERTY, readRetiredModels, retiredModelsToWrite } from '../domain/gemini/model-list';
import { readReviews, reviewLines, REVIEWS_PROPERTY } from '../staff/review-stats';
import { USAGE_PROPERTY, readUsage, tokensOn, usageToWrite } from '../domain/gemini/usage-tally';
import { readSettings, type Settings } from '../domain/config/settings';
import { missingSettings } from '../domain/config/required-settings';
import { rowsToArchive } from '../domain/queue/archive';
import { LAST_SWEEP_PROPERTY, NEXT_DUE_PROPERTY } from '../domain/queue/tick-gate';
import { computeHealth, healthWhenUnreadable, type QueueHealth } from '../triage/health';
import { IncidentBook } from '../triage/incidents';
import { knownSecretsOf, nextTriageMailAt } from '../triage/triage-mail';

/** How long archiving waits for the intake lock before leaving the rows for the next run. */
const ARCHIVE_LOCK_WAIT_MS = 10000;

/** Never throws for anything processing or Sheets does; the caller still guards the property reads and writes around it. */
export function runQueueTick(ports: TickPorts, snapshot: Record<string, string>, startedAt: number): TickReport {
  const { settings, problems } = readSettings(snapshot);
  const secrets = knownSecretsOf(settings);
  const book = new IncidentBook(ports.props, ports.clock, { knownSecrets: secrets, properties: snapshot });
  if (problems.length > 0) book.raise('CONFIG_INVALID', problems.join(' '));
  else book.clear('CONFIG_INVALID');
  const missing = missingSettings(settings);
  if (missing.length > 0) book.raise('CONFIG_MISSING', missing.join(' '));
  watchRunGap(book, snapshot, startedAt);

  const outcome = processAndMeasure(ports, settings, book, startedAt, snapshot);
  // Cleared only after the run: a missing sheet or column found by processing is the same incident.
  if (missing.length === 0 && outcome.sheetsConfigured) book.clear('CONFIG_MISSING');
  watchSideConditions(book, ports, outcome, snapshot, startedAt);
  // The tokens this run spent and the models it found retired are stored with the run's other marks (below).
  const spending = spendingProperties(outcome.summary, snapshot, ports.dateKey(startedAt));
  const usage = readUsage(spending[USAGE_PROPERTY] ?? snapshot[USAGE_PROPERTY]);
  sendTriage(book, ports, outcome.health, settings, {
    rejected: outcome.rejected ?? totalsOn(snapshot[REJECTED_TOTALS_PROPERTY], ports.dateKey(startedAt)),
    usage,
    reviews: reviewLines(readReviews(snapshot[REVIEWS_PROPERTY])),
    mail: mailFiguresOf(outcome, snapshot, settings, ports.clock),
  });
  // A recovery mail falls due without anything else happening: the tick gate must not sleep past it.
  const nextDueAt = earliest(outcome.nextDueAt, nextTriageMailAt(book.all(), ports.clock.now()));
  // The gate's marks go with the incidents' changes, in one write.
  // So does intake's copy of Config's forms, when this run's read of Config makes a new one.
  const copy: Record<string, string> = outcome.formsCopy ? { [FORMS_MIRROR_PROPERTY]: outcome.formsCopy } : {};
  // So does where the Journal check stopped.
  const journal = outcome.summary?.journal ? journalStateProperties(outcome.summary.journal, snapshot) : { properties: {}, dropped: 0 };
  if (journal.dropped > 0) ports.warn(`the Journal check watches too many open submissions: ${journal.dropped} of the oldest are no longer watched`);
  // So does what the bounce check read, when it made one.
  const bounces: Record<string, string> = outcome.summary?.bounceCheck ? { [BOUNCE_CHECK_PROPERTY]: JSON.stringify(outcome.summary.bounceCheck) } : {};
  // So do the tokens this run spent and the models it found retired: no Script Properties call of their own.
  book.commit(undefined, { [LAST_SWEEP_PROPERTY]: String(startedAt), [NEXT_DUE_PROPERTY]: nextDueAt === null ? '' : String(nextDueAt), ...copy, ...journal.properties, ...bounces, ...spending });
  return { summary: outcome.summary, nextDueAt };
}

/** FQ_TOKENS with this run's spending added, FQ_MODELS_RETIRED as this run left it, FQ_TEMPLATES_SEEN as it saw Config; only what changed. */
function spendingProperties(summary: ProcessingSummary | undefined, snapshot: Record<string, string>, dayKey: string): Record<string, string> {
  if (!summary) return {};
  const properties: Record<string, string> = {};
  const usage = usageToWrite(snapshot[USAGE_PROPERTY], summary.usage, dayKey);
  if (usage !== null) properties[USAGE_PROPERTY] = usage;
  const retired = retiredModelsToWrite(summary.retiredModels, snapshot[RETIRED_MODELS_PROPERTY]);
  if (retired !== null) properties[RETIRED_MODELS_PROPERTY] = retired;
  // What this run saw of each form's template: the next run holds READY rows drafted with one since changed.
  const templates = summary.templatesSeen ? templatesSeenToWrite(summary.templatesSeen, snapshot[TEMPLATES_SEEN_PROPERTY]) : null;
  if (templates !== null) properties[TEMPLATES_SEEN_PROPERTY] = templates;
  return properties;
}

function processAndMeasure(ports: TickPorts, settings: Settings, book: IncidentBook, startedAt: number, snapshot: Record<string, string>): RunOutcome {
  const unreadable = () => healthWhenUnreadable(ports.clock.now(), book.lastKnownHealth(), { spilled: safeSpillCount(ports) });
  try {
    const workspace = ports.openWorkspace(settings);
    let formsCopy: string | null = null;
    const config: ConfigStore = {
      // The time is taken before the read: a person's edit during it makes the copy stale (forms-mirror.ts).
      readForms() {
        const readAt = ports.clock.now();
        const forms = workspace.config.readForms();
        formsCopy = mirrorToWrite(snapshot, forms, readAt);
        return forms;
      },
    };
    const summary = runProcessing(
      {
        queue: workspace.queue,
        config,
        gemini: workspace.gemini,
        mailer: ports.mailer,
        sentMail: ports.sentMail,
        runningAccount: ports.runningAccount,
        audit: workspace.audit,
        incidents: book,
        clock: ports.clock,
        random: ports.random,
        settings,
        drainSpill: () => workspace.drainSpill(),
        readPayload: (row) => workspace.readPayload(row),
        journal: workspace.journal,
        journalState: readJournalState(snapshot),
        suppression: workspace.suppression,
        bounceMail: ports.bounceMail,
        bounceCheck: readBounceCheckState(snapshot),
        localClock: ports.localClock,
        retiredModels: readRetiredModels(snapshot[RETIRED_MODELS_PROPERTY], startedAt),
        tokensSpentToday: tokensOn(readUsage(snapshot[USAGE_PROPERTY]), ports.dateKey(startedAt)),
        templatesSeen: readTemplatesSeen(snapshot[TEMPLATES_SEEN_PROPERTY]),
      },
      { startedAt },
    );
    if (summary.journalMissing !== undefined) book.raise('CONFIG_MISSING', summary.journalMissing);
    const sheetsConfigured = summary.stoppedBecause !== 'config-missing' && summary.journalMissing === undefined;
    if (summary.stoppedBecause === 'sheets-unavailable' || summary.stoppedBecause === 'code-bug' || !sheetsConfigured) {
      return { summary, health: unreadable(), nextDueAt: summary.nextDueAt, sheetsConfigured };
    }
    book.clear('SHEETS_UNAVAILABLE');
    addCaughtUp(book, summary);
    const health = archiveAndMeasure(workspace, settings, ports);
    book.rememberHealth(health);
    workspace.watchCapacity(book, ports.clock.now());
    const folded = foldRejections(workspace, ports, book);
    const readSuppressed = () => workspace.suppression?.read() ?? [];
    return { summary, health, nextDueAt: summary.nextDueAt, sheetsConfigured: sheetsConfigured && !folded.tallyMissing, rejected: folded.totals, formsCopy, readSuppressed };
  } catch (error) {
    const incident = failureIncident(error, knownSecretsOf(settings));
    book.raise(incident.code, incident.detail);
    // As runProcessing does for a failure inside it: the next tick comes back, to see the outage end or report the bug again.
    return { health: unreadable(), nextDueAt: ports.clock.now(), sheetsConfigured: incident.code !== 'CONFIG_MISSING' };
  }
}

/** The day's totals with what doPost counted since the last run; a Tally that cannot be read leaves them as they were. */
function foldRejections(workspace: Workspace, ports: TickPorts, book: IncidentBook): { totals?: RejectedTotals; tallyMissing: boolean } {
  try {
    return { totals: foldTally(workspace.tally, ports.props, ports.dateKey(ports.clock.now())), tallyMissing: false };
  } catch (error) {
    // A missing Tally sheet is a sheet Set up makes: the same incident as any other missing sheet.
    if (codeOf(error) === 'CONFIG_MISSING') {
      book.raise('CONFIG_MISSING', messageOf(error));
      return { tallyMissing: true };
    }
    ports.warn(`rejected deliveries not counted this run: ${messageOf(error)}`);
    return { tallyMissing: false };
  }
}

function earliest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

function archiveAndMeasure(workspace: Workspace, settings: Settings, ports: TickPorts): QueueHealth {
  const now = ports.clock.now();
  let rows = workspace.queue.readAll();
  const finished = rowsToArchive(rows, now, settings.archiveAfterDays);
  if (finished.length > 0 && workspace.intakeLock.tryLock(ARCHIVE_LOCK_WAIT_MS)) {
    try {
      workspace.queue.archiveRows(finished);
      rows = workspace.queue.readAll();
    } finally {
      workspace.intakeLock.release();
    }
  }
  return computeHealth(rows, now, workspace.spreadsheetUrl(), workspace.queueSheetId(), {
    spilled: ports.spill.count(),
    approvalWaitHours: settings.approvalWaitHours,
  });
}

function safeSpillCount(ports: TickPorts): number {
  try {
    return ports.spill.count();
  } catch {
    return 0;
  }
}
