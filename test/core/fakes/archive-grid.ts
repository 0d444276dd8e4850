// The Queue and Archive in memory as moveToArchive sees them, with hooks where staff act between service calls.
import { identityKey, type ArchiveGrid } from '../../../src/core/domain/queue/archive-move';
import type { RowIdentity } from '../../../src/core/domain/sheet-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { queueRow } from './rows';

/** Queue rows in sheet order (row 2 first, row 1 the header) and the Archive; every service call is counted. */
export class MemoryGrid implements ArchiveGrid {
  archive: QueueRow[] = [];
  deletes: [number, number][] = [];
  /** identitiesAt calls. */
  reads = 0;
  /** archivedIdentities calls. */
  archiveReads = 0;
  /** The row count of each appendToArchive call. */
  appends: number[] = [];
  afterAppend: (() => void) | null = null;
  beforeDelete: ((first: number) => void) | null = null;
  constructor(public queue: QueueRow[]) {}
  private renumber(): void {
    this.queue.forEach((row, i) => (row.rowNumber = i + 2));
  }
  sort(order: (rows: QueueRow[]) => QueueRow[]): void {
    this.queue = order([...this.queue]);
    this.renumber();
  }
  identitiesAt(first: number, count: number): RowIdentity[] {
    this.reads++;
    // As Sheet.getRange: row 1 is the header, and a range cannot start above it.
    if (!(first >= 1)) throw new Error('Exception: The starting row of the range is too small.');
    const header: RowIdentity[] = first === 1 ? [{ eventId: 'event_id', status: 'status' as RowIdentity['status'] }] : [];
    const rows = this.queue.slice(Math.max(first - 2, 0), first - 2 + count).map((row) => ({ eventId: row.eventId, status: row.status }));
    return [...header, ...rows].slice(0, count);
  }
  rowsHolding(eventId: string): number[] {
    return this.queue.filter((row) => row.eventId === eventId).map((row) => row.rowNumber);
  }
  archivedIdentities(): Set<string> {
    this.archiveReads++;
    return new Set(this.archive.map(identityKey));
  }
  appendToArchive(rows: readonly QueueRow[]): void {
    this.appends.push(rows.length);
    this.archive.push(...rows.map((row) => ({ ...row })));
    this.afterAppend?.();
  }
  deleteRows(first: number, count: number): void {
    this.beforeDelete?.(first);
    this.deletes.push([first, count]);
    this.queue.splice(first - 2, count);
    this.renumber();
  }
  ids(): string[] {
    return this.queue.map((row) => row.eventId);
  }
}

/** SENT rows `old-1`…`old-n` to archive, then live rows `live-1`…`live-m` waiting to be answered. */
export function queueOf(old: number, live: number): QueueRow[] {
  const rows = [
    ...Array.from({ length: old }, (_, i) => queueRow('SENT', { eventId: `old-${i + 1}` })),
    ...Array.from({ length: live }, (_, i) => queueRow('PENDING', { eventId: `live-${i + 1}` })),
  ];
  rows.forEach((row, i) => (row.rowNumber = i + 2));
  return rows;
}

/** Copies of the grid's SENT rows, as the caller read them. */
export const finished = (grid: MemoryGrid) => grid.queue.filter((row) => row.status === 'SENT').map((row) => ({ ...row }));
