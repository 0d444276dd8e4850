// processQueue's sequence: tick gate, script lock, processing, archive, health, incidents and triage mail.
import { codeOf, isSheetsOutage, messageOf } from '../core/errors';
import { SPILL_WARN_CHARS, REJECTED_COUNT_PROPERTY } from '../core/intake/intake';
import { drainSpill } from '../core/intake/spill-drain';
import type { Mailer, PropertyStore } from '../core/ports';
import { runProcessing, type ProcessingSummary } from '../core/processing/process-run';
import { redact } from '../core/redact';
import { missingSettingMessage, readSettings, type Settings } from '../core/settings';
import { SHEETS } from '../core/sheet-names';
import { rowsToArchive } from '../core/staff/archive';
import { decideTick, DIRTY_PROPERTY, LAST_SWEEP_PROPERTY, NEXT_DUE_PROPERTY } from '../core/tick-gate';
import {
  computeHealth,
  holdsRowsBack,
  healthWhenUnreadable,
  IncidentBook,
  knownSecretsOf,
  nextTriageMailAt,
  planDailySummary,
  planTriageMails,
  type QueueHealth,
} from '../core/triage';
import { createAuditLog } from './audit-log';
import { createConfigStore } from './config-store';
import { createGeminiClient } from './gemini-client';
import { watchGrid } from './grid-watch';
import { intakeDeps } from './intake-service';
import { intakeLock, scriptLock } from './locks';
import { createMailer } from './mailer';
import { readPayload } from './payloads';
import { createQueueStore } from './queue-store';
import { createScriptPropertyStore } from './script-properties';
import { createSpillStore } from './spill-store';
import { openSpreadsheet } from './spreadsheet';
import { systemClock, systemRandom } from './system-clock';

/** Rejections in one hour that make an incident (a token rotation gone wrong looks like this). */
const REJECTED_INCIDENT_THRESHOLD = 10;
const HOUR_MS = 3600000;

export interface TickOutcome {
  ran: boolean;
  reason: string;
  summary?: ProcessingSummary;
}

/**
 * Never throws: an uncaught error in a clock trigger makes Google mail its own failure notice every
 * minute (see docs/platform.md#transient-service-errors), which is the flood triage exists to replace.
 */
export function runQueueTick(options: { force?: boolean } = {}): TickOutcome {
  const startedAt = systemClock.now();
  try {
    const props = createScriptPropertyStore();
    const snapshot = props.getAll();
    const gate = decideTick(snapshot, startedAt);
    if (!options.force && !gate.due) return { ran: false, reason: gate.reason };
    const lock = scriptLock();
    if (!lock.tryLock(0)) return { ran: false, reason: 'another processQueue run holds the script lock' };
    try {
      // Cleared before the Queue is read: a delivery landing during this run sets it again for the next tick.
      if (snapshot[DIRTY_PROPERTY] !== undefined) props.delete(DIRTY_PROPERTY);
      return { ran: true, reason: gate.reason, summary: runLocked(props, snapshot, startedAt) };
    } finally {
      lock.release();
    }
  } catch (error) {
    console.error(`processQueue failed outside its guarded steps: ${redact(messageOf(error))}`);
    return { ran: false, reason: `error: ${redact(messageOf(error))}` };
  }
}

