// How the Queue adapter reaches rows: range handles kept per span, reads that skip getLastRow, and where a row's
// submission stands now (found by its row number, else by event_id: the compare-and-set's placement).
import { rowFromValues, type ColumnIndex, type QueueRow } from '../core/domain/queue/queue-row';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** Consecutive runs of row numbers, so each run is one getRange call. */
export function contiguousGroups(rowNumbers: readonly number[]): number[][] {
  const sorted = Array.from(new Set(rowNumbers)).sort((a, b) => a - b);
  const groups: number[][] = [];
  for (const n of sorted) {
    const last = groups[groups.length - 1];
    if (last && last[last.length - 1] === n - 1) last.push(n);
    else groups.push([n]);
  }
  return groups;
}

/** Rows whose event_id cell equals `eventId`, found inside Sheets (a TextFinder: no column read). */
export function rowsHolding(queue: Sheet, index: ColumnIndex, eventId: string): number[] {
  if (eventId === '' || index.event_id < 0) return [];
  const column = queue.getRange(1, index.event_id + 1, queue.getMaxRows(), 1);
  return column
    .createTextFinder(eventId)
    .matchEntireCell(true)
    .matchCase(true)
    .findAll()
    .map((cell) => cell.getRow())
    .filter((n) => n > 1);
}

/** What a placed row must show: its submission, and the rule its writer asks of the row as it is now. */
interface Wanted {
  eventId: string;
  holds(current: QueueRow): boolean;
}

/** Row numbers gathered into spans read with one call each: rows a few apart are read together (a few cells more, a call less). */
function readSpans(rowNumbers: readonly number[]): number[][] {
  const spans: number[][] = [];
  for (const group of contiguousGroups(rowNumbers)) {
    const last = spans[spans.length - 1];
    if (last && group[0] - last[last.length - 1] <= SPAN_GAP_ROWS) last.push(...group);
    else spans.push(group.slice());
  }
  return spans;
}
/** Rows between two wanted rows that are still read in one span rather than split into two reads. */
const SPAN_GAP_ROWS = 10;

/** A kept handle is used for rows inside it only while it spans at most this many rows (25 × 16 cells, ~4 ms of cells). */
const COVERING_SPAN_MAX_ROWS = 25;

/**
 * Range handles of the Queue's row spans (every column up to `width`), kept for the execution. A Range is a fixed
 * rectangle of the sheet whose getValues and setValues read and write what those cells hold at that moment
 * (https://developers.google.com/apps-script/reference/spreadsheet/range), so asking for the same span again (a
 * getRange, one service call, ~50 ms) gives nothing a kept handle does not: a claim's compare-and-set read, its write,
 * the read before each mail of its batch and the write of the outcomes all go through one handle. Rows wanted inside a
 * small span already addressed are read through it: one call instead of two, a few more cells read.
 */
export function spanRanges(queue: Sheet, width: number) {
  const kept = new Map<string, { first: number; count: number; range: GoogleAppsScript.Spreadsheet.Range }>();
  const exact = (first: number, count: number): GoogleAppsScript.Spreadsheet.Range => {
    const key = `${first}+${count}`;
    let span = kept.get(key);
    if (span === undefined) {
      span = { first, count, range: queue.getRange(first, 1, count, width) };
      kept.set(key, span);
    }
    return span.range;
  };
  return {
    exact,
    /** A kept handle holding rows first..first+count-1 (small enough to read whole), else the exact span's; and its first row. */
    covering(first: number, count: number): { range: GoogleAppsScript.Spreadsheet.Range; first: number } {
      for (const span of kept.values()) {
        if (span.first <= first && span.first + span.count >= first + count && span.count <= COVERING_SPAN_MAX_ROWS) return span;
      }
      return { range: exact(first, count), first };
    },
  };
}
export type SpanRanges = ReturnType<typeof spanRanges>;

/**
 * Reads rows by number. Rows up to the last row this execution has seen are read without asking getLastRow again
 * (a metadata call, ~50 ms, before every read and write otherwise): they existed then, and a row a person has
 * emptied or deleted since reads as blank, which no compare-and-set takes for its row. Only when a person deleted
 * so many rows that the grid itself shrank below one does the read fail; it is then made again within the last row.
 */
export function cellReader(queue: Sheet, ranges: SpanRanges) {
  let knownLastRow = 0;
  const lastRow = (): number => (knownLastRow = queue.getLastRow());
  const readWithin = (rowNumbers: readonly number[], last: number): Map<number, unknown[]> => {
    const cells = new Map<number, unknown[]>();
    for (const span of readSpans(rowNumbers.filter((n) => n >= 2 && n <= last))) {
      const end = span[span.length - 1];
      const { range, first } = ranges.covering(span[0], end - span[0] + 1);
      range.getValues().forEach((values, i) => {
        if (first + i >= span[0] && first + i <= end) cells.set(first + i, values);
      });
    }
    return cells;
  };
  return {
    lastRow,
    cellsOf(rowNumbers: readonly number[]): Map<number, unknown[]> {
      if (rowNumbers.every((n) => n <= knownLastRow)) {
        try {
          return readWithin(rowNumbers, knownLastRow);
        } catch {
          // The grid shrank under a row (a large delete), or Sheets is failing: the bounded read below tells which.
        }
      }
      return readWithin(rowNumbers, lastRow());
    },
  };
}
type CellReader = ReturnType<typeof cellReader>;

/**
 * Compare-and-set: where each row's submission stands right now. Its row number is checked first (one read for
 * rows close together); a row that no longer holds what its writer read there (src/core/domain/queue/row-write.ts) is looked
 * for by event_id (a sort, an insert or a delete above moved it), and left out (null) when it is gone, changed
 * meanwhile, or not unique. Staff take no lock, so this narrows the race to the moment between read and write.
 * Each placed row comes with the cells it holds now, which the write merges into.
 */
export function rowPlacer(queue: Sheet, index: ColumnIndex, ranges: SpanRanges, reader: CellReader) {
  return (rows: readonly { rowNumber: number }[], wanted: readonly Wanted[]): ({ rowNumber: number; cells: unknown[] } | null)[] => {
    const current = reader.cellsOf(rows.map((row) => row.rowNumber));
    const holds = (cells: readonly unknown[], want: Wanted) => want.holds(rowFromValues(index, cells, 0));
    return rows.map((row, i) => {
      const want = wanted[i];
      const cells = current.get(row.rowNumber);
      if (cells !== undefined && holds(cells, want)) return { rowNumber: row.rowNumber, cells };
      const moved = rowsHolding(queue, index, want.eventId).filter((n) => n !== row.rowNumber);
      if (moved.length !== 1) return null;
      const cellsThere = ranges.exact(moved[0], 1).getValues()[0];
      return holds(cellsThere, want) ? { rowNumber: moved[0], cells: cellsThere } : null;
    });
  };
}
