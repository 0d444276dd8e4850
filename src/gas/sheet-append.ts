// Appends rows with Sheet.appendRow, which no other execution can interleave with, into rows already formatted as text.

/** Formatted empty rows kept below the data, so an append always lands in a row whose formats were set first. */
const HEADROOM_ROWS = 200;
/** Rows added at once when the headroom runs low. */
const GROW_ROWS = 1000;

/**
 * Every writer of Queue, Log, Rejected, Payloads and Archive appends through here, whoever it runs as.
 * `appendRow` is atomic: "it prevents issues where a user asks for the last row, and then writes to that row,
 * and an intervening mutation occurs between getting the last row and writing to it"
 * (https://developers.google.com/apps-script/reference/spreadsheet/sheet#appendRow(Object)). A lock could not
 * give that: the user lock differs per person, and processQueue holds the script lock for minutes.
 *
 * appendRow cannot set number formats, and Sheets reads a string as if typed unless its cell is plain text
 * ('@'), so a '=…' answer would become a formula. The rows it lands in are therefore formatted ahead of it
 * (Set up formats whole columns; the headroom added here gets `formats` explicitly).
 */
export function appendRows(sheet: GoogleAppsScript.Spreadsheet.Sheet, rows: unknown[][], formats: string[]): void {
  if (rows.length === 0) return;
  prepareRows(sheet, rows.length, formats);
  const width = formats.length;
  for (const row of rows) sheet.appendRow(row.slice(0, width));
}

/**
 * Rows one execution may append to a sheet after prepareRows without preparing again (four service calls saved per
 * append: getMaxRows, getLastRow and the next row's formats). Only the Log is written this way: a protected sheet
 * only formqueue writes, by processQueue runs that hold the script lock (one at a time). Every other writer prepares
 * before each append, which keeps 200 free rows, and prepareRows formats 200 rows past the data whenever the next one
 * is not plain text; so the 50 lines of an allowance land in rows already checked or formatted.
 */
const APPENDS_PER_CHECK = 50;

/** appendRows for a writer that appends to one sheet many times in an execution: the sheet and its headroom remembered. */
export function createAppender(sheetOf: () => GoogleAppsScript.Spreadsheet.Sheet, formats: string[]): (rows: unknown[][]) => void {
  let sheet: GoogleAppsScript.Spreadsheet.Sheet | null = null;
  let allowance = 0;
  return (rows) => {
    if (rows.length === 0) return;
    sheet ??= sheetOf();
    if (rows.length > allowance) {
      prepareRows(sheet, rows.length, formats);
      allowance = APPENDS_PER_CHECK;
    }
    allowance -= rows.length;
    for (const row of rows) sheet.appendRow(row.slice(0, formats.length));
  };
}

/**
 * Grows the grid before the data reaches its end, and checks that the next row is plain text where it must be
 * (a sheet formqueue recreated, rows a person inserted or reformatted): if not, the next rows get `formats`.
 * Two executions may both grow it (a spare block of rows, no harm); an append never lands past the formatted
 * rows, since the grid grows while hundreds are still free.
 */
function prepareRows(sheet: GoogleAppsScript.Spreadsheet.Sheet, adding: number, formats: string[]): void {
  const maxRows = sheet.getMaxRows();
  const last = sheet.getLastRow();
  if (maxRows - last < adding + HEADROOM_ROWS) {
    const grow = Math.max(GROW_ROWS, adding + HEADROOM_ROWS);
    sheet.insertRowsAfter(maxRows, grow);
    setFormats(sheet, maxRows + 1, grow, formats);
  }
  const next = sheet.getRange(last + 1, 1, 1, formats.length).getNumberFormats()[0];
  if (formats.some((format, i) => format === '@' && next[i] !== '@')) setFormats(sheet, last + 1, adding + HEADROOM_ROWS, formats);
}

function setFormats(sheet: GoogleAppsScript.Spreadsheet.Sheet, first: number, count: number, formats: string[]): void {
  sheet.getRange(first, 1, count, formats.length).setNumberFormats(Array.from({ length: count }, () => formats));
}

export function plainTextFormats(width: number): string[] {
  return new Array<string>(width).fill('@');
}
