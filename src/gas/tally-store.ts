// TallyStore over the Tally sheet: one appendRow per rejection counted, read back whole, emptied by processQueue's fold.
import { isRejectionKind } from '../core/domain/typeform/rejection-kinds';
import type { TallyRow, TallyStore } from '../core/domain/sheet-ports';
import { SHEETS, TALLY_HEADERS } from '../core/domain/queue/sheet-names';
import { appendRows } from './sheet-append';
import { requireSheet } from './spreadsheet';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** day as text (Sheets would read "2026-12-01" as a date), bytes a number, id and kind text. */
const TALLY_FORMATS = ['@', '0', '@', '@'].slice(0, TALLY_HEADERS.length);
/** The columns of a Tally made before the kind column: day, bytes, id. */
const COLUMNS_BEFORE_KIND = 3;

/**
 * A Tally made before the kind column has only three grid columns (Set up trims the rest, and adds the column at its
 * next run), so a range of four is refused there. Only after such a refusal is the grid measured: a Tally with its
 * columns costs no call more, and one without keeps counting, without kinds, until Set up adds it (rows without a
 * kind fold as every row did before kinds were kept).
 */
function withOrWithoutKind<T>(sheet: Sheet, withKind: () => T, withoutKind: () => T): T {
  try {
    return withKind();
  } catch (error) {
    if (sheet.getMaxColumns() > COLUMNS_BEFORE_KIND) throw error;
    return withoutKind();
  }
}

export function createTallyStore(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet): TallyStore {
  let sheet: Sheet | null = null;
  const tally = () => (sheet ??= requireSheet(spreadsheet, SHEETS.tally));
  return {
    append(entry) {
      // appendRow: atomic whoever runs (docs/platform.md#locks-and-flush); flushed, so the read-back of every other
      // execution sees it from now on.
      const row = [entry.day, entry.bytes, Utilities.getUuid(), entry.kind ?? ''];
      withOrWithoutKind(
        tally(),
        () => appendRows(tally(), [row], TALLY_FORMATS),
        () => appendRows(tally(), [row.slice(0, COLUMNS_BEFORE_KIND)], TALLY_FORMATS.slice(0, COLUMNS_BEFORE_KIND)),
      );
      SpreadsheetApp.flush();
    },
    read() {
      const last = tally().getLastRow();
      if (last < 2) return [];
      const rows: TallyRow[] = [];
      const read = (columns: number) => () => tally().getRange(2, 1, last - 1, columns).getValues();
      for (const [day, bytes, id, kind] of withOrWithoutKind(tally(), read(TALLY_HEADERS.length), read(COLUMNS_BEFORE_KIND))) {
        // A row the fold deleted between getLastRow and the read comes back blank: it is in the totals already.
        if (String(id) === '') continue;
        const known = String(kind ?? '');
        rows.push({ day: String(day), bytes: Number(bytes) || 0, id: String(id), ...(isRejectionKind(known) ? { kind: known } : {}) });
      }
      return rows;
    },
    deleteFirst(count) {
      if (count > 0) tally().deleteRows(2, count);
    },
  };
}
