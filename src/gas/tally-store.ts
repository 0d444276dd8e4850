// TallyStore over the Tally sheet: one appendRow per rejection counted, read back whole, emptied by processQueue's fold.
import type { TallyRow, TallyStore } from '../core/ports';
import { SHEETS, TALLY_HEADERS } from '../core/sheet-names';
import { appendRows } from './sheet-append';
import { requireSheet } from './spreadsheet';

/** day as text (Sheets would read "2026-12-01" as a date), bytes a number, id text. */
const TALLY_FORMATS = ['@', '0', '@'].slice(0, TALLY_HEADERS.length);

export function createTallyStore(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): TallyStore {
  let sheet: GoogleAppsScript.Spreadsheet.Sheet | null = null;
  const tally = () => (sheet ??= requireSheet(spreadsheet, SHEETS.tally));
  return {
    append(entry) {
      // appendRow: atomic whoever runs (docs/platform.md#locks-and-flush); flushed, so the read-back of every other
      // execution sees it from now on.
      appendRows(tally(), [[entry.day, entry.bytes, Utilities.getUuid()]], TALLY_FORMATS);
      SpreadsheetApp.flush();
    },
    read() {
      const last = tally().getLastRow();
      if (last < 2) return [];
      const rows: TallyRow[] = [];
      for (const [day, bytes, id] of tally().getRange(2, 1, last - 1, TALLY_HEADERS.length).getValues()) {
        // A row the fold deleted between getLastRow and the read comes back blank: it is in the totals already.
        if (String(id) === '') continue;
        rows.push({ day: String(day), bytes: Number(bytes) || 0, id: String(id) });
      }
      return rows;
    },
    deleteFirst(count) {
      if (count > 0) tally().deleteRows(2, count);
    },
  };
}
