// How the on-edit guard reads one edit: a typed, pasted or superseded cell, a row a sort only moved, and the toast for its notes.
import type { LogEntry } from '../ports';
import type { QueueRow } from '../queue-row';
import { isCopyLine, latestStatusOf } from './edit-guard';

/**
 * One status or result cell changed. `value` and `oldValue` are the trigger's e.value and e.oldValue as text
 * (undefined when Sheets gave none); `now` is the cell as read after the edit.
 * - `pasted`: neither value given and the cell is not empty: Sheets gives no old value for a paste.
 * - `superseded`: the trigger runs after the edit; the cell no longer holds what staff typed, so processing (or
 *   another person) moved the row since, and judging that newer value as a staff edit would put back a stale one.
 * - `typed`: the cell holds what staff typed (a clear included).
 */
export function readSingleCellEdit(edit: { value?: string; oldValue?: string; now: string }): 'typed' | 'pasted' | 'superseded' {
  if (edit.value === undefined && edit.oldValue === undefined && edit.now !== '') return 'pasted';
  return edit.now === (edit.value ?? '') ? 'typed' : 'superseded';
}

/**
 * A row of a whole-row block that is the same submission as before: its status is the one the Log last recorded
 * for its event_id, or PENDING with no Log line at all (every submission starts there, and intake logs nothing).
 * A sort moves such rows with every cell; judging them as edits would park every row the guard cannot check.
 * A submission with copies has one row answering it and DUPLICATE rows (isCopyLine): a DUPLICATE row is intact when
 * the Log tells of a copy, and the answering row is judged by the other lines alone. Judged by the last line of all,
 * a sort would put the answering row's status on a copy, or DUPLICATE on the answering row.
 */
export function isIntactRow(row: QueueRow, history: readonly LogEntry[]): boolean {
  if (row.eventId === '') return true;
  if (row.status === 'DUPLICATE' && history.some(isCopyLine)) return true;
  const logged = latestStatusOf(history.filter((entry) => !isCopyLine(entry)));
  return logged === null ? row.status === 'PENDING' : row.status === logged;
}

/** The one toast an edit gets: its first note, and how many more the cell notes hold. */
export function editToast(notes: readonly string[]): string {
  const first = notes[0];
  return notes.length === 1 ? first : `${first} (and ${notes.length - 1} more: see the cell notes)`;
}
