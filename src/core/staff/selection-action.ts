// A menu "… selected" item as one use case: read the selected rows fresh, decide each move, apply the moves, and say what happened.
import type { LogEntry } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { applyMoves, type MovePorts } from './apply-moves';
import { applyMenuAction, type MenuAction } from './menu-actions';
import type { StaffContext } from './staff-moves';

export interface SelectionAction {
  action: MenuAction;
  /** The selected Queue rows (header excluded). */
  rowNumbers: readonly number[];
  context: StaffContext;
  /**
   * Per form, whether a new reply will wait for approval (null: unknown, Config unreadable); asked only when rows go
   * back to PENDING, so Config is read only then.
   */
  approvals(): (formId: string) => boolean | null;
  /** The review trail of approval lines (src/gas/review-trail.ts). */
  annotate?(lines: readonly LogEntry[], written: readonly QueueRow[]): LogEntry[];
}

/** Approve / Retry / Skip / Mark sent on the selected rows: read them fresh, write only the moved ones, log each; the alert's text. */
export function runSelectionAction(ports: MovePorts, input: SelectionAction): string {
  const rows = ports.queue.readRows(input.rowNumbers);
  // Config is read only when rows go back to PENDING: the message says whether their new replies wait for approval
  // (the other items' messages never ask, so they get applyMenuAction's default).
  const awaitsApproval = input.action === 'retry' ? input.approvals() : undefined;
  const outcome = applyMenuAction(input.action, rows, input.context, awaitsApproval);
  // Compare-and-set: a row moved or changed since it was read is written where it is, or left as it is now. Every
  // menu move changes the row's status (an item refuses rows already in its target), which wakes the queue by itself.
  // With nothing moved, applyMoves writes, logs and marks nothing.
  const read = new Map(rows.map((row) => [row.rowNumber, row]));
  const applied = applyMoves(
    ports,
    { read: outcome.changed.map((row) => read.get(row.rowNumber) as QueueRow), written: outcome.changed, lines: outcome.log.map((line) => [line]) },
    { now: input.context.now, write: 'by-identity', annotate: input.annotate },
  );
  const missed = outcome.changed.filter((_row, i) => applied.placed[i] === null).map((row) => row.rowNumber);
  return missed.length === 0 ? outcome.message : `${outcome.message}\nChanged meanwhile and left as they are now: row ${missed.join(', ')}.`;
}
