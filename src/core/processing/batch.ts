// A batch of row moves and their Log lines, and how a held batch and the next one become one list of row writes.
import type { LogEntry } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';

/** Row moves and their Log lines, written together so the Log never claims a move the sheet lacks. */
export interface Batch {
  rows: QueueRow[];
  entries: LogEntry[];
  /** Each row as the move was computed from: the write lands only where the submission still holds it (src/core/row-write.ts). */
  read: QueueRow[];
  /** The run counter a row's move adds to, by its index in `rows`: counted once written (a refused move changed nothing). */
  counts: Map<number, CountedOutcome>;
}

/** The run counters a move adds to. */
export type CountedOutcome = 'generated' | 'failed' | 'deferred' | 'needsReview';

/** The move just recorded in `batch` adds to `counter` once the compare-and-set has written it. */
export function countWhenWritten(batch: Batch, counter: CountedOutcome): void {
  batch.counts.set(batch.rows.length - 1, counter);
}

export function newBatch(): Batch {
  return { rows: [], entries: [], read: [], counts: new Map() };
}

/** One row's write in a commit: the row as read, as it will be, its Log lines and counters, and the batches' copies it stands for. */
export interface RowWrite {
  read: QueueRow;
  row: QueueRow;
  lines: LogEntry[];
  counters: CountedOutcome[];
  /** The moved copies (of the held batch and of this one) that take the row number it is written at. */
  copies: QueueRow[];
  /** The held batch's copy, when this write carries one of its moves. */
  held: QueueRow | null;
  /** This batch's copy, when this write carries one of its moves. */
  own: QueueRow | null;
}

function rowWrites(batch: Batch, held: boolean): RowWrite[] {
  return batch.rows.map((row, i) => {
    const counter = batch.counts.get(i);
    return { read: batch.read[i], row, lines: [batch.entries[i]], counters: counter === undefined ? [] : [counter], copies: [row], held: held ? row : null, own: held ? null : row };
  });
}

/**
 * The held batch's writes and this batch's in one list. A move made from a held move's result (a row generated, then
 * claimed for sending) becomes one write: from what the held move read to what this one makes, with both Log lines,
 * so its compare-and-set still checks the row against what the run last read from the sheet.
 */
export function combine(held: Batch | null, batch: Batch): RowWrite[] {
  const writes = held === null ? [] : rowWrites(held, true);
  for (const write of rowWrites(batch, false)) {
    const base = writes.find((w) => w.row === write.read);
    if (base === undefined) {
      writes.push(write);
      continue;
    }
    base.row = write.row;
    base.lines.push(...write.lines);
    base.counters.push(...write.counters);
    base.copies.push(write.row);
    base.own = write.row;
  }
  return writes;
}

