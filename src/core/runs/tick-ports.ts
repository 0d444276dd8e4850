// What processQueue's run is given (its ports, the spreadsheet side) and what it measured on the way.
import type { RejectedTotals } from '../domain/typeform/rejection-tally';
import type { BounceMailbox, Clock, GeminiClient, IncidentSink, Lock, Mailer, PropertyStore, Random, SentMailbox } from '../domain/ports';
import type { AuditLog, ConfigStore, JournalStore, QueueStore, SuppressionList, TallyStore } from '../domain/sheet-ports';
import type { ProcessingSummary } from '../processing/process-run';
import type { SuppressedEntry } from '../domain/mail/suppression';
import type { LocalClock } from '../domain/mail/send-window';
import type { QueueRow } from '../domain/queue/queue-row';
import type { Settings } from '../domain/config/settings';
import type { QueueHealth } from '../triage/health';


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

/** What the run did and measured, for the watches and the triage mail after it. */
export interface RunOutcome {
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
