// Contract tests for what staff do to a sheet (host.edit ops) and the installable triggers Google fires for each.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeHost, until } from './helpers';

let host: any;
beforeEach(async () => {
  host = makeHost('edits');
  const installed = await host.run('install');
  expect(installed.value).toEqual([['onEditProbe', 'ON_EDIT', 'SPREADSHEETS'], ['onChangeProbe', 'ON_CHANGE', 'SPREADSHEETS']]);
  expect((await host.run('decorate', ['Q'])).status).toBe('ok');
});
afterEach(async () => { await host?.dispose(); });
const ANA = 'ana@example.com';
const events = async (edit: Record<string, unknown>) => {
  const runs = await host.edit({ sheet: 'Q', user: ANA, ...edit });
  for (const r of runs) if (r.status !== 'ok') throw new Error(`${r.functionName}: ${r.error?.message}`);
  return runs.map((r: any) => r.value);
};
const layout = async () => (await host.run('layout', ['Q'])).value;
const ids = async () => (await layout()).rows.map((r: any) => r.id);

const CHANGE = (changeType: string) => ({ fn: 'change', changeType, hasRange: false, user: ANA, authMode: 'FULL', uid: 'string', source: 'local-spreadsheet' });
const EDIT = { fn: 'edit', sheet: 'Q', user: ANA, authMode: 'FULL', uid: 'string', source: 'local-spreadsheet', hasChangeType: false };