function runLocked(props: PropertyStore, snapshot: Record<string, string>, startedAt: number): ProcessingSummary | undefined {
  const { settings, problems } = readSettings(snapshot);
  const book = new IncidentBook(props, systemClock, { knownSecrets: knownSecretsOf(settings), properties: snapshot });
  if (problems.length > 0) book.raise('CONFIG_INVALID', problems.join(' '));
  else book.clear('CONFIG_INVALID');
  const missing = missingSettings(settings);
  if (missing.length > 0) book.raise('CONFIG_MISSING', missing.join(' '));
  // Cleared only after the run: a missing sheet or column found by processing is the same incident.
  let sheetsConfigured = false;

  const mailer = createMailer();
  const spill = createSpillStore();
  let summary: ProcessingSummary | undefined;
  let health: QueueHealth;
  let nextDueAt: number | null = null;
  try {
    const spreadsheet = openSpreadsheet(settings);
    const queue = createQueueStore(spreadsheet);
    const intake = intakeDeps(props, snapshot);
    summary = runProcessing(
      {
        queue,
        config: createConfigStore(spreadsheet),
        gemini: createGeminiClient(settings.geminiBaseUrl, settings.geminiApiKey),
        mailer,
        audit: createAuditLog(spreadsheet),
        incidents: book,
        clock: systemClock,
        random: systemRandom,
        settings,
        drainSpill: () => void drainSpill(intake),
        readPayload: (row) => readPayload(spreadsheet, row),
      },
      { startedAt },
    );
    nextDueAt = summary.nextDueAt;
    sheetsConfigured = summary.stoppedBecause !== 'config-missing';
    if (summary.stoppedBecause === 'sheets-unavailable' || summary.stoppedBecause === 'code-bug' || summary.stoppedBecause === 'config-missing') {
      // Counted without decoding; safeSpillCount only guards against Script Properties failing too.
      health = healthWhenUnreadable(systemClock.now(), book.lastKnownHealth(), { spilled: safeSpillCount(spill) });
    } else {
      book.clear('SHEETS_UNAVAILABLE');
      addCaughtUp(book, summary);
      health = archiveAndMeasure(spreadsheet, queue, settings, spill.count());
      book.rememberHealth(health);
      watchGrid(spreadsheet, props, book, snapshot, systemClock.now());
    }
  } catch (error) {
    recordFailure(book, error, settings);
    health = healthWhenUnreadable(systemClock.now(), book.lastKnownHealth(), { spilled: safeSpillCount(spill) });
    // As runProcessing does for a failure inside it: the next tick comes back, to see the outage end or report the bug again.
    nextDueAt = systemClock.now();
  }
  if (missing.length === 0 && sheetsConfigured) book.clear('CONFIG_MISSING');
  watchSideConditions(book, props, spill, health, startedAt);
  sendTriage(book, mailer, health, settings);
  book.commit();
  // A recovery mail falls due without anything else happening: the tick gate must not sleep past it.
  nextDueAt = earliest(nextDueAt, nextTriageMailAt(book.all(), systemClock.now()));
  props.setMany({ [LAST_SWEEP_PROPERTY]: String(startedAt), [NEXT_DUE_PROPERTY]: nextDueAt === null ? '' : String(nextDueAt) });
  return summary;
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

function missingSettings(settings: Settings): string[] {
  const missing: string[] = [];
  if (settings.geminiApiKey === '') missing.push(missingSettingMessage('GEMINI_API_KEY', 'the key replies are written with'));
  if (settings.staffEmails.length === 0) missing.push(missingSettingMessage('STAFF_EMAILS', 'who gets triage mail'));
  if (settings.webhookToken === '') missing.push(missingSettingMessage('WEBHOOK_TOKEN', 'deliveries cannot be authenticated'));
  return missing;
}

function archiveAndMeasure(
  spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet,
  queue: ReturnType<typeof createQueueStore>,
  settings: Settings,
  spilled: number,
): QueueHealth {
  const now = systemClock.now();
  let rows = queue.readAll();
  const finished = rowsToArchive(rows, now, settings.archiveAfterDays);
  if (finished.length > 0) {
    // Deleting rows moves the ones below: doPost must not append meanwhile, so the intake lock is held.
    const lock = intakeLock();
    if (lock.tryLock(10000)) {
      try {
        queue.archiveRows(finished);
        rows = queue.readAll();
      } finally {
        lock.release();
      }
    }
  }
  const queueSheet = spreadsheet.getSheetByName(SHEETS.queue);
  return computeHealth(rows, now, spreadsheet.getUrl(), queueSheet ? queueSheet.getSheetId() : null, { spilled });
}

function recordFailure(book: IncidentBook, error: unknown, settings: Settings): void {
  const secrets = knownSecretsOf(settings);
  if (isSheetsOutage(error)) book.raise('SHEETS_UNAVAILABLE', redact(messageOf(error), secrets));
  else if (codeOf(error) === 'CONFIG_MISSING') book.raise('CONFIG_MISSING', redact(messageOf(error), secrets));
  else book.raise('CODE_BUG', redact(String((error as Error)?.stack ?? messageOf(error)), secrets));
}

function safeSpillCount(spill: ReturnType<typeof createSpillStore>): number {
  try {
    return spill.count();
  } catch {
    return 0;
  }
}

/** Conditions processing does not see: the spill filling up, a burst of rejected deliveries, rows waiting for review. */
function watchSideConditions(book: IncidentBook, props: PropertyStore, spill: ReturnType<typeof createSpillStore>, health: QueueHealth, now: number): void {
  const spillChars = spill.size();
  if (spillChars > SPILL_WARN_CHARS) book.raise('SPILL_BACKLOG', `${health.spilled} deliveries wait in Script Properties (${spillChars} characters of 400,000)`);
  else book.clear('SPILL_BACKLOG');
  try {
    const rejected = JSON.parse(props.getAll()[REJECTED_COUNT_PROPERTY] ?? 'null') as { hour: number; kept: number; dropped: number } | null;
    const total = rejected && rejected.hour === Math.floor(now / HOUR_MS) ? rejected.kept + rejected.dropped : 0;
    if (total >= REJECTED_INCIDENT_THRESHOLD) book.raise('REJECTED_DELIVERIES', `${total} deliveries were rejected this hour (${rejected?.dropped ?? 0} without their body); see the Rejected sheet`);
    else book.clear('REJECTED_DELIVERIES');
  } catch {
    // A garbled counter is rewritten by the next rejection.
  }
  if (!health.readable) return;
  const review = health.needsPerson.filter((row) => row.status === 'NEEDS_REVIEW');
  if (review.length > 0) book.raise('NEEDS_REVIEW_ROWS', `${review.length} row(s) may or may not have been mailed and need a person to check`, review.map((row) => row.rowNumber));
  else book.clear('NEEDS_REVIEW_ROWS');
}

function sendTriage(book: IncidentBook, mailer: Mailer, health: QueueHealth, settings: Settings): void {
  let quota = 0;
  try {
    quota = mailer.remainingDailyQuota();
  } catch (error) {
    console.warn(`mail quota unknown, triage mail waits: ${messageOf(error)}`);
    return;
  }
  const now = systemClock.now();
  const plan = planTriageMails(book.all(), health, now, settings, { remainingMailQuota: quota });
  for (const planned of plan.mails) {
    try {
      mailer.send(planned.mail);
      book.markMailed(planned.code, planned.kind);
      // Committed after each mail, so a later failure in this run cannot resend it. Staff mail is at-least-once:
      // only a run killed between the send and this commit (milliseconds) would send it again next run.
      book.commit();
    } catch (error) {
      console.warn(`triage mail for ${planned.code} not sent, it stays planned: ${redact(messageOf(error), knownSecretsOf(settings))}`);
    }
  }
  const summary = planDailySummary({
    dateKey: Utilities.formatDate(new Date(now), Session.getScriptTimeZone(), 'yyyy-MM-dd'),
    lastSentDateKey: book.lastDailySummaryDate(),
    health,
    incidents: book.all(),
    history: book.recentHistory(),
    now,
    settings,
    remainingMailQuota: quota - plan.mails.length * settings.staffEmails.length,
  });
  if (summary) {
    try {
      mailer.send(summary);
      book.markDailySummarySent(Utilities.formatDate(new Date(now), Session.getScriptTimeZone(), 'yyyy-MM-dd'));
    } catch (error) {
      console.warn(`daily summary not sent: ${messageOf(error)}`);
    }
  }
}
