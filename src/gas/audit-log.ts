// AuditLog port → the Log sheet: one atomic append per entry, every cell but the time as plain text; a submission's lines found by TextFinder.
import type { AuditLog, LogEntry } from '../core/ports';
import { SHEETS } from '../core/sheet-names';
import { createAppender } from './sheet-append';
import { requireSheet } from './spreadsheet';

const LOG_FORMATS = ['yyyy-mm-dd hh:mm:ss', '@', '@', '@', '@', '@'];
/** A Log line is an audit note, not a dump: long details are cut so a row stays readable (and far under a cell's limit). */
const MAX_DETAIL_CHARS = 2000;
/** The event_id column of the Log (cells() writes it second). */
const EVENT_ID_LETTER = 'B';
/** A submission's lines are written within minutes of one another: read them as one block when they are this close. */
const BLOCK_ROWS = 200;

function cells(entry: LogEntry): unknown[] {
  const detail = entry.detail.length > MAX_DETAIL_CHARS ? `${entry.detail.slice(0, MAX_DETAIL_CHARS - 1)}…` : entry.detail;
  return [new Date(entry.at), entry.eventId, entry.from, entry.to, entry.by, detail];
}

function entryOf(values: readonly unknown[]): LogEntry {
  const at = values[0];
  const time = Object.prototype.toString.call(at) === '[object Date]' ? (at as Date).getTime() : Number(new Date(String(at)).getTime());
  const text = (i: number) => String(values[i] ?? '');
  return { at: Number.isFinite(time) ? time : 0, eventId: text(1), from: text(2), to: text(3), by: text(4), detail: text(5) };
}

/** The Log lines at `rows` (ascending): one read of the block between the first and the last when it is short, else one read per line. */
function readLines(sheet: GoogleAppsScript.Spreadsheet.Sheet, rows: number[]): LogEntry[] {
  if (rows.length === 0) return [];
  const first = rows[0], last = rows[rows.length - 1];
  if (last - first < BLOCK_ROWS) {
    const block = sheet.getRange(first, 1, last - first + 1, LOG_FORMATS.length).getValues();
    return rows.map((row) => entryOf(block[row - first]));
  }
  return rows.map((row) => entryOf(sheet.getRange(row, 1, 1, LOG_FORMATS.length).getValues()[0]));
}

/** No lock: each line is one atomic appendRow (sheet-append.ts), so writers running as anyone cannot overwrite one another. */
export function createAuditLog(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): AuditLog {
  // Every line is written at once (the Log is the send ledger); only the Log's lookup and headroom check are remembered.
  let logSheet: GoogleAppsScript.Spreadsheet.Sheet | null = null;
  const sheet = () => (logSheet ??= requireSheet(spreadsheet, SHEETS.log));
  const appendLines = createAppender(sheet, LOG_FORMATS);
  return {
    append(entries) {
      appendLines(entries.map(cells));
    },
    historyOf(eventId) {
      if (eventId === '') return [];
      // Inside Sheets, so the cost does not grow with the Log (docs/platform.md#batching-and-lookups); the whole
      // column in A1 ('B:B') needs no getMaxRows first.
      const found = sheet()
        .getRange(`${EVENT_ID_LETTER}:${EVENT_ID_LETTER}`)
        .createTextFinder(eventId)
        .matchEntireCell(true)
        .matchCase(true)
        .findAll()
        .map((cell) => cell.getRow())
        .filter((row) => row > 1)
        .sort((a, b) => a - b);
      return readLines(sheet(), found).filter((entry) => entry.eventId === eventId);
    },
  };
}
