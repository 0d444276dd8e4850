// A few Spreadsheet/Sheet/Range methods over arrays, with a hook before every call: staff acting between two service calls.

type Cell = unknown;

export class FakeSheet {
  values: Cell[][];
  notes: string[][];
  calls: string[] = [];
  /** Runs before each call with its name: a person sorting or inserting rows between two of formqueue's calls. */
  before: ((call: string, sheet: FakeSheet) => void) | null = null;
  constructor(public name: string, header: string[], rows: Cell[][] = []) {
    this.values = [header, ...rows.map((row) => header.map((_, i) => row[i] ?? ''))];
    this.notes = this.values.map((row) => row.map(() => ''));
  }
  private call(name: string): void {
    this.calls.push(name);
    this.before?.(name, this);
  }
  /** Staff sort or insert/delete rows: data rows (row 2 on) reordered, their notes with them. */
  reorder(order: (rows: { cells: Cell[]; notes: string[] }[]) => { cells: Cell[]; notes: string[] }[]): void {
    const rows = order(this.values.slice(1).map((cells, i) => ({ cells, notes: this.notes[i + 1] })));
    this.values = [this.values[0], ...rows.map((row) => row.cells)];
    this.notes = [this.notes[0], ...rows.map((row) => row.notes)];
  }
  column(header: string): Cell[] {
    const at = this.values[0].indexOf(header);
    return this.values.slice(1).map((row) => row[at]);
  }
  getName(): string {
    return this.name;
  }
  getLastRow(): number {
    this.call('getLastRow');
    return this.values.length;
  }
  getLastColumn(): number {
    this.call('getLastColumn');
    return this.values[0].length;
  }
  getMaxRows(): number {
    this.call('getMaxRows');
    return this.values.length + 100;
  }
  appendRow(row: Cell[]): void {
    this.call('appendRow');
    this.values.push(this.values[0].map((_, i) => row[i] ?? ''));
    this.notes.push(this.values[0].map(() => ''));
  }
  deleteRows(first: number, count: number): void {
    this.call('deleteRows');
    this.values.splice(first - 1, count);
    this.notes.splice(first - 1, count);
  }
  insertRowsAfter(): void {
    this.call('insertRowsAfter');
  }
  setFrozenRows(): void {}
  /** By numbers, or in A1 as whole rows ("1:1"), which span every column of the sheet as in Sheets. */
  getRange(rowOrA1: number | string, column = 1, rows = 1, columns = 1) {
    this.call('getRange');
    let row = typeof rowOrA1 === 'number' ? rowOrA1 : 0;
    if (typeof rowOrA1 === 'string') {
      const whole = /^(\d+):(\d+)$/.exec(rowOrA1);
      if (!whole) throw new Error(`FakeSheet.getRange: only whole rows ("1:1") are emulated in A1, not ${rowOrA1}`);
      row = Number(whole[1]);
      rows = Number(whole[2]) - row + 1;
      columns = this.values[0].length;
    }
    const box = <T>(grid: T[][], blank: T) =>
      Array.from({ length: rows }, (_, r) => Array.from({ length: columns }, (_, c) => grid[row - 1 + r]?.[column - 1 + c] ?? blank));
    const write = <T>(grid: T[][], blank: T, cells: T[][]) =>
      cells.forEach((line, r) =>
        line.forEach((value, c) => {
          while (grid.length < row + r) grid.push(this.values[0].map(() => blank));
          grid[row - 1 + r][column - 1 + c] = value;
        }),
      );
    return {
      getValues: () => (this.call('getValues'), box(this.values, '' as Cell)),
      setValues: (cells: Cell[][]) => (this.call('setValues'), write(this.values, '' as Cell, cells)),
      getNotes: () => (this.call('getNotes'), box(this.notes, '')),
      setNotes: (cells: string[][]) => (this.call('setNotes'), write(this.notes, '', cells)),
      getNumberFormats: () => box([] as string[][], '@'),
      setNumberFormats: () => undefined,
      createTextFinder: (text: string) => {
        const finder = {
          matchEntireCell: () => finder,
          matchCase: () => finder,
          findAll: () => {
            this.call('findAll');
            const found: { getRow: () => number }[] = [];
            for (let r = 0; r < rows; r++) {
              for (let c = 0; c < columns; c++) {
                const at = row + r;
                if (String(this.values[at - 1]?.[column - 1 + c] ?? '') === text) found.push({ getRow: () => at });
              }
            }
            return found;
          },
        };
        return finder;
      },
    };
  }
}

export class FakeSpreadsheet {
  constructor(public sheets: FakeSheet[]) {}
  getSheetByName(name: string): FakeSheet | null {
    return this.sheets.find((sheet) => sheet.name === name) ?? null;
  }
  insertSheet(name: string): FakeSheet {
    const sheet = new FakeSheet(name, []);
    this.sheets.push(sheet);
    return sheet;
  }
  /** As the Apps Script type, for the adapters under test: only the methods above are ever called. */
  asApps(): GoogleAppsScript.Spreadsheet.Spreadsheet {
    return this as unknown as GoogleAppsScript.Spreadsheet.Spreadsheet;
  }
}
