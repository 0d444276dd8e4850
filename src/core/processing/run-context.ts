// What one processing run carries between its steps: ports, the rows as last seen, counters, incidents; its writes are in run-writes.ts.
import type { BounceMailbox, Clock, GeminiClient, IncidentSink, Mailer, Random, SentMailbox } from '../domain/ports';
import type { AuditLog, ConfigStore, FormConfig, JournalStore, LogEntry, QueueStore, SuppressionList } from '../domain/sheet-ports';
import type { IncidentCode } from '../domain/failures/codes';
import type { JournalState } from './journal-check';
import type { QueueRow } from '../domain/queue/queue-row';
import type { Settings } from '../domain/config/settings';
import { suppressionIndex, type SuppressedEntry } from '../domain/mail/suppression';
import type { LocalClock } from '../domain/mail/send-window';
import type { Batch } from './batch';
import type { BounceCheckState } from './bounces';
import type { RetiredModels } from '../domain/gemini/model-list';
import type { UsageTally } from '../domain/gemini/usage-tally';

export { countWhenWritten, newBatch, type Batch } from './batch';

export interface ProcessingDeps {
  queue: QueueStore;
  config: ConfigStore;
  gemini: GeminiClient;
  mailer: Mailer;
  audit: AuditLog;
  incidents: IncidentSink;
  clock: Clock;
  random: Random;
  settings: Settings;
  /** The Sent folder, when RECONCILE_SENT_MAIL is on (src/gas/sent-mailbox.ts): the running account's. */
  sentMail?: SentMailbox;
  /**
   * The account this execution runs as (the trigger's creator, or the staff member who chose Process now): MailApp
   * sends from it and the Sent check searches its mailbox. '' when it cannot be told; absent, as ''.
   */
  runningAccount?(): string;
  /** Moves spilled deliveries into Queue (intake's drain); called first, before Queue is read. */
  drainSpill(): void;
  /** The row's full payload JSON when `payload` is a pointer into the Payloads sheet; default: the cell as is. */
  readPayload?(row: QueueRow): string;
  /** The Journal (src/core/journal); absent, the run makes no Journal check. */
  journal?: JournalStore;
  /** Where the last Journal check stopped (JOURNAL_STATE_PROPERTY). */
  journalState?: JournalState;
  /** The Suppressed sheet; absent, nothing is suppressed (tests that do not need one). */
  suppression?: SuppressionList;
  /** The inbox, when RECONCILE_BOUNCES is on (src/gas/bounce-mailbox.ts): the running account's. */
  bounceMail?: BounceMailbox;
  /** What the last bounce check recorded (BOUNCE_CHECK_PROPERTY); null or absent before the first. */
  bounceCheck?: BounceCheckState | null;
  /** The script's time zone, for Config send_hours; absent, UTC. */
  localClock?: LocalClock;
  /** Models Gemini answered 404 for lately (model-list.ts, RETIRED_MODELS_PROPERTY): skipped for the next in the list. */
  retiredModels?: RetiredModels;
  /** Tokens spent on replies today before this run (usage-tally.ts): what DAILY_TOKEN_BUDGET counts against. */
  tokensSpentToday?: number;
  /** Each form's template fingerprint as the last run saw it (template-change.ts): a READY row drafted with another waits. */
  templatesSeen?: Readonly<Record<string, string>>;
}

export interface ProcessingOptions {
  /** When this run started (epoch ms): RUN_BUDGET_SECONDS counts from here. */
  startedAt: number;
}

export type StopReason = 'done' | 'paused' | 'budget' | 'sheets-unavailable' | 'config-missing' | 'code-bug';

