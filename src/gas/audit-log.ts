// AuditLog port → the Log sheet: one atomic append per entry, every cell but the time as plain text; a submission's lines found by TextFinder.
import type { AuditLog, LogEntry } from '../core/domain/sheet-ports';
import { SHEETS } from '../core/domain/queue/sheet-names';
import { createAppender } from './sheet-append';
import { requireSheet } from './spreadsheet';

const LOG_FORMATS = ['yyyy-mm-dd hh:mm:ss', '@', '@', '@', '@', '@', '@'];
/** The columns of a Log made before the submission column: at, event_id, from, to, by, detail. */
const COLUMNS_BEFORE_SUBMISSION = 6;
/** A Log line is an audit note, not a dump: long details are cut so a row stays readable (and far under a cell's limit). */
const MAX_DETAIL_CHARS = 2000;
/**
 * The Log's columns from event_id (second) to submission (seventh, after the columns of older versions), in A1: a
 * whole-column range needs no getMaxRows. One search covers both keys; a cell between them (from, to, by, detail)
 * that happened to equal a key only adds a line, which is filed under its own event_id and submission.
 */
const KEY_COLUMNS = 'B:G';
/** The event_id column alone, for a Log whose grid ends before the submission column. */
const OLDER_KEY_COLUMN = 'B:B';

function cells(entry: LogEntry): unknown[] {
  const detail = entry.detail.length > MAX_DETAIL_CHARS ? `${entry.detail.slice(0, MAX_DETAIL_CHARS - 1)}…` : entry.detail;
  return [new Date(entry.at), entry.eventId, entry.from, entry.to, entry.by, detail, entry.submission ?? ''];
}

/** Up to this many submissions are found by one TextFinder (a regular expression of their ids); more, and the Log is read once. */
const FIND_AT_ONCE_MAX = 50;
/** Lines up to this many rows apart are read in one call (a submission's lines are written minutes apart). */
const BLOCK_GAP_ROWS = 10;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The rows (header excluded) of one column whose whole cell is one of `values`: one TextFinder inside Sheets. */
function rowsHolding(sheet: GoogleAppsScript.Spreadsheet.Sheet, column: string, values: readonly string[]): number[] {
  if (values.length === 0) return [];
  const finder = sheet.getRange(column).createTextFinder(values.length === 1 ? values[0] : values.map(escapeRegExp).join('|'));
  if (values.length > 1) finder.useRegularExpression(true);
  return finder
    .matchEntireCell(true)
    .matchCase(true)
    .findAll()
    .map((cell) => cell.getRow())
    .filter((row) => row > 1);
}

/**
 * The Log lines of the given keys (event ids and submission identities), found inside Sheets by one TextFinder (a
 * whole-cell match of any of them), so the cost does not grow with the Log (docs/platform.md#batching-and-lookups);
 * the lines found are read in blocks of nearby rows.
 */
function findLines(sheet: GoogleAppsScript.Spreadsheet.Sheet, keys: readonly string[]): LogEntry[] {
  let found: number[];
  try {
    found = rowsHolding(sheet, KEY_COLUMNS, keys);
  } catch {
    // A Log of an older version, six columns wide until Set up or the next append widens it: no line there has a
    // submission, so the event_id column holds every line to find.
    found = rowsHolding(sheet, OLDER_KEY_COLUMN, keys);
  }
  const rows = Array.from(new Set(found)).sort((x, y) => x - y);
  const lines: LogEntry[] = [];
  for (let i = 0; i < rows.length; ) {
    let j = i;
    while (j + 1 < rows.length && rows[j + 1] - rows[j] <= BLOCK_GAP_ROWS) j++;
    const wanted = new Set(rows.slice(i, j + 1));
    readBlock(sheet, rows[i], rows[j] - rows[i] + 1)
      .forEach((values, k) => {
        if (wanted.has(rows[i] + k)) lines.push(entryOf(values));
      });
    i = j + 1;
  }
  return lines;
}

/** The cells of `count` Log lines from `first`; a Log of an older version (six grid columns) is read without the submission. */
function readBlock(sheet: GoogleAppsScript.Spreadsheet.Sheet, first: number, count: number): unknown[][] {
  try {
    return sheet.getRange(first, 1, count, LOG_FORMATS.length).getValues();
  } catch (error) {
    if (sheet.getMaxColumns() >= LOG_FORMATS.length) throw error;
    return sheet.getRange(first, 1, count, COLUMNS_BEFORE_SUBMISSION).getValues();
  }
}

function entryOf(values: readonly unknown[]): LogEntry {
  const at = values[0];
  const time = Object.prototype.toString.call(at) === '[object Date]' ? (at as Date).getTime() : Number(new Date(String(at)).getTime());
  const text = (i: number) => String(values[i] ?? '');
  const entry: LogEntry = { at: Number.isFinite(time) ? time : 0, eventId: text(1), from: text(2), to: text(3), by: text(4), detail: text(5) };
  if (text(6) !== '') entry.submission = text(6);
  return entry;
}

/** No lock: each line is one atomic appendRow (sheet-append.ts), so writers running as anyone cannot overwrite one another. */
export function createAuditLog(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): AuditLog {
  // Every line is written at once (the Log is the send ledger); only the Log's lookup and its rows' preparation are remembered.
  let logSheet: GoogleAppsScript.Spreadsheet.Sheet | null = null;
  const sheetOf = () => (logSheet ??= requireSheet(spreadsheet, SHEETS.log));
  const withSubmission = createAppender(sheetOf, LOG_FORMATS);
  const withoutSubmission = createAppender(sheetOf, LOG_FORMATS.slice(0, COLUMNS_BEFORE_SUBMISSION));
  let narrow = false;
  /**
   * A Log made before the submission column has six grid columns (Set up trims the rest, and adds the column at its
   * next run), so a range of seven is refused there. Only after such a refusal is the grid measured; such a Log keeps
   * its lines, without the submission, until Set up adds it: they are found by event_id, as before.
   */
  const appendLines = (rows: unknown[][]) => {
    if (!narrow) {
      try {
        withSubmission(rows);
        return;
      } catch (error) {
        if (sheetOf().getMaxColumns() >= LOG_FORMATS.length) throw error;
        narrow = true;
      }
    }
    withoutSubmission(rows.map((row) => row.slice(0, COLUMNS_BEFORE_SUBMISSION)));
  };
  return {
    append(entries) {
      appendLines(entries.map(cells));
    },
    historiesOf(keys) {
      const wanted = new Set(keys.filter((key) => key !== ''));
      const histories = new Map(Array.from(wanted, (key): [string, LogEntry[]] => [key, []]));
      if (wanted.size === 0) return histories;
      const sheet = sheetOf();
      // A line belongs to its event_id's history and to its submission's (one line may answer both keys).
      const file = (entry: LogEntry) => {
        histories.get(entry.eventId)?.push(entry);
        if (entry.submission !== undefined && entry.submission !== entry.eventId) histories.get(entry.submission)?.push(entry);
      };
      if (wanted.size <= FIND_AT_ONCE_MAX) {
        for (const entry of findLines(sheet, Array.from(wanted))) file(entry);
        return histories;
      }
      // A block of rows (a sort): one read of the Log beats a lookup per row. The detail is read too: a claim or
      // send line's ledger facts are in it (send-ledger.ts).
      const lastRow = sheet.getLastRow();
      if (lastRow < 2) return histories;
      for (const cells of readBlock(sheet, 2, lastRow - 1)) file(entryOf(cells));
      return histories;
    },
  };
}
