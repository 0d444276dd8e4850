// Reassembles a payload the Payloads sheet holds in parts (a cell takes at most 50,000 characters).
import { isPayloadPointer } from '../core/intake/cell-chunks';
import type { QueueRow } from '../core/queue-row';
import { SHEETS } from '../core/sheet-names';

export function readPayload(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet, row: QueueRow): string {
  if (!isPayloadPointer(row.payload)) return row.payload;
  const sheet = spreadsheet.getSheetByName(SHEETS.payloads);
  if (!sheet) return row.payload;
  // Parts are found by their event id (column A) without reading the whole sheet.
  const found = sheet.getRange('A:A').createTextFinder(row.eventId).matchEntireCell(true).matchCase(true).findAll();
  const parts = found.map((cell) => sheet.getRange(cell.getRow(), 1, 1, 4).getValues()[0]);
  return parts
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((part) => String(part[3]))
    .join('');
}