describe('staff edits and the triggers they fire', () => {
  // Event objects: developers.google.com/apps-script/guides/triggers/events (#edit: value/oldValue only for a single
  // cell, oldValue undefined when the cell was empty; #change: changeType, no range). Typing a value fires both
  // on-edit and on-change EDIT (theappsscriptlab.com, "onEdit vs onChange in Google Sheets").
  it('typing into a cell fires on-edit with value and oldValue, and on-change EDIT', async () => {
    expect(await events({ a1: 'A2', value: 'READY' })).toEqual([{ ...EDIT, a1: 'A2', hasValue: true, value: 'READY', hasOld: true, oldValue: 'PENDING' }, CHANGE('EDIT')]);
    expect((await events({ op: 'set', a1: 'C2', value: 'x' }))[0]).toMatchObject({ hasValue: true, value: 'x', hasOld: false });
  });

  // A single-cell paste arrives with neither e.value nor e.oldValue (tanaikech/GetEditType: a directly pasted cell is
  // "OTHER": value and oldValue both null); a pasted block likewise, with e.range the whole block. That is the default
  // reading of the `paste` world switch; worlds.test.ts covers the other (value-only).
  it('a paste (one cell or a block) fires on-edit with its range and no value or oldValue', async () => {
    expect(await events({ op: 'paste', a1: 'A2', values: [['READY']] })).toEqual([{ ...EDIT, a1: 'A2', hasValue: false, hasOld: false }, CHANGE('EDIT')]);
    expect(host.sheetJson('Q').rows[0][0]).toBe('READY');
    expect((await events({ op: 'paste', a1: 'C2', values: [['a', '50%'], ['b', '1,234']] }))[0]).toMatchObject({ a1: 'C2:D3', hasValue: false, hasOld: false });
    expect(host.sheetJson('Q').rows.slice(0, 2).map((r: unknown[]) => r.slice(2))).toEqual([['a', 0.5], ['b', 1234]]); // pasted text is read as typed
  });

  // Clearing (Delete key): one cell arrives with oldValue and no value (GetEditType's REMOVE_VALUE: "value" not in e);
  // a cleared block with neither. Notes, formats and validation stay: Delete clears contents only.
  it('clear empties the contents: one cell keeps oldValue without value; notes and validation stay', async () => {
    expect(await events({ op: 'clear', a1: 'A3' })).toEqual([{ ...EDIT, a1: 'A3', hasValue: false, hasOld: true, oldValue: 'SENT' }, CHANGE('EDIT')]);
    expect((await events({ op: 'clear', a1: 'B2:C3' }))[0]).toMatchObject({ a1: 'B2:C3', hasValue: false, hasOld: false });
    const rows = (await layout()).rows;
    expect([rows[1].status, rows[1].id, rows[1].note, rows[1].dvA]).toEqual(['', '', 'about e2', 'VALUE_IN_LIST']);
  });

  // Inserting or deleting rows is a change, not an edit: on-change INSERT_ROW / REMOVE_ROW, no on-edit (events#change).
  it('insertRows and deleteRows fire on-change INSERT_ROW and REMOVE_ROW only', async () => {
    expect(await events({ op: 'insertRows', before: 3, count: 2 })).toEqual([CHANGE('INSERT_ROW')]);
    expect(await events({ op: 'deleteRows', row: 2, count: 1 })).toEqual([CHANGE('REMOVE_ROW')]);
    expect(await ids()).toEqual(['', '', 'e2', 'e3', 'e4']);
  });

  // Sheets keeps value, note, number format and data validation on the cell, so they travel with the row; ranges
  // grow with rows inserted inside them and new rows take the row above's properties (InsertDimensionRequest
  // inheritFromBefore, developers.google.com/sheets/api/reference/rest/v4/spreadsheets/request).
  it('inserted rows move notes, formats, validations, conditional-format and protected ranges with the rows', async () => {
    await events({ op: 'insertRows', before: 3, count: 2 });
    const after = await layout();
    const e2 = after.rows.find((r: any) => r.id === 'e2');
    expect([e2.row, e2.note, e2.format, e2.dvA, e2.dvB]).toEqual([5, 'about e2', '0.00%', 'VALUE_IN_LIST', 'CHECKBOX']);
    expect(after.rows.map((r: any) => [r.row, r.id, r.dvA, r.dvB])).toEqual([
      [2, 'e1', 'VALUE_IN_LIST', null], [3, '', 'VALUE_IN_LIST', null], [4, '', 'VALUE_IN_LIST', null], [5, 'e2', 'VALUE_IN_LIST', 'CHECKBOX'],
      [6, 'e3', 'VALUE_IN_LIST', null], [7, 'e4', 'VALUE_IN_LIST', null],
    ]);
    expect([after.cf, after.protected, after.frozen]).toEqual([['A2:A7'], ['B2:B7'], 1]);
  });

  it('deleted rows take their decorations with them and ranges shrink', async () => {
    await events({ op: 'deleteRows', row: 3, count: 1 });
    const after = await layout();
    expect(after.rows.map((r: any) => [r.id, r.note, r.format, r.dvB])).toEqual([['e1', '', 'General', null], ['e3', '', 'General', null], ['e4', '', 'General', null]]);
    expect([after.cf, after.protected]).toEqual([['A2:A4'], ['B2:B4']]);
  });

  // Sheet.insertRowsBefore/deleteRow by a script move them the same way (and, being a script, fire no trigger:
  // "Script executions and API requests do not cause triggers to run", guides/triggers#restrictions).
  it('a script inserting and deleting rows moves decorations the same way', async () => {
    expect((await host.run('scriptInsertDelete', ['Q'])).status).toBe('ok');
    const after = await layout();
    expect(after.rows.map((r: any) => [r.id, r.note, r.dvB])).toEqual([['', '', null], ['e2', 'about e2', 'CHECKBOX'], ['e3', '', null], ['e4', '', null]]);
    expect([after.cf, after.protected]).toEqual([['A2:A5'], ['B2:B5']]);
  });

  // "Sort sheet" sorts the rows below the frozen header (support.google.com/docs/answer/3540681); cell properties move
  // with their rows, conditional-format and protected ranges stay. What a sort fires is undocumented: by default this
  // runtime fires on-edit with the sorted range (like a paste of the block) and on-change OTHER (unverified, see
  // staff-edits.mjs); the `sort` world switch's other readings are in worlds.test.ts.
  it('sort by a header name sorts the rows under the frozen header with their decorations, and fires on-edit and on-change OTHER', async () => {
    expect(await events({ op: 'sort', column: 'status', ascending: true })).toEqual([{ ...EDIT, a1: 'A2:D5', hasValue: false, hasOld: false }, CHANGE('OTHER')]);
    const after = await layout();
    expect(after.rows.map((r: any) => [r.status, r.id, r.note, r.format, r.dvB])).toEqual([
      ['FAILED', 'e4', '', 'General', null], ['PENDING', 'e1', '', 'General', null], ['READY', 'e3', '', 'General', null], ['SENT', 'e2', 'about e2', '0.00%', 'CHECKBOX'],
    ]);
    expect([after.cf, after.protected]).toEqual([['A2:A5'], ['B2:B5']]);
    await events({ op: 'sort', column: 'id', ascending: false });
    expect(await ids()).toEqual(['e4', 'e3', 'e2', 'e1']);
  });

  // Ctrl+C / Ctrl+V of a whole row: a value edit of the pasted block (on-edit with no value, on-change EDIT), every
  // cell's value, note and number format carried exactly, not re-read as typed input.
  it('copy of a whole row over another carries its values, notes and formats exactly, and fires on-edit and on-change EDIT', async () => {
    expect(await events({ op: 'copy', from: '3:3', a1: 'A5' })).toEqual([{ ...EDIT, a1: 'A5:Z5', hasValue: false, hasOld: false }, CHANGE('EDIT')]);
    const after = await layout();
    expect(after.rows.map((r: any) => [r.status, r.id, r.note, r.format])).toEqual([
      ['PENDING', 'e1', '', 'General'], ['SENT', 'e2', 'about e2', '0.00%'], ['READY', 'e3', '', 'General'], ['SENT', 'e2', 'about e2', '0.00%'],
    ]);
    expect(host.sheetJson('Q').rows[3][3]).toBe(0.2);
  });

  // Inserting a column is a change, not an edit (events#change: INSERT_COLUMN). Cells to its right move with their
  // properties; a range holding the column before it grows over it, one to its right shifts (as rows do).
  it('insertColumns moves the cells to the right, grows the ranges it lands in, and fires on-change INSERT_COLUMN only', async () => {
    expect(await events({ op: 'insertColumns', before: 3, count: 1 })).toEqual([CHANGE('INSERT_COLUMN')]);
    const sheet = host.sheetJson('Q');
    expect(sheet.header).toEqual(['status', 'id', '', 'note', 'share']);
    expect(sheet.rows[1]).toEqual(['SENT', 'e2', '', 'n2', 0.2]);
    expect((await host.run('layoutAt', ['Q', 4])).value).toMatchObject({ note: 'about e2', protected: ['B2:C5'] });
    expect((await host.run('layoutAt', ['Q', 5])).value).toMatchObject({ format: '0.00%' });
  });

  // A renamed sheet keeps everything; code that looks it up by its old name finds nothing (Set up makes a new one).
  it('renameSheet renames the tab, refuses a taken name, and fires on-change OTHER only', async () => {
    expect(await events({ op: 'renameSheet', name: 'Q (old)' })).toEqual([CHANGE('OTHER')]);
    expect(host.sheetNames()).toContain('Q (old)');
    expect(host.sheetJson('Q')).toBeNull();
    expect(host.sheetJson('Q (old)').rows[0][1]).toBe('e1');
    await expect(host.edit({ sheet: 'Q (old)', op: 'renameSheet', name: 'Sheet1' })).rejects.toThrow(/already exists/);
  });

  // Range.sort(sortSpecObj) sorts only the range's cells (developers.google.com/apps-script/reference/spreadsheet/range#sortsortspecobj).
  it('Range.sort sorts only the cells of the range, by the sheet column given', async () => {
    const run = await host.run('sortBlock', ['Q', 'B2:B5', { column: 2, ascending: false }]);
    expect(run.value).toEqual([['e4'], ['e3'], ['e2'], ['e1']]);
    expect(host.sheetJson('Q').rows.map((r: unknown[]) => r[0])).toEqual(['PENDING', 'SENT', 'READY', 'FAILED']);
  });

  it('refuses what Sheets refuses: a value outside a rejecting dropdown (typed or pasted), an unknown column, out-of-bounds rows', async () => {
    await expect(host.edit({ sheet: 'Q', a1: 'A2', value: 'NOPE' })).rejects.toThrow(/violates the data validation rules/);
    await expect(host.edit({ sheet: 'Q', op: 'paste', a1: 'A2', values: [['READY'], ['NOPE']] })).rejects.toThrow(/cell A3 violates/);
    expect(host.sheetJson('Q').rows[0][0]).toBe('PENDING'); // a refused paste writes nothing
    await expect(host.edit({ sheet: 'Q', op: 'sort', column: 'nope' })).rejects.toThrow(/no column headed "nope"/);
    await expect(host.edit({ sheet: 'Q', op: 'deleteRows', row: 999, count: 5 })).rejects.toThrow('Those rows are out of bounds.');
    await expect(host.edit({ sheet: 'Q', op: 'fold' })).rejects.toThrow(/unknown op "fold"/);
  });

  // Staff act while executions run: a running execution's next service call sees the sheet as the edit left it.
  it('an edit lands while another execution is running: its reads see the sheet before and after', async () => {
    const watching = host.run('watch', ['Q', 'A2']);
    await until(() => [...host.live.values()].some((st: any) => st.rec.functionName === 'watch' && (st.rec.calls['Range.getValue'] ?? 0) > 0), 'the first read');
    await host.edit({ sheet: 'Q', op: 'sort', column: 'status', user: ANA });
    expect((await watching).value).toEqual(['PENDING', 'FAILED']);
  });
});
