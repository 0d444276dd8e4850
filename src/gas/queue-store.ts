// QueueStore port over the Queue and Archive sheets: whole-sheet reads once, writes compare-and-set by event_id, grouped.
import { codedError } from '../core/domain/failures/errors';
import { moveToArchive, identityKey, type ArchiveGrid } from '../core/domain/queue/archive-move';
import type { QueueStore, RowIdentity } from '../core/domain/sheet-ports';
import { holdsIdentity, mergeWrite, stillHolds, unchangedSince } from '../core/domain/queue/row-write';
import { fieldOf, indexColumns, missingColumns, QUEUE_HEADERS, rowFromValues, rowNumberFormats, rowToValues, type ColumnIndex, type QueueHeader, type QueueRow } from '../core/domain/queue/queue-row';
import { ARCHIVE_HEADERS, SHEETS } from '../core/domain/queue/sheet-names';
import { SUBMISSION_KEY_COLUMNS } from '../core/domain/queue/submission-keys';
import { readColumns } from './header-row';
import { requireSheet } from './spreadsheet';
import { appendRows } from './sheet-append';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** Consecutive runs of row numbers, so each run is one getRange call. */
function contiguousGroups(rowNumbers: readonly number[]): number[][] {
  const sorted = Array.from(new Set(rowNumbers)).sort((a, b) => a - b);
  const groups: number[][] = [];
  for (const n of sorted) {
    const last = groups[groups.length - 1];
    if (last && last[last.length - 1] === n - 1) last.push(n);
    else groups.push([n]);
  }
  return groups;
}

function isBlank(row: QueueRow): boolean {
  return row.eventId === '' && row.status === '';
}

