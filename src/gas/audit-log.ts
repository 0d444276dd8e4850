// AuditLog port → the Log sheet: one atomic append per entry, every cell but the time as plain text; a submission's lines found by TextFinder.
import type { AuditLog, LogEntry } from '../core/ports';
import { SHEETS } from '../core/sheet-names';
import { createAppender } from './sheet-append';
import { requireSheet } from './spreadsheet';

const LOG_FORMATS = ['yyyy-mm-dd hh:mm:ss', '@', '@', '@', '@', '@'];
/** A Log line is an audit note, not a dump: long details are cut so a row stays readable (and far under a cell's limit). */
const MAX_DETAIL_CHARS = 2000;
/** The event_id column of the Log (cells() writes it second). */
const EVENT_ID_COLUMN = 2;

function cells(entry: LogEntry): unknown[] {
  const detail = entry.detail.length > MAX_DETAIL_CHARS ? `${entry.detail.slice(0, MAX_DETAIL_CHARS - 1)}…` : entry.detail;
  return [new Date(entry.at), entry.eventId, entry.from, entry.to, entry.by, detail];
}

/** Up to this many submissions are looked up one by one (a TextFinder each); more, and the Log is read once. */
const FIND_ONE_BY_ONE_MAX = 5;

/** One submission's Log lines, found inside Sheets, so the cost does not grow with the Log (docs/platform.md#batching-and-lookups). */
function findLines(sheet: GoogleAppsScript.Spreadsheet.Sheet, eventId: string): LogEntry[] {
  const rows = sheet
    .getRange(1, EVENT_ID_COLUMN, sheet.getMaxRows(), 1)
    .createTextFinder(eventId)
    .matchEntireCell(true)
    .matchCase(true)
    .findAll()
    .map((cell) => cell.getRow())
    .filter((row) => row > 1);
  return rows.map((row) => entryOf(sheet.getRange(row, 1, 1, LOG_FORMATS.length).getValues()[0]));
}

function entryOf(values: readonly unknown[]): LogEntry {
  const at = values[0];
  const time = Object.prototype.toString.call(at) === '[object Date]' ? (at as Date).getTime() : Number(new Date(String(at)).getTime());
  const text = (i: number) => String(values[i] ?? '');
  return { at: Number.isFinite(time) ? time : 0, eventId: text(1), from: text(2), to: text(3), by: text(4), detail: text(5) };
}

/** No lock: each line is one atomic appendRow (sheet-append.ts), so writers running as anyone cannot overwrite one another. */
export function createAuditLog(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): AuditLog {
  // Every line is written at once (the Log is the send ledger); only the Log's lookup and its rows' preparation are remembered.
  const appendLines = createAppender(() => requireSheet(spreadsheet, SHEETS.log), LOG_FORMATS);
  return {
    append(entries) {
      appendLines(entries.map(cells));
    },
    historiesOf(eventIds) {
      const wanted = new Set(eventIds.filter((id) => id !== ''));
      const histories = new Map(Array.from(wanted, (id): [string, LogEntry[]] => [id, []]));
      if (wanted.size === 0) return histories;
      const sheet = requireSheet(spreadsheet, SHEETS.log);
      if (wanted.size <= FIND_ONE_BY_ONE_MAX) {
        for (const id of wanted) histories.set(id, findLines(sheet, id));
        return histories;
      }
      // A block of rows (a sort): one read of the Log beats a lookup per row. The detail is read too: a claim or
      // send line's ledger facts are in it (send-ledger.ts).
      const lastRow = sheet.getLastRow();
      if (lastRow < 2) return histories;
      for (const cells of sheet.getRange(2, 1, lastRow - 1, LOG_FORMATS.length).getValues()) histories.get(String(cells[1]))?.push(entryOf(cells));
      return histories;
    },
  };
}
