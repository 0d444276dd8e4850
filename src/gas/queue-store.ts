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
import { cellReader, contiguousGroups, rowPlacer, rowsHolding, spanRanges, type SpanRanges } from './queue-ranges';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

function isBlank(row: QueueRow): boolean {
  return row.eventId === '' && row.status === '';
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
