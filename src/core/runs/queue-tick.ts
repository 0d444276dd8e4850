// One processQueue run once the script lock is held: settings, processing, archive, health, side conditions, triage mail.
import { codeOf, messageOf } from '../domain/failures/errors';
import { failureIncident } from '../domain/failures/failure';
import { SPILL_LIMIT_CHARS, SPILL_WARN_CHARS } from '../intake/intake';
import { finishedSubmissionsRefused, rejectedIncidentDetail } from '../domain/typeform/rejection-kinds';
import { REJECTED_TOTALS_PROPERTY, foldTally, totalsOn, type RejectedTotals } from '../domain/typeform/rejection-tally';
import { FORMS_MIRROR_PROPERTY, mirrorToWrite } from '../domain/config/forms-mirror';
import type { AuditLog, BounceMailbox, Clock, ConfigStore, GeminiClient, IncidentSink, JournalStore, Lock, Mailer, PropertyStore, QueueStore, Random, SentMailbox, SuppressionList, TallyStore } from '../domain/ports';
import { journalStateProperties, readJournalState } from '../processing/journal-check';
import { runProcessing, type ProcessingSummary } from '../processing/process-run';
import { BOUNCE_CHECK_PROPERTY, bouncesSince, readBounceCheckState } from '../processing/bounces';
import { mailFigures, type MailFigures } from '../triage/mail-figures';
import type { SuppressedEntry } from '../domain/mail/suppression';
import { readTemplatesSeen, templatesSeenToWrite, TEMPLATES_SEEN_PROPERTY } from '../processing/template-change';
import type { LocalClock } from '../domain/mail/send-window';
import { RETIRED_MODELS_PROPERTY, readRetiredModels, retiredModelsToWrite } from '../domain/gemini/model-list';
import { readReviews, reviewLines, REVIEWS_PROPERTY } from '../staff/review-stats';
import { USAGE_PROPERTY, readUsage, tokensOn, usageSections, usageToWrite, type StoredUsage } from '../domain/gemini/usage-tally';
import { inRejectedDetail, readCheckRecord, recoveredDetail } from '../reconcile/check-record';
import { readWatchRecord, watchDetail } from '../reconcile/webhook-watch';
import type { QueueRow } from '../domain/queue/queue-row';
import { missingSettings, readSettings, type Settings } from '../domain/config/settings';
import { rowsToArchive } from '../domain/queue/archive';
import { LAST_SWEEP_PROPERTY, NEXT_DUE_PROPERTY } from '../domain/queue/tick-gate';
import { computeHealth, healthWhenUnreadable, type QueueHealth } from '../triage/health';
import { holdsRowsBack } from '../triage/incident-catalog';
import { IncidentBook } from '../triage/incidents';
import { planDailySummary } from '../triage/daily-summary';
import { knownSecretsOf, nextTriageMailAt, planTriageMails } from '../triage/triage-mail';
import { redact } from '../domain/failures/redact';
import { missedRunsDetail, runGap } from '../domain/queue/run-gap';
import { DAY_MS } from '../domain/time';

/** How long archiving waits for the intake lock before leaving the rows for the next run. */
const ARCHIVE_LOCK_WAIT_MS = 10000;

/** The spreadsheet side of a run, opened once the settings are known. */
export interface Workspace {
  queue: QueueStore;
  config: ConfigStore;
  gemini: GeminiClient;
  audit: AuditLog;
  /** Moves spilled deliveries into Queue (intake's drain). */
  drainSpill(): void;
  /** The row's full payload JSON when `payload` points into the Payloads sheet. */
  readPayload(row: QueueRow): string;
  /** doPost's lock: archiving deletes rows, which moves the ones below, so no append may run meanwhile. */
  intakeLock: Lock;
  /** For the row links in triage mail; read after processing, like every other Sheets call. */
  spreadsheetUrl(): string;
  queueSheetId(): number | null;
  /** Measures the spreadsheet's grid against the cell limit and raises or clears GRID_NEARLY_FULL (at most hourly). */
  watchCapacity(incidents: IncidentSink, now: number): void;
  /** Rejections counted by doPost, folded into the day's totals by every full run. */
  tally: TallyStore;
  /** The record of every accepted submission (src/core/journal). */
  journal?: JournalStore;
  /** The Suppressed sheet: addresses no reply is mailed to. */
  suppression?: SuppressionList;
}