/** Rows whose event_id cell equals `eventId`, found inside Sheets (a TextFinder: no column read). */
function rowsHolding(queue: Sheet, index: ColumnIndex, eventId: string): number[] {
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
function spanRanges(queue: Sheet, width: number) {
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
type SpanRanges = ReturnType<typeof spanRanges>;

/**
 * Reads rows by number. Rows up to the last row this execution has seen are read without asking getLastRow again
 * (a metadata call, ~50 ms, before every read and write otherwise): they existed then, and a row a person has
 * emptied or deleted since reads as blank, which no compare-and-set takes for its row. Only when a person deleted
 * so many rows that the grid itself shrank below one does the read fail; it is then made again within the last row.
 */
function cellReader(queue: Sheet, ranges: SpanRanges) {
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
function rowPlacer(queue: Sheet, index: ColumnIndex, ranges: SpanRanges, reader: CellReader) {
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

export function createQueueStore(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): QueueStore {
  const queue = requireSheet(spreadsheet, SHEETS.queue);
  const { index, width } = readColumns(queue);
  const missing = missingColumns(index);
  if (missing.length > 0) throw codedError('CONFIG_MISSING', `The Queue sheet has no column ${missing.join(', ')}. Run formqueue → Set up / repair.`);
  const ranges = spanRanges(queue, width);
  const read = (first: number, count: number): QueueRow[] =>
    ranges.exact(first, count).getValues().map((cells, i) => rowFromValues(index, cells, first + i));

  const reader = cellReader(queue, ranges);
  const placeRows = rowPlacer(queue, index, ranges, reader);

  return {
    readAll() {
      const lastRow = reader.lastRow();
      return lastRow < 2 ? [] : read(2, lastRow - 1).filter((row) => !isBlank(row));
    },
    readRows(rowNumbers) {
      const cells = reader.cellsOf(rowNumbers);
      return Array.from(new Set(rowNumbers))
        .sort((a, b) => a - b)
        .flatMap((n) => (cells.has(n) ? [rowFromValues(index, cells.get(n)!, n)] : []))
        .filter((row) => !isBlank(row));
    },
    writeRows(rows, read) {
      const places = placeRows(rows, read.map((seen) => ({ eventId: seen.eventId, holds: (now: QueueRow) => stillHolds(now, seen) })));
      // Only the cells each writer changed land; the rest are what the compare-and-set read just found there.
      const values = new Map<number, unknown[]>();
      const placed = rows.map((row, i): QueueRow | null => {
        const place = places[i];
        if (place === null || values.has(place.rowNumber)) return null;
        const merged = mergeWrite(read[i], row, rowFromValues(index, place.cells, place.rowNumber));
        values.set(place.rowNumber, rowToValues(index, merged, width, place.cells));
        return { ...row, rowNumber: place.rowNumber };
      });
      for (const group of contiguousGroups(Array.from(values.keys()))) {
        ranges.exact(group[0], group.length).setValues(group.map((n) => values.get(n)!));
      }
      return placed;
    },
    writeEditedRows: (rows, read) => writeEditedBlock({ queue, ranges, index, width }, rows, read),
    appendRows(rows) {
      appendRows(queue, rows.map((row) => rowToValues(index, row, width)), rowNumberFormats(index, width));
    },
    archiveRows(rows) {
      if (rows.length === 0) return [];
      const moved = moveToArchive(archiveGrid(spreadsheet, queue, index), rows);
      return moved;
    },
    noteCells(notes) {
      const wanted = notes.filter((n) => n.rowNumber >= 2 && index[n.header] >= 0);
      if (wanted.length === 0) return;
      // Compare-and-set as for writes: each note goes where its row's submission stands now, or nowhere.
      const places = placeRows(wanted, wanted.map((n) => ({ eventId: n.expected.eventId, holds: (row: QueueRow) => holdsIdentity(row, n.expected) })));
      const placed = wanted.flatMap((n, i) => (places[i] === null ? [] : [{ ...n, rowNumber: places[i]!.rowNumber }]));
      if (placed.length === 0) return;
      const top = Math.min(...placed.map((n) => n.rowNumber));
      const left = Math.min(...placed.map((n) => index[n.header]));
      const box = queue.getRange(top, left + 1, Math.max(...placed.map((n) => n.rowNumber)) - top + 1, Math.max(...placed.map((n) => index[n.header])) - left + 1);
      const current = box.getNotes();
      for (const n of placed) current[n.rowNumber - top][index[n.header] - left] = n.note;
      box.setNotes(current);
    },
    archivedKeys() {
      const archive = spreadsheet.getSheetByName(SHEETS.archive);
      const keys = new Set<string>();
      if (!archive || archive.getLastRow() < 2) return keys;
      const archiveWidth = Math.max(archive.getLastColumn(), 1);
      const values = archive.getRange(1, 1, archive.getLastRow(), archiveWidth).getValues();
      const archiveIndex = indexColumns(values[0]);
      for (const cells of values.slice(1)) {
        for (const column of SUBMISSION_KEY_COLUMNS) {
          const at = archiveIndex[column];
          if (at >= 0 && cells[at] !== '') keys.add(String(cells[at]));
        }
      }
      return keys;
    },
    flush() {
      SpreadsheetApp.flush();
    },
  };
}

function sameCell(a: unknown, b: unknown): boolean {
  const time = (x: unknown) => (Object.prototype.toString.call(x) === '[object Date]' ? (x as Date).getTime() : x);
  return time(a) === time(b);
}

/**
 * QueueStore.writeEditedRows: one read of the edited block (the compare-and-set), then one write of the box around
 * every changed cell (the batch rule: no per-cell writes). Only the fields each writer changed become cells; every
 * other cell, a staff column's too, is written back as it was just read.
 */
function writeEditedBlock(grid: { queue: Sheet; ranges: SpanRanges; index: ColumnIndex; width: number }, rows: readonly QueueRow[], read: readonly QueueRow[]): boolean {
  const { queue, ranges, index, width } = grid;
  const numbers = read.map((row) => row.rowNumber);
  if (numbers.length === 0) return true;
  const top = Math.min(...numbers);
  const range = ranges.exact(top, Math.max(...numbers) - top + 1);
  const before = range.getValues();
  const after = before.map((cells) => cells.slice());
  for (let i = 0; i < read.length; i++) {
    const at = read[i].rowNumber - top;
    if (!unchangedSince(rowFromValues(index, before[at], read[i].rowNumber), read[i])) return false;
    const cells = rowToValues(index, rows[i], width, before[at]);
    for (const header of QUEUE_HEADERS) {
      const column = index[header];
      if (column >= 0 && column < width && changedField(rows[i], read[i], header)) after[at][column] = cells[column];
    }
  }
  let r0 = Infinity, r1 = -1, c0 = Infinity, c1 = -1;
  after.forEach((cells, i) =>
    cells.forEach((cell, j) => {
      if (sameCell(cell, before[i][j])) return;
      r0 = Math.min(r0, i); r1 = Math.max(r1, i); c0 = Math.min(c0, j); c1 = Math.max(c1, j);
    }),
  );
  if (r1 < 0) return true;
  const box = after.slice(r0, r1 + 1).map((cells) => cells.slice(c0, c1 + 1));
  queue.getRange(top + r0, c0 + 1, box.length, c1 - c0 + 1).setValues(box);
  return true;
}

function changedField(written: QueueRow, read: QueueRow, header: QueueHeader): boolean {
  const field = fieldOf(header);
  return written[field] !== read[field];
}

function archiveSheet(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): Sheet {
  const existing = spreadsheet.getSheetByName(SHEETS.archive);
  if (existing) return existing;
  const created = spreadsheet.insertSheet(SHEETS.archive);
  created.getRange(1, 1, 1, ARCHIVE_HEADERS.length).setValues([ARCHIVE_HEADERS.slice()]);
  created.setFrozenRows(1);
  return created;
}

/** The Queue and Archive as core's moveToArchive sees them; only the event_id and status columns are read. */
function archiveGrid(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet, queue: Sheet, index: ColumnIndex): ArchiveGrid {
  const first = Math.min(index.event_id, index.status);
  const span = Math.max(index.event_id, index.status) - first + 1;
  const identityOf = (cells: readonly unknown[], at: ColumnIndex, offset: number): RowIdentity => ({
    eventId: String(cells[at.event_id - offset] ?? ''),
    status: String(cells[at.status - offset] ?? '') as RowIdentity['status'],
  });
  let archive: Sheet | null = null;
  const archiveOf = () => (archive ??= archiveSheet(spreadsheet));
  return {
    identitiesAt(row, count) {
      const inside = Math.min(count, queue.getLastRow() - row + 1); // a block past the data is blank: not read
      if (inside <= 0) return [];
      return queue.getRange(row, first + 1, inside, span).getValues().map((cells) => identityOf(cells, index, first));
    },
    rowsHolding: (eventId) => rowsHolding(queue, index, eventId),
    archivedIdentities() {
      const sheet = archiveOf();
      const keys = new Set<string>();
      const last = sheet.getLastRow();
      if (last < 2) return keys;
      const at = readColumns(sheet).index;
      if (at.event_id < 0 || at.status < 0) return keys;
      const left = Math.min(at.event_id, at.status);
      const cells = sheet.getRange(2, left + 1, last - 1, Math.max(at.event_id, at.status) - left + 1).getValues();
      for (const row of cells) keys.add(identityKey(identityOf(row, at, left)));
      return keys;
    },
    appendToArchive(rows) {
      const sheet = archiveOf();
      const archiveIndex = readColumns(sheet).index;
      appendRows(sheet, rows.map((row) => rowToValues(archiveIndex, row, ARCHIVE_HEADERS.length)), rowNumberFormats(archiveIndex, ARCHIVE_HEADERS.length));
    },
    deleteRows: (row, count) => queue.deleteRows(row, count),
  };
}
