// Appends rows with Sheet.appendRow, which no other execution can interleave with, into rows already formatted as text.

/** Rows formatted at once below the data when a row there is not plain text (a person reformatted it, a sheet recreated). */
const HEADROOM_ROWS = 200;
/**
 * Rows past the data that must be in the grid and plain text before an append: the row it lands in, plus one for each
 * other execution appending at the same moment (Google runs at most 30 at once per user, docs/platform.md#quotas; a
 * few staff members' menu actions come on top), rounded up.
 */
const LANDING_ROWS = 50;
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
  prepareRows(sheet, rows.length + LANDING_ROWS, formats);
  const width = formats.length;
  for (const row of rows) sheet.appendRow(row.slice(0, width));
}

/**
 * Rows one execution may append to a sheet after prepareRows without preparing again (three service calls saved per
 * append: getLastRow and the landing rows' formats). Only the Log is written this way: a protected sheet only
 * formqueue writes, by processQueue runs that hold the script lock (one at a time). Its check covers the allowance's
 * rows as well as other writers' landing rows, so the lines of an allowance land in rows already checked. 200 is a
 * full run's lines (four a mailed row, MAX_MAILS_PER_RUN 50), so a run checks once: 250 rows' formats, 1,500 cells
 * (~15 ms of cells under the latency model) instead of four checks of 100 rows (three calls each, ~150 ms).
 */
const APPENDS_PER_CHECK = 200;

/** appendRows for a writer that appends to one sheet many times in an execution: the sheet and its headroom remembered. */
export function createAppender(sheetOf: () => GoogleAppsScript.Spreadsheet.Sheet, formats: string[]): (rows: unknown[][]) => void {
  let sheet: GoogleAppsScript.Spreadsheet.Sheet | null = null;
  let allowance = 0;
  return (rows) => {
    if (rows.length === 0) return;
    sheet ??= sheetOf();
    if (rows.length > allowance) {
      allowance = Math.max(APPENDS_PER_CHECK, rows.length);
      prepareRows(sheet, allowance + LANDING_ROWS, formats);
    }
    allowance -= rows.length;
    for (const row of rows) sheet.appendRow(row.slice(0, formats.length));
  };
}

/**
 * Checks that the `landing` rows past the data are in the grid and plain text where they must be (a sheet formqueue
 * recreated, rows a person inserted or reformatted): if one is not, the rows from there get `formats`. Reading those
 * rows' formats also shows whether the grid reaches them: Sheets refuses a range past its last row ("The coordinates of
 * the range are outside the dimensions of the sheet."), and only then is the grid measured and grown, by GROW_ROWS
 * formatted rows. Two executions may both grow it (a spare block of rows, no harm). Without a getMaxRows on every
 * append, this is one call fewer than measuring the grid first.
 */
function prepareRows(sheet: GoogleAppsScript.Spreadsheet.Sheet, landing: number, formats: string[]): void {
  const last = sheet.getLastRow();
  const landingFormats = () => sheet.getRange(last + 1, 1, landing, formats.length).getNumberFormats();
  let rows: string[][];
  try {
    rows = landingFormats();
  } catch (error) {
    const maxRows = sheet.getMaxRows();
    if (last + landing <= maxRows) throw error; // the grid reaches them: Sheets itself failed, and the caller handles that
    const grow = Math.max(GROW_ROWS, landing + HEADROOM_ROWS);
    sheet.insertRowsAfter(maxRows, grow);
    setFormats(sheet, maxRows + 1, grow, formats);
    rows = landingFormats();
  }
  if (rows.some((row) => formats.some((format, i) => format === '@' && row[i] !== '@'))) setFormats(sheet, last + 1, landing + HEADROOM_ROWS, formats);
}

function setFormats(sheet: GoogleAppsScript.Spreadsheet.Sheet, first: number, count: number, formats: string[]): void {
  sheet.getRange(first, 1, count, formats.length).setNumberFormats(Array.from({ length: count }, () => formats));
}

export function plainTextFormats(width: number): string[] {
  return new Array<string>(width).fill('@');
}
