// Applies what staff decided (a menu item, an edit's plan): compare-and-set through the QueueStore, the Log lines of what landed, the queue marked dirty once.
import type { PropertyStore } from '../domain/ports';
import type { AuditLog, LogEntry, QueueStore } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { markQueueDirty } from '../domain/queue/tick-gate';

export interface MovePorts {
  queue: QueueStore;
  audit: AuditLog;
  props: PropertyStore;
}

/** Rows as read, what each must hold now (null: left as read), and the Log lines of each. */
export interface Moves {
  read: readonly QueueRow[];
  written: readonly (QueueRow | null)[];
  lines: readonly (readonly LogEntry[])[];
}

export interface ApplyOptions {
  now: number;
  /**
   * `by-identity`: each row where its submission stands now (a menu item: the selection may have been sorted since);
   * `as-edited`: the rows of one edit where the edit put them, all or nothing (QueueStore.writeEditedRows).
   */
  write: 'by-identity' | 'as-edited';
  /** The queue is marked dirty even when no status changed (an allowed edit of the reply itself). */
  wake?: boolean;
  /** Adds the review trail to the lines of the rows written, before they are logged (src/gas/review-trail.ts). */
  annotate?(lines: readonly LogEntry[], written: readonly QueueRow[]): LogEntry[];
}

export interface Applied {
  /** Per move, the row as written, or null when it was not (changed meanwhile, gone, or left as read). */
  placed: (QueueRow | null)[];
  /** An `as-edited` block that changed since it was read: nothing was written, logged or marked. */
  superseded: boolean;
}

/**
 * A row that changed status may have work for processing: the next tick must not be skipped as idle. Marked once,
 * whatever landed: a move that did not land was overtaken by another change, which is worth a look too.
 */
function wakes(moves: Moves, options: ApplyOptions): boolean {
  return options.wake === true || moves.written.some((row, i) => row !== null && String(row.status) !== String(moves.read[i].status));
}

export function applyMoves(ports: MovePorts, moves: Moves, options: ApplyOptions): Applied {
  const pending = moves.written.flatMap((row, i) => (row === null ? [] : [i]));
  let placed: (QueueRow | null)[] = moves.written.map(() => null);
  if (options.write === 'as-edited') {
    if (pending.length > 0) {
      const rows = moves.written.map((row, i) => row ?? moves.read[i]);
      if (!ports.queue.writeEditedRows(rows, moves.read)) return { placed, superseded: true };
    }
    placed = moves.written.slice();
  } else if (pending.length > 0) {
    const landed = ports.queue.writeRows(pending.map((i) => moves.written[i] as QueueRow), pending.map((i) => moves.read[i]));
    ports.queue.flush();
    pending.forEach((i, k) => (placed[i] = landed[k]));
  }
  // An edited row's lines are logged with the block even when the row itself needed no write (a refused edit of an empty row).
  const logged = options.write === 'as-edited' ? moves.lines.flat() : moves.lines.flatMap((lines, i) => (placed[i] === null ? [] : lines));
  const written = placed.filter((row): row is QueueRow => row !== null);
  const lines = options.annotate && logged.length > 0 ? options.annotate(logged, written) : logged;
  if (lines.length > 0) ports.audit.append(lines);
  if (wakes(moves, options)) markQueueDirty(ports.props, options.now);
  return { placed, superseded: false };
}
