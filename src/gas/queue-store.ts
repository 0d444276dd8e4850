// QueueStore port over the Queue and Archive sheets: whole-sheet reads once, writes compare-and-set by event_id, grouped.
import { codedError } from '../core/errors';
import { moveToArchive, identityKey, type ArchiveGrid } from '../core/archive-move';
import type { CellNote, QueueStore, RowIdentity } from '../core/ports';
import { indexColumns, missingColumns, rowFromValues, rowNumberFormats, rowToValues, type ColumnIndex, type QueueRow } from '../core/queue-row';
import { ARCHIVE_HEADERS, SHEETS } from '../core/sheet-names';
import { SUBMISSION_KEY_COLUMNS } from '../core/submission-keys';
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

/**
 * Compare-and-set: where each row's submission stands right now. Its row number is checked first (one read per
 * contiguous group); a row that no longer shows the expected event_id and status there is looked for by
 * event_id (a sort, an insert or a delete above moved it), and left out (null) when it is gone, changed
 * meanwhile, or not unique. Staff take no lock, so this narrows the race to the moment between read and write.
 */
function rowPlacer(queue: Sheet, index: ColumnIndex, width: number, lastSeen: Map<number, unknown[]>) {
  const holds = (cells: readonly unknown[], expected: RowIdentity) => {
    const row = rowFromValues(index, cells, 0);
    return row.eventId === expected.eventId && row.status === expected.status;
  };

  const findByEventId = (eventId: string) => rowsHolding(queue, index, eventId);

  return <T extends { rowNumber: number }>(rows: readonly T[], expected: readonly RowIdentity[]): (T | null)[] => {
    const lastRow = queue.getLastRow();
    const inRange = rows.map((row) => row.rowNumber).filter((n) => n >= 2 && n <= lastRow);
    const current = new Map<number, unknown[]>();
    for (const group of contiguousGroups(inRange)) {
      queue.getRange(group[0], 1, group.length, width).getValues().forEach((cells, i) => current.set(group[0] + i, cells));
    }
    return rows.map((row, i) => {
      const want = expected[i];
      const cells = current.get(row.rowNumber);
      if (want.eventId !== '' && cells !== undefined && holds(cells, want)) {
        lastSeen.set(row.rowNumber, cells);
        return row;
      }
      const moved = findByEventId(want.eventId).filter((n) => n !== row.rowNumber);
      if (moved.length !== 1) return null;
      const cellsThere = queue.getRange(moved[0], 1, 1, width).getValues()[0];
      if (!holds(cellsThere, want)) return null;
      lastSeen.set(moved[0], cellsThere);
      return { ...row, rowNumber: moved[0] };
    });
  };
}

export function createQueueStore(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): QueueStore {
  const queue = requireSheet(spreadsheet, SHEETS.queue);
  const width = Math.max(queue.getLastColumn(), 1);
  const index: ColumnIndex = indexColumns(queue.getRange(1, 1, 1, width).getValues()[0]);
  const missing = missingColumns(index);
  if (missing.length > 0) throw codedError('CONFIG_MISSING', `The Queue sheet has no column ${missing.join(', ')}. Run formqueue → Set up / repair.`);
  // Cells of staff columns as last read, so writing a whole row puts them back unchanged.
  const lastSeen = new Map<number, unknown[]>();

  const read = (first: number, count: number): QueueRow[] => {
    const values = queue.getRange(first, 1, count, width).getValues();
    return values.map((cells, i) => {
      lastSeen.set(first + i, cells);
      return rowFromValues(index, cells, first + i);
    });
  };

  const placeRows = rowPlacer(queue, index, width, lastSeen);

  return {
    readAll() {
      const lastRow = queue.getLastRow();
      return lastRow < 2 ? [] : read(2, lastRow - 1).filter((row) => !isBlank(row));
    },
    readRows(rowNumbers) {
      const lastRow = queue.getLastRow();
      const wanted = rowNumbers.filter((n) => n >= 2 && n <= lastRow);
      return contiguousGroups(wanted).flatMap((group) => read(group[0], group.length)).filter((row) => !isBlank(row));
    },
    writeRows(rows, expected) {
      const placed = placeRows(rows, expected);
      const targets = placed.filter((row): row is QueueRow => row !== null);
      const byNumber = new Map(targets.map((row) => [row.rowNumber, row]));
      for (const group of contiguousGroups(targets.map((row) => row.rowNumber))) {
        const values = group.map((n) => rowToValues(index, byNumber.get(n)!, width, lastSeen.get(n)));
        queue.getRange(group[0], 1, group.length, width).setValues(values);
        group.forEach((n, i) => lastSeen.set(n, values[i]));
      }
      return placed;
    },
    archiveRows(rows) {
      if (rows.length === 0) return [];
      const moved = moveToArchive(archiveGrid(spreadsheet, queue, index), rows);
      if (moved.length > 0) lastSeen.clear();
      return moved;
    },
    noteCells(notes) {
      const wanted = notes.filter((n) => n.rowNumber >= 2 && index[n.header] >= 0);
      if (wanted.length === 0) return;
      // Compare-and-set as for writes: each note goes where its row's submission stands now, or nowhere.
      const placed = placeRows(wanted, wanted.map((n) => n.expected))
        .filter((n): n is CellNote => n !== null);
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
      const at = indexColumns(sheet.getRange(1, 1, 1, Math.max(sheet.getLastColumn(), 1)).getValues()[0]);
      if (at.event_id < 0 || at.status < 0) return keys;
      const left = Math.min(at.event_id, at.status);
      const cells = sheet.getRange(2, left + 1, last - 1, Math.max(at.event_id, at.status) - left + 1).getValues();
      for (const row of cells) keys.add(identityKey(identityOf(row, at, left)));
      return keys;
    },
    appendToArchive(rows) {
      const sheet = archiveOf();
      const archiveIndex = indexColumns(sheet.getRange(1, 1, 1, ARCHIVE_HEADERS.length).getValues()[0]);
      appendRows(sheet, rows.map((row) => rowToValues(archiveIndex, row, ARCHIVE_HEADERS.length)), rowNumberFormats(archiveIndex, ARCHIVE_HEADERS.length));
    },
    deleteRows: (row, count) => queue.deleteRows(row, count),
  };
}
