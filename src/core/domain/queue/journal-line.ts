// A Journal line: how one accepted submission is written to the Journal sheet and read back, and the key it is known by.
import type { JournalEntry } from '../sheet-ports';
import type { QueueRow } from './queue-row';
import { submissionIdentity } from './submission-identity';

export type { JournalEntry, JournalRecord } from '../sheet-ports';

const EVENT_KEY_PREFIX = 'event:';
/** The event_id cell carries this before the id: an id of digits and one E would otherwise be read as a number. */
const EVENT_CELL_PREFIX = 'ev:';

/** The key a submission is journaled under: its identity, or its event_id when it has no response token; '' for neither. */
export function journalKeyOf(row: Pick<QueueRow, 'eventId' | 'formId' | 'responseToken'>): string {
  const identity = submissionIdentity(row);
  if (identity !== '') return identity;
  return row.eventId.trim() === '' ? '' : `${EVENT_KEY_PREFIX}${row.eventId.trim()}`;
}

/** The Journal line of a row intake has just queued. */
export function journalEntryOf(row: QueueRow, receivedAt: number): JournalEntry {
  return { receivedAt, key: journalKeyOf(row), eventId: row.eventId, payload: row.payload };
}

/** The cells of a line after its time: text that Sheets keeps as typed whatever the cells' format. */
export function journalCells(entry: JournalEntry): [string, string, string] {
  return [entry.key, `${EVENT_CELL_PREFIX}${entry.eventId}`, entry.payload];
}

/** The event_id written in an event_id cell ('' for a cell that is not one). */
export function eventIdOfCell(cell: string): string {
  return cell.startsWith(EVENT_CELL_PREFIX) ? cell.slice(EVENT_CELL_PREFIX.length) : '';
}
