// What one processing run carries between its steps: ports, the rows as last seen, counters, and row moves.
import { codedError } from '../domain/failures/errors';
import type { BounceMailbox, Clock, GeminiClient, IncidentSink, Mailer, Random, SentMailbox } from '../domain/ports';
import type { AuditLog, ConfigStore, FormConfig, JournalStore, LogEntry, QueueStore, SuppressionList } from '../domain/sheet-ports';
import type { IncidentCode } from '../domain/failures/codes';
import type { JournalState } from './journal-check';
import type { QueueRow } from '../domain/queue/queue-row';
import { logLineOf } from '../domain/queue/submission-identity';
import type { Settings } from '../domain/config/settings';
import type { Status } from '../domain/queue/statuses';
import { suppressionIndex, type SuppressedEntry } from '../domain/mail/suppression';
import type { LocalClock } from '../domain/mail/send-window';
import { isSystemMove } from '../domain/queue/transitions';
import { combine, newBatch, type Batch } from './batch';
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

/**
 * A copy of `row` moved to `to` (with `patch` applied), recorded in `batch`. Only moves the table gives to
 * the system are made here: anything else is our own bug, and throwing keeps it from reaching the sheet.
 */
export function moveRow(
  run: Run,
  batch: Batch,
  row: QueueRow,
  to: Status,
  detail: string,
  patch: Partial<QueueRow> = {},
): QueueRow {
  if (!isSystemMove(row.status, to)) throw codedError('CODE_BUG', `processing tried to move row ${row.rowNumber} from ${row.status} to ${to}`);
  const now = run.deps.clock.now();
  const moved: QueueRow = { ...row, ...patch, status: to, updatedAt: now };
  batch.rows.push(moved);
  batch.read.push(row);
  batch.entries.push(logLineOf(row, { at: now, from: String(row.status), to, by: 'system', detail }));
  return moved;
}

/**
 * A copy of `row` with `patch` applied and its status kept, recorded in `batch` with a system Log line: a change of
 * reason a person must see in the row's history (e.g. the Sent check's finding on a NEEDS_REVIEW row).
 */
export function noteRow(run: Run, batch: Batch, row: QueueRow, detail: string, patch: Partial<QueueRow>): QueueRow {
  const now = run.deps.clock.now();
  const noted: QueueRow = { ...row, ...patch, status: row.status, updatedAt: now };
  batch.rows.push(noted);
  batch.read.push(row);
  batch.entries.push(logLineOf(row, { at: now, from: String(row.status), to: String(row.status), by: 'system', detail }));
  return noted;
}

/**
 * Writes the batch's rows in one call (compare-and-set by event_id, right before the write; only the cells each
 * move changed), flushes, and logs the moves that were written, in one append. A batch held for this commit
 * (holdBatch) is written in the same call and flush, its lines first. A row written where it moved to
 * gets its new row number (callers holding it see it); a row not
 * written keeps its old one, so the claim read-back that follows finds it is not ours. When any row moved,
 * the run reads the Queue again: every row number it holds may be stale after a sort. Returns the rows of `batch` written.
 */
export function commitBatch(run: Run, batch: Batch): QueueRow[] {
  if (batch.rows.length === 0) return []; // an empty batch leaves a held one for a commit that writes
  return writeWithHeld(run, batch);
}

function writeWithHeld(run: Run, batch: Batch): QueueRow[] {
  const held = run.held;
  run.held = null;
  // Never empty: commitBatch writes a batch with rows, releaseHeld a held one (holdBatch holds none without rows).
  const writes = combine(held?.batch ?? null, batch);
  const placed = run.deps.queue.writeRows(writes.map((w) => w.row), writes.map((w) => w.read));
  run.deps.queue.flush();
  const written: QueueRow[] = [];
  const heldWritten: QueueRow[] = [];
  const entries: LogEntry[] = [];
  let moved = false;
  placed.forEach((row, i) => {
    if (row === null) return;
    const write = writes[i];
    if (row.rowNumber !== write.row.rowNumber) moved = true;
    for (const copy of write.copies) copy.rowNumber = row.rowNumber;
    if (write.own !== null) written.push(write.own);
    if (write.held !== null) heldWritten.push(write.held);
    entries.push(...write.lines);
    for (const counter of write.counters) run.summary[counter]++;
  });
  if (moved) run.rows = run.deps.queue.readAll();
  // A move not written leaves the run's copy as it was read (for a held move, the copy had shown it at once; for one
  // of this batch, the read row is the copy it was made from).
  else remember(run, writes.map((w, i) => (placed[i] !== null ? w.row : w.read)));
  appendLog(run, entries);
  held?.after(heldWritten);
  return written;
}

/**
 * Holds a batch for the run's next commit instead of writing it now: the two are written with one compare-and-set
 * read, one write and one flush (each row still checked right before the write). Only for a batch whose write can
 * wait for a few steps of computing: nothing may be mailed, asked of Gemini or read from these rows before it is
 * written, so every such step commits first (a claim's commit takes it along) or calls releaseHeld. The run's
 * copies show the held moves at once, so the steps in between plan from them (the per-recipient count sees a row
 * SENT). `after` runs once it is written, with the rows of it that were.
 */
export function holdBatch(run: Run, batch: Batch, after: (written: QueueRow[]) => void = () => undefined): void {
  releaseHeld(run);
  if (batch.rows.length === 0) {
    after([]);
    return;
  }
  run.held = { batch, after };
  remember(run, batch.rows);
}

/** Writes the held batch now, if any (before a read of the Queue, a write of its own, a side effect, the run's end). */
export function releaseHeld(run: Run): void {
  if (run.held !== null) writeWithHeld(run, newBatch());
}

/** Appends Log lines, kept in the run's copy of the send ledger too (one append for all of them). */
export function appendLog(run: Run, entries: readonly LogEntry[]): void {
  run.deps.audit.append(entries);
  noteInLedger(run, entries);
}

/**
 * Writes a reason into the `error` cell of rows that wait in place (status unchanged), so staff see it on
 * the row itself. The compare-and-set write skips a row that changed state meanwhile (a staff move always wins)
 * and writes only the note, so no read of its own is needed.
 */
export function noteWaitingRows(run: Run, notes: ReadonlyMap<number, string>): void {
  releaseHeld(run); // its rows' copies show moves the sheet does not have yet
  const wanted = run.rows.filter((row) => notes.has(row.rowNumber) && row.error !== notes.get(row.rowNumber));
  if (wanted.length === 0) return;
  const noted = wanted.map((row) => ({ ...row, error: notes.get(row.rowNumber) as string }));
  // A note is worth no re-read: a row that moved meanwhile gets it on a later run.
  const placed = run.deps.queue.writeRows(noted, wanted);
  remember(run, noted.filter((row, i) => placed[i]?.rowNumber === row.rowNumber));
}

function noteInLedger(run: Run, entries: readonly LogEntry[]): void {
  for (const entry of entries) {
    run.ledger.get(entry.eventId)?.push(entry);
    if (entry.submission !== undefined) run.ledger.get(entry.submission)?.push(entry);
  }
}

/** Replaces this run's copies of the given rows (matched by row number). */
export function remember(run: Run, rows: readonly QueueRow[]): void {
  const byNumber = new Map(rows.map((row) => [row.rowNumber, row]));
  run.rows = run.rows.map((row) => byNumber.get(row.rowNumber) ?? row);
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
