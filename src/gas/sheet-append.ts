// Appends rows with their number formats set first, so respondent text never becomes a formula, number or date.

/**
 * Callers hold the intake lock: getLastRow + setValues is not atomic, and appendRow cannot set formats
 * before the values land (a '=…' answer would already be a formula).
 */
export function appendRows(sheet: GoogleAppsScript.Spreadsheet.Sheet, rows: unknown[][], formats: string[]): number {
  if (rows.length === 0) return sheet.getLastRow();
  const first = sheet.getLastRow() + 1;
  const width = formats.length;
  const range = sheet.getRange(first, 1, rows.length, width);
  range.setNumberFormats(rows.map(() => formats));
  range.setValues(rows.map((row) => row.slice(0, width)));
  return first;
}

export function plainTextFormats(width: number): string[] {
  return new Array<string>(width).fill('@');
}
