// Moves finished rows from Queue to Archive: copied once by identity, and deleted only where each block is re-checked to hold them.
import type { QueueRow } from './queue-row';
import type { RowIdentity } from '../sheet-ports';

/**
 * The Queue and Archive as moving rows between them needs: every call one service call (a block read, a TextFinder,
 * a column read, an append run, a deleteRows). Row numbers are the Queue's, header row 1.
 */
export interface ArchiveGrid {
  /** The event_id and status of each row of the block `first`..`first + count - 1` as they are now (one read). */
  identitiesAt(first: number, count: number): RowIdentity[];
  /** The Queue data rows (header excluded) whose event_id cell is `eventId` (a sort, an insert or a delete above may have moved a row). */
  rowsHolding(eventId: string): number[];
  /** The event_id and status (identityKey) of every Archive row, read once per move. */
  archivedIdentities(): Set<string>;
  appendToArchive(rows: readonly QueueRow[]): void;
  deleteRows(first: number, count: number): void;
}

/** How many times the blocks are looked for again when staff moved rows between the check and the delete. */
const ARCHIVE_DELETE_ATTEMPTS = 3;

/**
 * Archive dedupe key. A DUPLICATE row keeps the event_id of the row it repeats, so the status is part of who the row
 * is: the SENT original and its DUPLICATE are both archived, but neither twice.
 */
export function identityKey(row: RowIdentity): string {
  return `${row.eventId}\u0000${row.status}`;
}

const holds = (at: RowIdentity | undefined, want: RowIdentity) => at !== undefined && at.eventId === want.eventId && String(at.status) === String(want.status);

/**
 * Where each row's submission stands now, still showing its status: one read per run of consecutive row numbers,
 * then a lookup by event_id for each row no longer where it was. Rows gone, changed or not unique are left out.
 */
function placeNow(grid: ArchiveGrid, rows: readonly QueueRow[]): QueueRow[] {
  const placed: QueueRow[] = [];
  for (const block of blocksBottomUp(rows.filter((row) => row.rowNumber >= 2)).reverse()) {
    const now = grid.identitiesAt(block[0].rowNumber, block.length);
    block.forEach((row, i) => {
      if (holds(now[i], row)) placed.push(row);
      else {
        const elsewhere = grid.rowsHolding(row.eventId).filter((n) => n !== row.rowNumber);
        if (elsewhere.length === 1 && holds(grid.identitiesAt(elsewhere[0], 1)[0], row)) placed.push({ ...row, rowNumber: elsewhere[0] });
      }
    });
  }
  return dedupeByRow(placed);
}

/** Two rows found at one row number (a row looked for by event_id landed where another was expected) are one row. */
function dedupeByRow(rows: QueueRow[]): QueueRow[] {
  const byRow = new Map<number, QueueRow>();
  for (const row of rows) if (!byRow.has(row.rowNumber)) byRow.set(row.rowNumber, row);
  return [...byRow.values()];
}

/** Runs of consecutive row numbers, bottom-up: deleting one run never moves the rows of the runs still to delete. */
function blocksBottomUp(rows: readonly QueueRow[]): QueueRow[][] {
  const sorted = [...rows].sort((a, b) => a.rowNumber - b.rowNumber);
  const blocks: QueueRow[][] = [];
  for (const row of sorted) {
    const last = blocks[blocks.length - 1];
    if (last && last[last.length - 1].rowNumber === row.rowNumber - 1) last.push(row);
    else blocks.push([row]);
  }
  return blocks.reverse();
}

/**
 * Copies `rows` to Archive, then deletes them from Queue; returns the rows deleted. Staff take no lock and may sort
 * or insert rows at any moment, so nothing is deleted by the row number it was found at: right before each
 * deleteRows its block is read again (one read per block), and deleted only when every row of it still holds the
 * submission and status expected there. A block that moved is looked for again by event_id, up to
 * ARCHIVE_DELETE_ATTEMPTS times; a row still not placed stays in Queue (already copied: the next tick's move finds
 * it in Archive, does not copy it again, and deletes it). The race left is the moment between that read and the
 * delete, as for every compare-and-set over a sheet people edit.
 */
export function moveToArchive(grid: ArchiveGrid, rows: readonly QueueRow[]): QueueRow[] {
  const wanted = rows.filter((row) => row.eventId !== '');
  let remaining = placeNow(grid, wanted);
  if (remaining.length === 0) return [];
  const archived = grid.archivedIdentities();
  const toCopy = remaining.filter((row) => !archived.has(identityKey(row)));
  if (toCopy.length > 0) grid.appendToArchive(toCopy);
  const deleted: QueueRow[] = [];
  for (let attempt = 1; remaining.length > 0; attempt++) {
    const moved = deleteBlocksStillHeld(grid, remaining, deleted);
    // After the last attempt the rows left are not looked for again: nothing would be done with where they are.
    remaining = attempt < ARCHIVE_DELETE_ATTEMPTS ? placeNow(grid, moved) : [];
  }
  return deleted;
}

/** Deletes each block whose rows all still hold what is expected there (read right before its delete); returns the other blocks' rows. */
function deleteBlocksStillHeld(grid: ArchiveGrid, rows: readonly QueueRow[], deleted: QueueRow[]): QueueRow[] {
  const moved: QueueRow[] = [];
  for (const block of blocksBottomUp(rows)) {
    const now = grid.identitiesAt(block[0].rowNumber, block.length);
    if (block.every((row, i) => holds(now[i], row))) {
      grid.deleteRows(block[0].rowNumber, block.length);
      deleted.push(...block);
    } else moved.push(...block);
  }
  return moved;
}
