// Reads a payload the Payloads sheet holds in parts (a cell takes at most 50,000 characters).
import { isPayloadPointer, joinPayloadParts, type PayloadPart } from '../core/domain/queue/cell-chunks';
import type { QueueRow } from '../core/domain/queue/queue-row';
import { SHEETS } from '../core/domain/queue/sheet-names';

/** The rows of Payloads under `key` (column A), in sheet order, found without reading the whole sheet. */
export function readPayloadParts(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet, key: string): PayloadPart[] {
  const sheet = spreadsheet.getSheetByName(SHEETS.payloads);
  if (!sheet) return [];
  const found = sheet.getRange('A:A').createTextFinder(key).matchEntireCell(true).matchCase(true).findAll();
  return found
    .map((cell) => sheet.getRange(cell.getRow(), 1, 1, 4).getValues()[0])
    .map((cells) => ({ part: Number(cells[1]), parts: Number(cells[2]), text: String(cells[3]) }));
}

/** The row's payload; the pointer itself when its parts cannot be joined (processing then has no answers by ref). */
export function readPayload(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet, row: QueueRow): string {
  if (!isPayloadPointer(row.payload)) return row.payload;
  return joinPayloadParts(readPayloadParts(spreadsheet, row.eventId)) ?? row.payload;
}
