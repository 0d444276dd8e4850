// QueueStore port over the Queue and Archive sheets: whole-sheet reads once, writes grouped into contiguous ranges.
import { codedError } from '../core/errors';
import type { QueueStore } from '../core/ports';
import { indexColumns, missingColumns, rowFromValues, rowNumberFormats, rowToValues, type ColumnIndex, type QueueRow } from '../core/queue-row';
import { ARCHIVE_HEADERS, SHEETS } from '../core/sheet-names';
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
    writeRows(rows) {
      const byNumber = new Map(rows.map((row) => [row.rowNumber, row]));
      for (const group of contiguousGroups(rows.map((row) => row.rowNumber))) {
        const values = group.map((n) => rowToValues(index, byNumber.get(n)!, width, lastSeen.get(n)));
        queue.getRange(group[0], 1, group.length, width).setValues(values);
        group.forEach((n, i) => lastSeen.set(n, values[i]));
      }
    },
    archiveRows(rows) {
      if (rows.length === 0) return;
      const archive = archiveSheet(spreadsheet);
      const archiveIndex = indexColumns(archive.getRange(1, 1, 1, ARCHIVE_HEADERS.length).getValues()[0]);
      const ordered = rows.slice().sort((a, b) => a.rowNumber - b.rowNumber);
      appendRows(archive, ordered.map((row) => rowToValues(archiveIndex, row, ARCHIVE_HEADERS.length)), rowNumberFormats(archiveIndex, ARCHIVE_HEADERS.length));
      // Bottom-up, so deleting one run does not move the rows of the runs still to delete.
      for (const group of contiguousGroups(ordered.map((row) => row.rowNumber)).reverse()) queue.deleteRows(group[0], group.length);
      lastSeen.clear();
    },
    archivedKeys() {
      const archive = spreadsheet.getSheetByName(SHEETS.archive);
      const keys = new Set<string>();
      if (!archive || archive.getLastRow() < 2) return keys;
      const archiveWidth = Math.max(archive.getLastColumn(), 1);
      const values = archive.getRange(1, 1, archive.getLastRow(), archiveWidth).getValues();
      const archiveIndex = indexColumns(values[0]);
      for (const cells of values.slice(1)) {
        for (const at of [archiveIndex.event_id, archiveIndex.response_token]) if (at >= 0 && cells[at] !== '') keys.add(String(cells[at]));
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
