// AuditLog port → the Log sheet: one atomic append per entry, every cell but the time as plain text; a submission's lines found by TextFinder.
import type { AuditLog, LogEntry } from '../core/ports';
import { SHEETS } from '../core/sheet-names';
import { createAppender } from './sheet-append';
import { requireSheet } from './spreadsheet';

const LOG_FORMATS = ['yyyy-mm-dd hh:mm:ss', '@', '@', '@', '@', '@'];
/** A Log line is an audit note, not a dump: long details are cut so a row stays readable (and far under a cell's limit). */
const MAX_DETAIL_CHARS = 2000;
/** The event_id column of the Log in A1 (cells() writes it second): a whole column needs no getMaxRows. */
const EVENT_ID_COLUMN = 'B:B';

function cells(entry: LogEntry): unknown[] {
  const detail = entry.detail.length > MAX_DETAIL_CHARS ? `${entry.detail.slice(0, MAX_DETAIL_CHARS - 1)}…` : entry.detail;
  return [new Date(entry.at), entry.eventId, entry.from, entry.to, entry.by, detail];
}

/** Up to this many submissions are found by one TextFinder (a regular expression of their ids); more, and the Log is read once. */
const FIND_AT_ONCE_MAX = 50;
/** Lines up to this many rows apart are read in one call (a submission's lines are written minutes apart). */
const BLOCK_GAP_ROWS = 10;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The Log lines of the given submissions, found inside Sheets by one TextFinder over the event_id column (a whole-cell
 * match of any of the ids), so the cost does not grow with the Log (docs/platform.md#batching-and-lookups); the lines
 * found are read in blocks of nearby rows.
 */
function findLines(sheet: GoogleAppsScript.Spreadsheet.Sheet, eventIds: readonly string[]): LogEntry[] {
  const finder = sheet.getRange(EVENT_ID_COLUMN).createTextFinder(eventIds.length === 1 ? eventIds[0] : eventIds.map(escapeRegExp).join('|'));
  if (eventIds.length > 1) finder.useRegularExpression(true);
  const rows = finder
    .matchEntireCell(true)
    .matchCase(true)
    .findAll()
    .map((cell) => cell.getRow())
    .filter((row) => row > 1)
    .sort((x, y) => x - y);
  const lines: LogEntry[] = [];
  for (let i = 0; i < rows.length; ) {
    let j = i;
    while (j + 1 < rows.length && rows[j + 1] - rows[j] <= BLOCK_GAP_ROWS) j++;
    const wanted = new Set(rows.slice(i, j + 1));
    sheet
      .getRange(rows[i], 1, rows[j] - rows[i] + 1, LOG_FORMATS.length)
      .getValues()
      .forEach((values, k) => {
        if (wanted.has(rows[i] + k)) lines.push(entryOf(values));
      });
    i = j + 1;
  }
  return lines;
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
  let logSheet: GoogleAppsScript.Spreadsheet.Sheet | null = null;
  const sheetOf = () => (logSheet ??= requireSheet(spreadsheet, SHEETS.log));
  const appendLines = createAppender(sheetOf, LOG_FORMATS);
  return {
    append(entries) {
      appendLines(entries.map(cells));
    },
    historiesOf(eventIds) {
      const wanted = new Set(eventIds.filter((id) => id !== ''));
      const histories = new Map(Array.from(wanted, (id): [string, LogEntry[]] => [id, []]));
      if (wanted.size === 0) return histories;
      const sheet = sheetOf();
      if (wanted.size <= FIND_AT_ONCE_MAX) {
        for (const entry of findLines(sheet, Array.from(wanted))) histories.get(entry.eventId)?.push(entry);
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
