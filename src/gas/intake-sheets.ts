// IntakeSheets port: dedupe by TextFinder (cost flat in the sheet's size) and one atomic append per delivery.
import type { IntakeSheetsWithConfig } from '../core/intake/intake';
import { missingColumns, rowNumberFormats, rowToValues, type ColumnIndex } from '../core/domain/queue/queue-row';
import { PAYLOADS_HEADERS, REJECTED_HEADERS, SHEETS } from '../core/domain/queue/sheet-names';
import { submissionKeys } from '../core/domain/queue/submission-keys';
import { codedError } from '../core/domain/failures/errors';
import type { FormConfig } from '../core/domain/sheet-ports';
import { createConfigStore } from './config-store';
import { readColumns } from './header-row';
import { requireSheet } from './spreadsheet';
import { appendRows, plainTextFormats } from './sheet-append';
import { createTallyStore } from './tally-store';
import { appendJournalLine } from './journal-store';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** Payloads rows: key (event id), part, parts, text. */
const PAYLOAD_PART_FORMATS = ['@', '0', '0', '@'].slice(0, PAYLOADS_HEADERS.length);

/** The A1 letters of column `columnNumber` (1 = A, 27 = AA). */
function columnLetters(columnNumber: number): string {
  let letters = '';
  for (let n = columnNumber; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/**
 * Finds a cell equal to `key` in one column without reading the column: a TextFinder runs inside
 * Sheets, so the cost does not grow with the number of rows (see docs/platform.md#batching-and-lookups).
 */
function findInColumn(sheet: Sheet, columnIndex: number, key: string): number | null {
  if (key === '' || columnIndex < 0) return null;
  // A whole column in A1 ('C:C') reaches every row without asking getMaxRows first.
  const letters = columnLetters(columnIndex + 1);
  const column = sheet.getRange(`${letters}:${letters}`);
  const found = column.createTextFinder(key).matchEntireCell(true).matchCase(true).findNext();
  return found && found.getRow() > 1 ? found.getRow() : null;
}

/** The widest block of columns searched at once for either key (event_id to response_token is B:E in Set up's layout). */
const MAX_SPAN_COLUMNS = 4;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The row holding this submission's event_id in event_id or its response token in response_token: one TextFinder
 * over the block of columns between the two (a regular expression for either key, whole cell), two service calls
 * instead of four. A hit is confirmed against its own column's key (one read, only on a duplicate: an event_id never
 * matches a response token); a hit in a column between them, or not confirmed, falls back to one search per key.
 */
function findEither(sheet: Sheet, index: ColumnIndex, eventId: string, responseToken: string): number | null {
  const keys = submissionKeys({ eventId, responseToken });
  const columns = keys.map((key) => index[key.column]);
  const first = Math.min(...columns), last = Math.max(...columns);
  if (keys.length === 2 && first >= 0 && last - first + 1 <= MAX_SPAN_COLUMNS) {
    const block = sheet.getRange(`${columnLetters(first + 1)}:${columnLetters(last + 1)}`);
    const pattern = `^(?:${keys.map((key) => escapeRegExp(key.value)).join('|')})$`;
    const found = block.createTextFinder(pattern).useRegularExpression(true).matchEntireCell(true).matchCase(true).findNext();
    if (!found || found.getRow() <= 1) return null;
    const own = keys.find((key) => index[key.column] === found.getColumn() - 1);
    if (own && String(found.getValue()) === own.value) return found.getRow();
  }
  for (const key of keys) {
    const row = findInColumn(sheet, index[key.column], key.value);
    if (row !== null) return row;
  }
  return null;
}

export function createIntakeSheets(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): IntakeSheetsWithConfig {
  const queue = requireSheet(spreadsheet, SHEETS.queue);
  let queueColumns: { index: ColumnIndex; width: number } | null = null;
  const queueHeader = () => {
    if (!queueColumns) {
      queueColumns = readColumns(queue);
      const missing = missingColumns(queueColumns.index);
      if (missing.length > 0) {
        throw codedError('CONFIG_MISSING', `The Queue sheet has no column ${missing.join(', ')}. Run formqueue → Set up / repair.`);
      }
    }
    return queueColumns;
  };

  let forms: FormConfig[] | null = null;
  const config = createConfigStore(spreadsheet);
  const readForms = () => (forms ??= config.readForms());
  return {
    tally: createTallyStore(spreadsheet),
    readForms,
    prepare({ forms }) {
      if (forms) readForms();
      queueHeader();
    },
    findDuplicate(eventId, responseToken, where) {
      const places: { name: 'Queue' | 'Archive'; sheet: Sheet; index: ColumnIndex }[] = [{ name: 'Queue', sheet: queue, index: queueHeader().index }];
      const archive = where.archive ? spreadsheet.getSheetByName(SHEETS.archive) : null;
      if (archive && archive.getLastRow() > 1) places.push({ name: 'Archive', sheet: archive, index: readColumns(archive).index });
      for (const place of places) {
        const row = findEither(place.sheet, place.index, eventId, responseToken);
        if (row !== null) return { sheet: place.name, rowNumber: row };
      }
      return null;
    },
    appendQueueRow(row, payloadChunks) {
      const { index, width } = queueHeader();
      if (payloadChunks.length > 0) {
        const payloads = requireSheet(spreadsheet, SHEETS.payloads);
        const parts = payloadChunks.map((text, i) => [row.eventId, i + 1, payloadChunks.length, text]);
        appendRows(payloads, parts, PAYLOAD_PART_FORMATS);
      }
      appendRows(queue, [rowToValues(index, row, width)], rowNumberFormats(index, width));
    },
    appendJournal(entry) {
      appendJournalLine(requireSheet(spreadsheet, SHEETS.journal), entry);
    },
    appendRejected(entry) {
      const rejected = requireSheet(spreadsheet, SHEETS.rejected);
      if (entry.bodyParts) {
        const { key, parts } = entry.bodyParts;
        appendRows(requireSheet(spreadsheet, SHEETS.payloads), parts.map((text, i) => [key, i + 1, parts.length, text]), PAYLOAD_PART_FORMATS);
      }
      const formats = plainTextFormats(REJECTED_HEADERS.length);
      formats[0] = 'yyyy-mm-dd hh:mm:ss';
      appendRows(rejected, [[new Date(entry.at), entry.reason, entry.formId, entry.eventId, entry.body]], formats);
    },
    flush() {
      SpreadsheetApp.flush();
    },
  };
}
