// SuppressionList port → the Suppressed sheet: read in one call, each new line one atomic append into plain-text rows.
import type { SuppressionList } from '../core/domain/sheet-ports';
import { SHEETS, SUPPRESSED_HEADERS } from '../core/domain/queue/sheet-names';
import type { SuppressedEntry } from '../core/domain/mail/suppression';
import { appendRows, plainTextFormats } from './sheet-append';
import { requireSheet } from './spreadsheet';

/** Formats of an appended line: text, and the time as Set up formats the column. */
const FORMATS = [...plainTextFormats(SUPPRESSED_HEADERS.length - 1), 'yyyy-mm-dd hh:mm:ss'];

function timeOf(cell: unknown): number | null {
  if (Object.prototype.toString.call(cell) === '[object Date]') return (cell as Date).getTime();
  const text = String(cell ?? '').trim();
  if (text === '') return null;
  const time = new Date(text).getTime();
  return Number.isFinite(time) ? time : null;
}

export function createSuppressionList(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): SuppressionList {
  return {
    read(): SuppressedEntry[] {
      // No sheet yet (Set up not run since this version): nobody can have added a line, so nothing is suppressed.
      const sheet = spreadsheet.getSheetByName(SHEETS.suppressed);
      if (sheet === null) return [];
      // The header with the lines, in one read (-1: up to the last row and column with data, as config-store.ts reads
      // Config); columns by name, so a person who moves one reads the same.
      let values: unknown[][];
      try {
        values = sheet.getSheetValues(1, 1, -1, -1);
      } catch {
        values = sheet.getDataRange().getValues();
      }
      if (values.length < 2) return [];
      const header = values[0].map((cell) => String(cell ?? '').trim().toLowerCase());
      const at = (cells: unknown[], name: (typeof SUPPRESSED_HEADERS)[number]) => {
        const column = header.indexOf(name);
        return column < 0 ? '' : cells[column];
      };
      return values.slice(1).map((cells) => ({
        address: String(at(cells, 'address') ?? ''),
        reason: String(at(cells, 'reason') ?? ''),
        addedBy: String(at(cells, 'added_by') ?? ''),
        addedAt: timeOf(at(cells, 'added_at')),
      }));
    },
    add(entries) {
      if (entries.length === 0) return;
      const sheet = requireSheet(spreadsheet, SHEETS.suppressed);
      appendRows(
        sheet,
        entries.map((entry) => [entry.address, entry.reason, entry.addedBy, entry.addedAt === null ? '' : new Date(entry.addedAt)]),
        FORMATS,
      );
    },
  };
}