export interface TickPorts {
  props: PropertyStore;
  clock: Clock;
  random: Random;
  mailer: Mailer;
  /** The Sent folder for RECONCILE_SENT_MAIL; absent, the Sent check does nothing. */
  sentMail?: SentMailbox;
  /** The inbox for RECONCILE_BOUNCES; absent, the bounce check does nothing. */
  bounceMail?: BounceMailbox;
  /** The script's time zone, for Config send_hours; absent, UTC. */
  localClock?: LocalClock;
  /** The account this execution runs as (ProcessingDeps.runningAccount). */
  runningAccount?(): string;
  /** Deliveries waiting in Script Properties: counted and sized without decoding them. */
  spill: { size(): number; count(): number };
  /** Opens the spreadsheet and its sheets; throws CONFIG_MISSING (no spreadsheet) or a Sheets outage. */
  openWorkspace(settings: Settings): Workspace;
  /** The calendar day of `now` in the script's time zone ("2026-12-01"): the daily summary goes once per day. */
  dateKey(now: number): string;
  /** The execution log, for what could not be done and is retried later (a triage mail not sent). */
  warn(message: string): void;
}

/** What one run did, and when the next one is due. */
export interface TickReport {
  summary?: ProcessingSummary;
  nextDueAt: number | null;
}

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

