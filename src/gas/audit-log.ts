// AuditLog port → the Log sheet: one atomic append per entry, every cell but the time as plain text; a submission's lines found by TextFinder.
import type { AuditLog, LogEntry } from '../core/ports';
import { SHEETS } from '../core/sheet-names';
import { appendRows } from './sheet-append';
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

function entryOf(values: readonly unknown[]): LogEntry {
  const at = values[0];
  const time = Object.prototype.toString.call(at) === '[object Date]' ? (at as Date).getTime() : Number(new Date(String(at)).getTime());
  const text = (i: number) => String(values[i] ?? '');
  return { at: Number.isFinite(time) ? time : 0, eventId: text(1), from: text(2), to: text(3), by: text(4), detail: text(5) };
}

/** No lock: each line is one atomic appendRow (sheet-append.ts), so writers running as anyone cannot overwrite one another. */
export function createAuditLog(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): AuditLog {
  return {
    append(entries) {
      if (entries.length === 0) return;
      appendRows(requireSheet(spreadsheet, SHEETS.log), entries.map(cells), LOG_FORMATS);
    },
    historyOf(eventId) {
      if (eventId === '') return [];
      const sheet = requireSheet(spreadsheet, SHEETS.log);
      // Inside Sheets, so the cost does not grow with the Log (docs/platform.md#batching-and-lookups).
      const found = sheet
        .getRange(1, EVENT_ID_COLUMN, sheet.getMaxRows(), 1)
        .createTextFinder(eventId)
        .matchEntireCell(true)
        .matchCase(true)
        .findAll()
        .map((cell) => cell.getRow())
        .filter((row) => row > 1);
      return found.map((row) => entryOf(sheet.getRange(row, 1, 1, LOG_FORMATS.length).getValues()[0]));
    },
  };
}
