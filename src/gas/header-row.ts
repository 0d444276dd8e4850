// Reads a sheet's header row in one call, for every writer that places cells by header (Queue, Archive).
import { headerColumns, type ColumnIndex } from '../core/domain/queue/queue-row';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/**
 * The header row in one call: getSheetValues with -1 columns reads up to the last column with data in the sheet
 * (https://developers.google.com/apps-script/reference/spreadsheet/sheet#getSheetValues(Integer,Integer,Integer,Integer)),
 * where getRange('1:1').getValues() takes two. A sheet with no data has no such block (Sheets refuses a width of 0):
 * read as the whole first row.
 */
export function readHeaderRow(sheet: Sheet): unknown[] {
  try {
    return sheet.getSheetValues(1, 1, 1, -1)[0] ?? [];
  } catch {
    return sheet.getRange('1:1').getValues()[0];
  }
}

/** Where formqueue's columns sit in `sheet`, and how wide its named header is (core/domain/queue/queue-row.ts headerColumns). */
export function readColumns(sheet: Sheet): { index: ColumnIndex; width: number } {
  return headerColumns(readHeaderRow(sheet));
}
