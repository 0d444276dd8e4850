// The on-edit check of the Config sheet: each edited cell judged by core/domain/config/config-check.ts, its problem noted on the cell (and the note cleared once fixed).
import { configCellProblem } from '../core/domain/config/config-check';
import { SHEETS } from '../core/domain/queue/sheet-names';

/** Our notes start with this, so a note a person wrote on a Config cell is never cleared by us. */
export const CONFIG_NOTE_PREFIX = 'formqueue: ';

/**
 * Notes each edited Config cell whose value formqueue would misread (a yes/no that is neither, an address, a model
 * id, a placeholder), as the Queue's guard notes a refused status; the value is left as typed (the run reports it and
 * reads it the safe way: config-check.ts). Returns how many of the edited cells have a problem.
 */
export function guardConfigEdit(e: GoogleAppsScript.Events.SheetsOnEdit): number {
  const range = e.range;
  const sheet = range.getSheet();
  if (sheet.getName() !== SHEETS.config) return 0;
  const firstRow = Math.max(range.getRow(), 2); // the header row is not a form's setting
  const lastRow = range.getRow() + range.getNumRows() - 1;
  if (lastRow < firstRow) return 0;
  const firstCol = range.getColumn();
  const width = range.getNumColumns();
  const header = sheet.getRange(1, firstCol, 1, width).getValues()[0].map((cell) => String(cell));
  const cells = sheet.getRange(firstRow, firstCol, lastRow - firstRow + 1, width);
  const values = cells.getValues();
  const before = cells.getNotes();
  let problems = 0;
  const after = values.map((row, i) =>
    row.map((value, j) => {
      const problem = configCellProblem(header[j], value);
      if (problem !== null) {
        problems++;
        return `${CONFIG_NOTE_PREFIX}${problem}.`;
      }
      // A fixed cell loses our note; a person's own note stays.
      return before[i][j].startsWith(CONFIG_NOTE_PREFIX) ? '' : before[i][j];
    }),
  );
  if (after.some((row, i) => row.some((note, j) => note !== before[i][j]))) cells.setNotes(after);
  return problems;
}