export interface ProcessingSummary {
  /** Rows that got a reply (READY or AWAITING_APPROVAL). */
  generated: number;
  sent: number;
  failed: number;
  /** Rows left waiting: retry back-off, systemic pause, mail quota or limits, a template to fix. */
  deferred: number;
  needsReview: number;
  duplicates: number;
  /** Generation rounds that called Gemini. */
  rounds: number;
  /** Earliest time work is known to be due (epoch ms), or null when nothing waits on time. */
  nextDueAt: number | null;
  stoppedBecause: StopReason;
  generationHaltedBy: IncidentCode | null;
  sendingHaltedBy: IncidentCode | null;
  /** Where this run's Journal check stopped, for the next one; absent when it made none. */
  journal?: JournalState;
  /** Why the Journal check could not run (no Journal sheet: Set up makes it), so the tick keeps CONFIG_MISSING open. */
  journalMissing?: string;
  /** What this run's bounce check read, for the next one; absent when it made none. */
  bounceCheck?: BounceCheckState;
  /** What this run's Gemini calls spent, per form and model. */
  usage: UsageTally;
  /** The models known retired after this run (the deps' ones, with those this run found), to store for the next. */
  retiredModels: RetiredModels;
  /** Each form's template fingerprint as this run saw it, to store for the next; absent when Config was not read. */
  templatesSeen?: Record<string, string>;
}

export interface Run {
  deps: ProcessingDeps;
  settings: Settings;
  deadline: number;
  /** Queue rows as last read or written by this run, in sheet order. */
  rows: QueueRow[];
  forms: FormConfig[];
  summary: ProcessingSummary;
  /** Incidents raised during this run: never cleared by the same run. */
  raised: Set<IncidentCode>;
  /** Rows this run will not try again (e.g. their template is broken): keeps rounds from spinning on them. */
  setAside: Set<number>;
  /** Known secret values, removed from every text written. */
  secrets: string[];
  /** Incidents whose condition this run checked and found gone; cleared once, at the end of the run. */
  gone: Set<IncidentCode>;
  /** The send ledger of the submissions this run looked up, with its own lines added (ledgerOf). */
  ledger: Map<string, LogEntry[]>;
  /** A batch whose write waits for the run's next commit, which takes it along (holdBatch); null when none waits. */
  held: HeldBatch | null;
  /** The running account, asked once when first needed (runningAccountOf). */
  account?: string;
  /** The Archive's keys, read once when a row may collapse (process-run.ts). */
  archivedKeys?: ReadonlySet<string>;
  /** The event ids and identities this run claimed for sending: a submission is claimed once a run, whatever its rows. */
  claimedForSending?: Set<string>;
  /** The Suppressed sheet by mailbox, read once, when the run first plans a send or a reply (suppressedOf). */
  suppressed?: Map<string, SuppressedEntry>;
  /** Mailboxes never mailed before that this run claimed a send to: they count against the new-recipient ceiling. */
  newRecipients?: Set<string>;
}

/** A batch held for the next commit, and what its writer does once it is written (with the rows of it written). */
interface HeldBatch {
  batch: Batch;
  after: (written: QueueRow[]) => void;
}

export function newSummary(): ProcessingSummary {
  return {
    generated: 0,
    sent: 0,
    failed: 0,
    deferred: 0,
    needsReview: 0,
    duplicates: 0,
    rounds: 0,
    nextDueAt: null,
    stoppedBecause: 'done',
    generationHaltedBy: null,
    sendingHaltedBy: null,
    usage: {},
    retiredModels: new Map(),
  };
}

/** The account this run sends from and whose Sent folder it searches ('' when unknown), asked once per run. */
export function runningAccountOf(run: Run): string {
  run.account ??= (run.deps.runningAccount?.() ?? '').trim().toLowerCase();
  return run.account;
}

export function isOverBudget(run: Run): boolean {
  return run.deps.clock.now() >= run.deadline;
}

export function raiseIncident(run: Run, code: IncidentCode, detail: string, rowNumbers: readonly number[] = []): void {
  run.raised.add(code);
  run.deps.incidents.raise(code, detail, rowNumbers);
}

export function markGone(run: Run, codes: readonly IncidentCode[]): void {
  for (const code of codes) run.gone.add(code);
}

/** Clears what was found gone, unless the same run also saw it (e.g. one form's model missing, another's fine). */
export function clearGoneIncidents(run: Run): void {
  for (const code of run.gone) if (!run.raised.has(code)) run.deps.incidents.clear(code);
}

export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** The suppression list, read once per run, when the run first plans a send or a reply; lines this run adds are added to it. */
export function suppressedOf(run: Run): Map<string, SuppressedEntry> {
  run.suppressed ??= suppressionIndex(run.deps.suppression?.read() ?? []);
  return run.suppressed;
}
