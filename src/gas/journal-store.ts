// JournalStore port → the Journal sheet: one atomic appendRow per line, the tail read in one call, lines found by TextFinder.
import { eventIdOfCell, journalCells, type JournalEntry, type JournalRecord } from '../core/domain/queue/journal-line';
import type { JournalStore } from '../core/domain/sheet-ports';
import { JOURNAL_HEADERS, SHEETS } from '../core/domain/queue/sheet-names';
import { requireSheet } from './spreadsheet';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** The submission column in A1 (journalCells writes it second): a whole column needs no getMaxRows. */
const KEY_COLUMN = 'B:B';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function recordOf(rowNumber: number, cells: readonly unknown[]): JournalRecord {
  const at = cells[0];
  const time = Object.prototype.toString.call(at) === '[object Date]' ? (at as Date).getTime() : new Date(String(at)).getTime();
  return { rowNumber, receivedAt: Number.isFinite(time) ? time : 0, key: String(cells[1] ?? ''), eventId: eventIdOfCell(String(cells[2] ?? '')), payload: String(cells[3] ?? '') };
}

/**
 * Appends one line without setting formats ahead (no landing-row check, two calls fewer than the Queue's append): every
 * cell is a Date or text Sheets keeps as typed (journal-line.ts), and appendRow is atomic whoever else appends
 * (https://developers.google.com/apps-script/reference/spreadsheet/sheet#appendRow(Object)).
 */
export function appendJournalLine(sheet: Sheet, entry: JournalEntry): void {
  sheet.appendRow([new Date(entry.receivedAt), ...journalCells(entry)]);
}

export function createJournalStore(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): JournalStore {
  let journal: Sheet | null = null;
  const sheetOf = () => (journal ??= requireSheet(spreadsheet, SHEETS.journal));
  return {
    linesFrom(from) {
      const sheet = sheetOf();
      const last = sheet.getLastRow();
      if (last < from) return { lines: [], next: Math.max(from, last + 1) };
      const values = sheet.getSheetValues(from, 2, last - from + 1, 2);
      return { lines: values.map((cells, i) => ({ rowNumber: from + i, key: String(cells[0] ?? ''), eventId: eventIdOfCell(String(cells[1] ?? '')) })), next: last + 1 };
    },
    recordsOf(keys) {
      const wanted = Array.from(new Set(keys.filter((key) => key !== '')));
      if (wanted.length === 0) return [];
      const sheet = sheetOf();
      const rows = sheet
        .getRange(KEY_COLUMN)
        .createTextFinder(wanted.map(escapeRegExp).join('|'))
        .useRegularExpression(true)
        .matchEntireCell(true)
        .matchCase(true)
        .findAll()
        .map((cell) => cell.getRow())
        .filter((row) => row > 1)
        .sort((a, b) => a - b);
      return rows.map((row) => recordOf(row, sheet.getRange(row, 1, 1, JOURNAL_HEADERS.length).getValues()[0]));
    },
    allKeys() {
      const sheet = sheetOf();
      const last = sheet.getLastRow();
      if (last < 2) return new Set();
      return new Set(sheet.getSheetValues(2, 2, last - 1, 1).map((cells) => String(cells[0] ?? '')).filter((key) => key !== ''));
    },
    append(entries) {
      if (entries.length === 0) return;
      const sheet = sheetOf();
      for (const entry of entries) appendJournalLine(sheet, entry);
    },
  };
}
