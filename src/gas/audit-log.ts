// AuditLog port → the Log sheet: one atomic append per entry, every cell but the time as plain text.
import type { AuditLog, LogEntry } from '../core/ports';
import { SHEETS } from '../core/sheet-names';
import { appendRows } from './sheet-append';
import { requireSheet } from './spreadsheet';

const LOG_FORMATS = ['yyyy-mm-dd hh:mm:ss', '@', '@', '@', '@', '@'];
/** A Log line is an audit note, not a dump: long details are cut so a row stays readable (and far under a cell's limit). */
const MAX_DETAIL_CHARS = 2000;

function cells(entry: LogEntry): unknown[] {
  const detail = entry.detail.length > MAX_DETAIL_CHARS ? `${entry.detail.slice(0, MAX_DETAIL_CHARS - 1)}…` : entry.detail;
  return [new Date(entry.at), entry.eventId, entry.from, entry.to, entry.by, detail];
}

/** No lock: each line is one atomic appendRow (sheet-append.ts), so writers running as anyone cannot overwrite one another. */
export function createAuditLog(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): AuditLog {
  return {
    append(entries) {
      if (entries.length === 0) return;
      appendRows(requireSheet(spreadsheet, SHEETS.log), entries.map(cells), LOG_FORMATS);
    },
  };
}
