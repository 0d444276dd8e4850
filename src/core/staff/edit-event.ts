// How the on-edit guard reads one edit: whether Sheets told the old value, what the cell held, a row a sort only moved, and the toast.
import type { LogEntry } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { isCopyLine, lastLoggedStatus, latestStatusOf } from './edit-guard';

/**
 * One status or result cell changed. `value` and `oldValue` are the trigger's e.value and e.oldValue as text
 * (undefined when Sheets gave none); `now` is the cell as read after the edit.
 * - `superseded`: the trigger runs after the edit; the cell no longer holds what the event says staff left in it, so
 *   processing (or another person) moved the row since, and judging that newer value as a staff edit would put back
 *   a stale one.
 * - `old-known`: Sheets told the old value (e.oldValue): a value typed over another, or a clear.
 * - `old-unknown`: no e.oldValue. Google documents that a value typed into an empty cell comes without it
 *   (developers.google.com/apps-script/guides/triggers/events#edit), but says nothing of pastes, and a pasted cell is
 *   reported both with neither value and with a value and no oldValue, over a cell that held one
 *   (github.com/tanaikech/GetEditType: OTHER and PUT_VALUE). So the old value may have been anything: it must come
 *   from another record (the Log), never be taken as empty.
 */
export function readSingleCellEdit(edit: { value?: string; oldValue?: string; now: string }): 'old-known' | 'old-unknown' | 'superseded' {
  if (edit.value !== undefined && edit.now !== edit.value) return 'superseded';
  if (edit.oldValue === undefined) return 'old-unknown';
  return edit.now === (edit.value ?? '') ? 'old-known' : 'superseded';
}

/**
 * The old value of one system-column cell (event_id, sent_at, mail_ref, claimed_at) when Sheets told it (e.oldValue:
 * typed over, or cleared); null when it did not, which is no sign the cell was empty (readSingleCellEdit's
 * `old-unknown`). Then the row's payload and the Log's ledger decide what the cell held (decideSystemBlockRow): a
 * guess of '' would put back an empty cell and erase the record that a reply went out.
 */
export function toldOldValue(edit: { oldValue?: string }): string | null {
  return edit.oldValue === undefined ? null : edit.oldValue;
}

/**
 * What a status or result cell held before a single-cell edit: what Sheets told (`told`, e.oldValue), else, for a
 * status, the last status the Log recorded for the row's submission (`history`); null when no record knows, and the
 * edit must be judged as unchecked. A row of no submission (no event_id) has nothing to keep: '' (a status typed or
 * pasted there is refused, and put back empty, as one typed into an empty cell always was).
 */
export function cellBeforeEdit(column: 'status' | 'result', told: string | null, row: QueueRow, history: readonly LogEntry[]): string | null {
  if (told !== null) return told;
  if (row.eventId === '') return '';
  return column === 'status' ? lastLoggedStatus(history) : null;
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
