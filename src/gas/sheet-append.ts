// Appends rows with their number formats set first, so respondent text never becomes a formula, number or date.

/** Rows added at once when a sheet is full: getRange past the last row throws, so the grid grows ahead of the data. */
const GROW_ROWS = 1000;

/**
 * Callers hold the intake lock: getLastRow + setValues is not atomic, and appendRow cannot set formats
 * before the values land (a '=…' answer would already be a formula).
 */
export function appendRows(sheet: GoogleAppsScript.Spreadsheet.Sheet, rows: unknown[][], formats: string[]): number {
  if (rows.length === 0) return sheet.getLastRow();
  const first = sheet.getLastRow() + 1;
  const width = formats.length;
  // A new sheet has 1,000 rows; getRange beyond them throws ("outside the dimensions of the sheet"), unlike appendRow.
  const last = first + rows.length - 1;
  const maxRows = sheet.getMaxRows();
  if (last > maxRows) sheet.insertRowsAfter(maxRows, Math.max(last - maxRows, GROW_ROWS));
  const range = sheet.getRange(first, 1, rows.length, width);
  range.setNumberFormats(rows.map(() => formats));
  range.setValues(rows.map((row) => row.slice(0, width)));
  return first;
}

export function plainTextFormats(width: number): string[] {
  return new Array<string>(width).fill('@');
}