interface RunOutcome {
  summary?: ProcessingSummary;
  health: QueueHealth;
  /** Today's rejections: folded from Tally by this run, or as last folded when the spreadsheet could not be opened. */
  rejected?: RejectedTotals;
  nextDueAt: number | null;
  sheetsConfigured: boolean;
  /** Intake's new copy of Config's forms (forms-mirror.ts), when the run read Config and the stored copy needs one. */
  formsCopy?: string | null;
  /** Reads the Suppressed sheet, for the daily summary's figures; absent when the spreadsheet could not be opened. */
  readSuppressed?: () => SuppressedEntry[];
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

/**
 * The first full run after runs stopped while work waited tells staff once (RUNS_MISSED, src/core/domain/queue/run-gap.ts). It has
 * no follow-ups, so it ends at a later run, but only once mailed: a mail held back (no quota to spare) still goes.
 */
function watchRunGap(book: IncidentBook, snapshot: Record<string, string>, now: number): void {
  const gap = runGap(snapshot, now);
  if (gap !== null) book.raise('RUNS_MISSED', missedRunsDetail(gap, now, (ms) => new Date(ms).toISOString()));
  else if ((book.get('RUNS_MISSED')?.mailsSent ?? 0) > 0) book.clear('RUNS_MISSED');
}

function earliest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

/**
 * What this run did for rows an incident had held back, added up in each incident awaiting its recovery mail.
 * Replies sent only: a delivery drained from the spill and then answered would otherwise count twice in the subject.
 */
function addCaughtUp(book: IncidentBook, summary: ProcessingSummary): void {
  const caughtUp = { 'replies sent': summary.sent };
  for (const incident of book.all()) {
    if (incident.state === 'cleared' && holdsRowsBack(incident.code)) book.clear(incident.code, caughtUp);
  }
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

/**
 * Conditions read from the whole picture after the run: the spill filling up, a burst of rejected deliveries,
 * and rows needing a person. ROWS_NEED_A_PERSON is raised here only, from the Queue as measured.
 */
function watchSideConditions(book: IncidentBook, ports: TickPorts, outcome: RunOutcome, snapshot: Record<string, string>, now: number): void {
  const health = outcome.health;
  const spillChars = ports.spill.size();
  if (spillChars > SPILL_WARN_CHARS) {
    book.raise('SPILL_BACKLOG', `${health.spilled} deliveries wait in Script Properties (${spillChars} characters of ${SPILL_LIMIT_CHARS.toLocaleString('en-US')})`);
  } else {
    book.clear('SPILL_BACKLOG');
  }
  const today = ports.dateKey(now);
  const rejected = outcome.rejected ?? totalsOn(snapshot[REJECTED_TOTALS_PROPERTY], today);
  // One incident per calendar day, like its count: yesterday's ends (silently, it has no follow-ups) before today's opens.
  const open = book.get('REJECTED_DELIVERIES');
  if (open && ports.dateKey(open.firstSeen) !== today) book.clear('REJECTED_DELIVERIES');
  // When the day's rejections make an incident is decided in one place (rejection-kinds.ts), which also words it.
  const detail = rejectedIncidentDetail(rejected);
  if (detail !== null) {
    book.raise('REJECTED_DELIVERIES', detail);
  } else {
    book.clear('REJECTED_DELIVERIES');
  }
  watchTypeformCheck(book, snapshot, now);
  if (!health.readable) return;
  // Which rows count is decided once, by computeHealth (src/core/triage/needs-person.ts); doGet reads the same figure.
  if (health.needsPersonCount > 0) {
    book.raise('ROWS_NEED_A_PERSON', needsPersonSummary(health), health.needsPerson.map((row) => row.rowNumber));
  } else {
    book.clear('ROWS_NEED_A_PERSON');
  }
}

/** "3 rows need a person: FAILED 1, NEEDS_REVIEW 2" (the listed rows by status, and the full count). */
function needsPersonSummary(health: QueueHealth): string {
  const byStatus = new Map<string, number>();
  for (const row of health.needsPerson) byStatus.set(row.status || 'no status', (byStatus.get(row.status || 'no status') ?? 0) + 1);
  const listed = Array.from(byStatus, ([status, count]) => `${status} ${count}`).join(', ');
  const among = health.needsPersonCount > health.needsPerson.length ? ` among the first ${health.needsPerson.length}` : '';
  return `${health.needsPersonCount} row(s) need a person: ${listed}${among}`;
}

/** What the last Typeform check found (docs/reconciliation.md): a disabled webhook, submissions it recovered, and those only in Rejected. */
function watchTypeformCheck(book: IncidentBook, snapshot: Record<string, string>, now: number): void {
  const check = readCheckRecord(snapshot);
  const watch = readWatchRecord(snapshot);
  // The newer look decides: the 15-minute watch, or the daily check (or the menu's) made after it.
  if (watch !== null && (check === null || watch.at >= check.at)) {
    if (watch.unhealthy.length > 0) book.raise('WEBHOOK_DISABLED', watchDetail(watch));
    else book.clear('WEBHOOK_DISABLED');
  } else if (check !== null && check.disabled.length > 0) {
    book.raise('WEBHOOK_DISABLED', `the Typeform webhook of form ${check.disabled.join(', ')} is disabled or missing (Typeform check ${new Date(check.at).toISOString()})`);
  } else {
    book.clear('WEBHOOK_DISABLED');
  }
  if (check !== null && check.recovered > 0 && now - check.at < DAY_MS) {
    book.raise('SUBMISSIONS_RECOVERED', recoveredDetail(check));
  } else {
    book.clear('SUBMISSIONS_RECOVERED');
  }
  // What the check left for staff to accept in Rejected: told, since nothing else would tell it.
  if (check !== null && check.inRejected > 0 && now - check.at < DAY_MS) {
    book.raise('SUBMISSIONS_IN_REJECTED', inRejectedDetail(check));
  } else {
    book.clear('SUBMISSIONS_IN_REJECTED');
  }
}

/** What the daily summary reports besides the queue: the day's rejected deliveries and the Gemini spending. */
interface SummaryFigures {
  rejected: RejectedTotals;
  usage: StoredUsage;
  /** Approvals as the staff console counted them (REVIEWS_PROPERTY). */
  reviews: string[];
  /** Bounces and the Suppressed sheet: the sheet is read only when the summary goes. */
  mail: () => MailFigures;
}

/** The bounce count as this run left it (RECONCILE_BOUNCES off: null) and the Suppressed sheet, read when asked. */
function mailFiguresOf(outcome: RunOutcome, snapshot: Record<string, string>, settings: Settings, clock: Clock): () => MailFigures {
  const state = outcome.summary?.bounceCheck ?? readBounceCheckState(snapshot);
  return () => mailFigures(settings.reconcileBounces ? bouncesSince(state, clock.now() - DAY_MS) : null, outcome.readSuppressed ?? null);
}

function sendTriage(book: IncidentBook, ports: TickPorts, health: QueueHealth, settings: Settings, figures: SummaryFigures): void {
  const { rejected, usage, reviews, mail } = figures;
  let quota = 0;
  try {
    quota = ports.mailer.remainingDailyQuota();
  } catch (error) {
    ports.warn(`mail quota unknown, triage mail waits: ${messageOf(error)}`);
    return;
  }
  const now = ports.clock.now();
  const plan = planTriageMails(book.all(), health, now, settings, { remainingMailQuota: quota, finishedSubmissionsRefused: finishedSubmissionsRefused(rejected.kinds) });
  for (const planned of plan.mails) {
    try {
      ports.mailer.send(planned.mail);
      book.markMailed(planned.code, planned.kind);
      // Committed after each mail, so a later failure in this run cannot resend it. Staff mail is at-least-once:
      // only a run killed between the send and this commit (milliseconds) would send it again next run.
      book.commit();
    } catch (error) {
      ports.warn(`triage mail for ${planned.code} not sent, it stays planned: ${redact(messageOf(error), knownSecretsOf(settings))}`);
    }
  }
  const dateKey = ports.dateKey(now);
  const summary = planDailySummary({
    dateKey,
    lastSentDateKey: book.lastDailySummaryDate(),
    health,
    incidents: book.all(),
    history: book.recentHistory(),
    now,
    settings,
    remainingMailQuota: quota - plan.mails.length * settings.staffEmails.length,
    rejected,
    usage: usageSections(usage, dateKey),
    reviews,
    mail,
  });
  if (!summary) return;
  try {
    ports.mailer.send(summary);
    book.markDailySummarySent(dateKey);
  } catch (error) {
    ports.warn(`daily summary not sent: ${messageOf(error)}`);
  }
}
