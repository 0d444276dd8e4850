// What a compare-and-set write of a Queue row checks and keeps: the row its writer read must still be there, and only the cells the writer changed are written.
import type { RowIdentity } from '../sheet-ports';
import type { QueueRow } from './queue-row';

/** Every field of a row but its position: what a merge compares and carries. */
type Field = Exclude<keyof QueueRow, 'rowNumber'>;

/**
 * The row as it is now still shows what its writer read in the columns that carry the system's memory: the same
 * submission in the same state, with the same claim, sent_at and mail_ref (times to the second: a date cell is not
 * trusted to keep milliseconds). Anything else (a staff move, a sent_at filled by hand, another claim, another row
 * sorted into its place) means the write must not land.
 */
export function stillHolds(current: QueueRow, read: QueueRow): boolean {
  return (
    read.eventId !== '' &&
    current.eventId === read.eventId &&
    String(current.status) === String(read.status) &&
    sameSecond(current.claimedAt, read.claimedAt) &&
    sameSecond(current.sentAt, read.sentAt) &&
    current.mailRef === read.mailRef
  );
}

/**
 * The strictest check, of a write placed where its writer read the row (a staff edit's block, found by the edit's
 * row numbers, not by event_id: a paste may have left it none, or another row's): every field still what was read.
 */
export function unchangedSince(current: QueueRow, read: QueueRow): boolean {
  return (Object.keys(read) as (keyof QueueRow)[]).every((field) => field === 'rowNumber' || current[field] === read[field]);
}

/** The looser check of a write that carries no row of its own (a cell note): the same submission in the same state. */
export function holdsIdentity(current: QueueRow, identity: RowIdentity): boolean {
  return identity.eventId !== '' && current.eventId === identity.eventId && String(current.status) === String(identity.status);
}

function sameSecond(a: number | null, b: number | null): boolean {
  return a === null || b === null ? a === b : Math.floor(a / 1000) === Math.floor(b / 1000);
}

/**
 * What lands on the row: the writer's value where it changed the field from what it read, what the row holds now
 * everywhere else. A person's edit since the read (a corrected recipient, an edited result, a note) is kept, and
 * the writer needs no fresh read of its own before writing: the compare-and-set read right before the write is it.
 */
export function mergeWrite(read: QueueRow, written: QueueRow, current: QueueRow): QueueRow {
  const merged = { ...current, rowNumber: current.rowNumber } as Record<Field | 'rowNumber', unknown>;
  for (const field of Object.keys(written) as (keyof QueueRow)[]) {
    if (field === 'rowNumber') continue;
    if (written[field] !== read[field]) merged[field] = written[field];
  }
  return merged as unknown as QueueRow;
}
