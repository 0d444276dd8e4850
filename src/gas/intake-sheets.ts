// IntakeSheets port: dedupe by TextFinder (cost flat in the sheet's size) and one atomic append per delivery.
import { formConfigsFromValues } from '../core/form-config';
import type { IntakeSheetsWithConfig } from '../core/intake/intake';
import { indexColumns, missingColumns, rowNumberFormats, rowToValues, type ColumnIndex } from '../core/queue-row';
import { PAYLOADS_HEADERS, REJECTED_HEADERS, SHEETS } from '../core/sheet-names';
import { submissionKeys } from '../core/submission-keys';
import { codedError } from '../core/errors';
import { requireSheet } from './spreadsheet';
import { appendRows, plainTextFormats } from './sheet-append';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** Payloads rows: key (event id), part, parts, text. */
const PAYLOAD_PART_FORMATS = ['@', '0', '0', '@'].slice(0, PAYLOADS_HEADERS.length);

function headerIndex(sheet: Sheet): { index: ColumnIndex; width: number } {
  const width = Math.max(sheet.getLastColumn(), 1);
  const header = sheet.getRange(1, 1, 1, width).getValues()[0];
  return { index: indexColumns(header), width };
}

/**
 * Finds a cell equal to `key` in one column without reading the column: a TextFinder runs inside
 * Sheets, so the cost does not grow with the number of rows (see docs/platform.md#batching-and-lookups).
 */
function findInColumn(sheet: Sheet, columnIndex: number, key: string): number | null {
  if (key === '' || columnIndex < 0) return null;
  const column = sheet.getRange(1, columnIndex + 1, sheet.getMaxRows(), 1);
  const found = column.createTextFinder(key).matchEntireCell(true).matchCase(true).findNext();
  return found && found.getRow() > 1 ? found.getRow() : null;
}

export function createIntakeSheets(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): IntakeSheetsWithConfig {
  const queue = requireSheet(spreadsheet, SHEETS.queue);
  let queueColumns: { index: ColumnIndex; width: number } | null = null;
  const queueHeader = () => {
    if (!queueColumns) {
      queueColumns = headerIndex(queue);
      const missing = missingColumns(queueColumns.index);
      if (missing.length > 0) {
        throw codedError('CONFIG_MISSING', `The Queue sheet has no column ${missing.join(', ')}. Run formqueue → Set up / repair.`);
      }
    }
    return queueColumns;
  };

  return {
    readForms() {
      const config = requireSheet(spreadsheet, SHEETS.config);
      return formConfigsFromValues(config.getDataRange().getValues());
    },
    findDuplicate(eventId, responseToken) {
      const archive = spreadsheet.getSheetByName(SHEETS.archive);
      const places: { name: 'Queue' | 'Archive'; sheet: Sheet; index: ColumnIndex }[] = [{ name: 'Queue', sheet: queue, index: queueHeader().index }];
      if (archive && archive.getLastRow() > 1) places.push({ name: 'Archive', sheet: archive, index: headerIndex(archive).index });
      for (const place of places) {
        for (const key of submissionKeys({ eventId, responseToken })) {
          const row = findInColumn(place.sheet, place.index[key.column], key.value);
          if (row !== null) return { sheet: place.name, rowNumber: row };
        }
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
