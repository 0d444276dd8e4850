// Reads a payload the Payloads sheet holds in parts (a cell takes at most 50,000 characters).
import { isPayloadPointer, joinPayloadParts } from '../core/intake/cell-chunks';
import type { QueueRow } from '../core/queue-row';
import { SHEETS } from '../core/sheet-names';

/** The row's payload; the pointer itself when its parts cannot be joined (processing then has no answers by ref). */
export function readPayload(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet, row: QueueRow): string {
  if (!isPayloadPointer(row.payload)) return row.payload;
  const sheet = spreadsheet.getSheetByName(SHEETS.payloads);
  if (!sheet) return row.payload;
  // Parts are found by their event id (column A) without reading the whole sheet; kept in sheet order.
  const found = sheet.getRange('A:A').createTextFinder(row.eventId).matchEntireCell(true).matchCase(true).findAll();
  const parts = found
    .map((cell) => sheet.getRange(cell.getRow(), 1, 1, 4).getValues()[0])
    .map((cells) => ({ part: Number(cells[1]), parts: Number(cells[2]), text: String(cells[3]) }));
  return joinPayloadParts(parts) ?? row.payload;
}
