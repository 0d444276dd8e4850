// Contract tests for the emulated spreadsheet: Sheets' input rules, limits, and what reads back.
import { afterEach, describe, expect, it } from 'vitest';
import { makeHost } from './helpers';

let host: any;
afterEach(async () => { await host?.dispose(); });
const ok = async (fn: string, args: unknown[] = [], opts: object = {}) => {
  const e = await host.run(fn, args, opts);
  if (e.status !== 'ok') throw new Error(`${fn}: ${e.status} ${e.error?.message}`);
  return e.value;
};

describe('Spreadsheet semantics', () => {
  // Sheets (docs/platform.md#sheets-input): '=' starts a formula, a leading "'" keeps text (quote dropped), numeric strings become numbers.
  it("formulas, quote prefix and numeric strings are entered as Sheets enters them", async () => {
    host = makeHost('sheets');
    const v = await ok('writeCells', ['Q', 'A1:E1', [['=1+2', "'=SUM(A1)", '42', '+40700022222', 'hello']]]);
    expect(v).toEqual([['', '=SUM(A1)', 42, 40700022222, 'hello']]);
    const json = host.sheetJson('Q');
    expect(json.header).toEqual(['', '=SUM(A1)', 42, 40700022222, 'hello']);
    await ok('writeCells', ['Q', 'A2:B2', [['="lit"', '=HYPERLINK("https://x","label")']]]);
    expect(host.sheetJson('Q').formulas[0]).toEqual(['="lit"', '=HYPERLINK("https://x","label")', '', '', '']);
    expect(host.sheetJson('Q').rows[0].slice(0, 2)).toEqual(['lit', 'label']);
  });

  // docs/platform.md#sheets-input: a plain-text ('@') cell keeps '=…', '+…' and numeric strings verbatim; whole-column formats cover rows added later.
  it("a plain-text '@' column keeps input verbatim, including rows appended after the format was set", async () => {
    host = makeHost('sheets');
    const r = await ok('writePlainText', ['P', ['=HYPERLINK("evil")', "'quoted", '007']]);
    expect(r.values).toEqual(['=HYPERLINK("evil")', 'quoted', 7]);
    expect(r.formulas).toEqual(['', '', '']);
    expect(r.formats).toEqual(['@', 'General', 'General']);
  });

  // Sheets' cell limit: "Your input contains more than the maximum of 50000 characters in a single cell."
  it('a cell over 50,000 characters is refused with Sheets\' error and nothing is written', async () => {
    host = makeHost('sheets');
    expect(await ok('tooLong', ['L'])).toEqual({ text: 'Exception: Your input contains more than the maximum of 50000 characters in a single cell.', a1: '' });
  });

  // Sheets: dates round-trip as Date (instanceof Date inside the script); empty cells read as ''.
  it('dates round-trip as Date inside the script and empty cells read as empty strings', async () => {
    host = makeHost('sheets');
    expect(await ok('dates', ['D'])).toEqual({ isDate: true, same: true, empty: '', emptyType: 'string', display: '2/17/2026 10:11:22' });
    expect(host.sheetJson('D').header).toEqual(['2026-02-17T10:11:22.000Z']);
  });

  // [GAS-SS TextFinder]: case-insensitive unless matchCase; matchEntireCell compares the whole cell; findNext walks row by row.
  it('TextFinder matchEntireCell finds whole cells, case-insensitively unless matchCase', async () => {
    host = makeHost('sheets');
    host.loadSheet('F', ['id', 'note'], [['ev-1', 'EV-1 again'], ['EV-1', 'x'], ['ev-10', 'ev-1']]);
    expect(await ok('finder', ['F', 'ev-1', true, false])).toEqual({ all: ['A2', 'A3', 'B4'], seq: ['A2', 'A3', 'B4'] });
    expect(await ok('finder', ['F', 'ev-1', true, true])).toEqual({ all: ['A2', 'B4'], seq: ['A2', 'B4'] });
    expect((await ok('finder', ['F', 'ev-1', false, false])).all).toEqual(['A2', 'B2', 'A3', 'A4', 'B4']);
  });

  // [GAS-SS] data validation, conditional format rules, protection, frozen rows and notes are recorded and read back.
  it('data validation, conditional formats, protection, frozen rows and notes read back', async () => {
    host = makeHost('sheets');
    expect(await ok('decorate', ['Queue'])).toEqual({
      criteria: 'VALUE_IN_LIST', values: [['PENDING', 'SENT'], true], allowInvalid: false, outside: null,
      cf: 1, cfRange: 'A2:A', cfValues: ['SENT'], cfBg: '#b7e1cd', prot: 1, warn: true, desc: 'ids', protA1: 'B:B', frozen: 1, note: 'hello', sheetId: 'number',
    });
  });

  // Sheets' messages for shape and bounds errors; another spreadsheet cannot be opened; no UI outside a container context.
  it('shape, bounds, foreign-spreadsheet and UI-context errors carry Apps Script messages', async () => {
    host = makeHost('sheets');
    expect(await ok('shapes', ['S'], { kind: 'trigger' })).toEqual([
      'The number of rows in the data does not match the number of rows in the range. The data has 1 but the range has 2.',
      'The starting row of the range is too small.',
      'Unexpected error while getting the method or property openById on object SpreadsheetApp.',
      'Cannot call SpreadsheetApp.getUi() from this context.',
    ]);
  });

  // [GAS-SS] getDataRange/getLastRow after deleteRows; whole-column A1 ('B:B') and open-ended ('A2:C') ranges.
  it('appendRow, deleteRows, getDataRange and whole-column ranges agree with Sheets', async () => {
    host = makeHost('sheets');
    expect(await ok('layout', ['R'])).toEqual({ data: [['h1', 'h2'], [3, 'c']], lastRow: 2, lastCol: 2, maxRows: 998, colA1: 'B:B', colRows: 998, open: 'A2:C' });
  });

  // Sheet.deleteColumns: cells to the right move left, the grid shrinks; out of bounds and "all columns" are refused.
  it('deleteColumns moves the cells to its right and shrinks the grid', async () => {
    host = makeHost('sheets');
    expect(await ok('trimColumns', ['T'])).toEqual({
      row: ['a', 'c', 'd'],
      maxCols: 25,
      lastCol: 3,
      errors: ['Those columns are out of bounds.', 'Sorry, it is not possible to delete all non-frozen columns.'],
    });
  });

  // Sheet.insertColumnsAfter: a range past the grid is refused until columns are inserted after the last one; inside
  // the grid (cells would move) the runtime refuses rather than model it wrong.
  it('insertColumnsAfter the last column widens the grid so a range there can be written', async () => {
    host = makeHost('sheets');
    expect(await ok('widenColumns', ['W'])).toEqual({
      before: 26,
      after: 28,
      row: ['a', 'b'],
      added: 'new',
      errors: [
        'The coordinates of the range are outside the dimensions of the sheet.',
        'Those columns are out of bounds.',
        'insertColumnsAfter inside the grid is not modelled by the local runtime (only after the last column).',
      ],
    });
  });

  it('an unsupported method throws "not emulated: Class.method"', async () => {
    host = makeHost('sheets');
    expect(await ok('notEmulated')).toBe('not emulated: Range.copyTo');
  });

  it('menus are recorded and a menu run sees the active range the host set', async () => {
    host = makeHost('sheets');
    host.loadSheet('Queue', ['status'], [['PENDING']]);
    expect(await ok('menu', [], { kind: 'menu', activeRange: { sheet: 'Queue', a1: 'A2' } })).toBe('Queue!A2');
    expect(host.ui.menus.map((m: any) => [m.caption, m.items.length])).toEqual([['formqueue', 3]]);
  });
});
