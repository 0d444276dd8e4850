// How a run writes its rows: moves recorded in a batch, written with one compare-and-set and one flush (a held batch
// taken along), the Log lines of what landed kept in the run's ledger, notes on waiting rows, the run's copies kept up to date.
import { codedError } from '../domain/failures/errors';
import type { LogEntry } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { logLineOf } from '../domain/queue/submission-identity';
import type { Status } from '../domain/queue/statuses';
import { isSystemMove } from '../domain/queue/transitions';
import { combine, newBatch, type Batch } from './batch';
import type { Run } from './run-context';

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
