// Host handlers for SpreadsheetApp, Spreadsheet and Sheet (the container Ui is in ui.mjs).
import { GasError } from '../errors.mjs';
import { parseA1 } from '../spreadsheet-model.mjs';
import { showToast } from './ui.mjs';
import { makeRange, protect, rangeFromArgs, ref, sheetOf } from './range.mjs';
import { deleteRowsAt, insertRowsAt } from '../sheet-rows.mjs';

const ssRef = (x) => ref('Spreadsheet', { id: x.host.ss.id });
const sheetRef = (sh) => ref('Sheet', { sid: sh.id });

function open(x) { x.exec.spreadsheetOpened = true; return ssRef(x); }

/** The Spreadsheet methods that take 'Sheet!A1' notation resolve the sheet part first. */
function rangeByA1(x, a1) {
  const s = String(a1), bang = s.lastIndexOf('!');
  let sh = activeSheet(x);
  if (bang >= 0) {
    const name = s.slice(0, bang).replace(/^'(.*)'$/, '$1').replace(/''/g, "'");
    sh = x.host.ss.byName(name);
    if (!sh) throw new GasError('Range not found');
  }
  return ref('Range', parseA1(s.slice(bang + 1), sh));
}

function activeSheet(x) {
  if (x.st.activeRange) return sheetOf(x, x.st.activeRange.sid);
  return x.host.ss.byId(x.st.activeSheetId) || x.host.ss.sheets[0];
}

/**
 * The selected ranges; a later Range.activate() replaces the selection with its one range. "Returns the list of active
 * ranges in the active sheet or null if there are no active ranges"; getActiveRange is the last selected one
 * (https://developers.google.com/apps-script/reference/spreadsheet/spreadsheet#getactiverangelist).
 */
function activeRangeList(x) {
  const { activeRange, activeRangeList: list } = x.st;
  if (!activeRange) return null;
  const ranges = list && list[list.length - 1] === activeRange ? list : [activeRange];
  return ref('RangeList', { ranges: ranges.map((h) => ({ ...h })) });
}

function protectionsOf(sheets, type) {
  const want = type ? String(type) : 'RANGE';
  const out = [];
  for (const sh of sheets) for (const p of sh.protections) if (p.type === want) out.push(ref('Protection', { sid: sh.id, pid: p.pid }));
  return out;
}

function deleteRows(x, sh, start, n) {
  if (start < 1 || start + n - 1 > sh.maxRows) throw new GasError('Those rows are out of bounds.');
  if (n >= sh.maxRows - sh.frozenRows && start > sh.frozenRows) throw new GasError('Sorry, it is not possible to delete all non-frozen rows.');
  deleteRowsAt(sh, start, n);
}

/** Sheet.deleteColumns(columnPosition, howMany) (https://developers.google.com/apps-script/reference/spreadsheet/sheet#deleteColumns(Integer,Integer)). */
function deleteColumns(sh, start, n) {
  if (!(start >= 1) || !(n >= 1) || start + n - 1 > sh.maxCols) throw new GasError('Those columns are out of bounds.');
  if (n >= sh.maxCols - sh.frozenCols && start > sh.frozenCols) throw new GasError('Sorry, it is not possible to delete all non-frozen columns.');
  sh.spliceColumns(start - 1, n);
}

/**
 * Sheet.insertColumnsAfter(afterPosition, howMany) (https://developers.google.com/apps-script/reference/spreadsheet/sheet#insertColumnsAfter(Integer,Integer)):
 * new empty grid columns. Only past the last grid column is modelled (what Set up does to a sheet it trimmed, before a
 * new header); columns inserted inside the grid would move cells, formats and ranges, and are refused here rather than
 * modelled wrong.
 */
function insertColumnsAfter(sh, after, n) {
  if (!Number.isInteger(after) || !Number.isInteger(n) || after < 1 || after > sh.maxCols || n < 1) throw new GasError('Those columns are out of bounds.');
  if (after !== sh.maxCols) throw new GasError('insertColumnsAfter inside the grid is not modelled by the local runtime (only after the last column).');
  sh.grow(sh.maxRows, sh.maxCols + n);
}

function insertRows(sh, before, n) {
  if (before < 1 || before > sh.maxRows + 1) throw new GasError('Those rows are out of bounds.');
  insertRowsAt(sh, before, n);
}

/**
 * The container, or null where the `activeSpreadsheet` world (worlds.mjs) says a web-app call or a clock trigger has
 * no active spreadsheet: getActive() "Returns the currently active spreadsheet, or null if there is none"
 * (https://developers.google.com/apps-script/reference/spreadsheet/spreadsheet-app#getActive()).
 */
function activeSpreadsheet(x) {
  // kind 'trigger' is a time-driven run (host.tick); on-edit and on-change runs are kind 'edit'.
  const outsideUi = x.exec.kind === 'webapp' || x.exec.kind === 'trigger';
  if (outsideUi && x.host.worlds.activeSpreadsheet === 'none-outside-ui') return null;
  return open(x);
}

const NOOP_SHEET = ['setColumnWidth', 'setColumnWidths', 'autoResizeColumns', 'autoResizeColumn', 'setTabColor', 'hideColumns', 'showColumns', 'setRowHeight', 'setRowHeights', 'hideSheet', 'showSheet'];

export const spreadsheetHandlers = {
  SpreadsheetApp: {
    openById: (x, h, [id]) => {
      if (String(id) !== x.host.ss.id) throw new GasError('Unexpected error while getting the method or property openById on object SpreadsheetApp.');
      return open(x);
    },
    openByUrl: (x, h, [url]) => {
      if (!String(url).includes(`/d/${x.host.ss.id}`)) throw new GasError('Unexpected error while getting the method or property openByUrl on object SpreadsheetApp.');
      return open(x);
    },
    getActiveSpreadsheet: (x) => activeSpreadsheet(x),
    getActive: (x) => activeSpreadsheet(x),
    getActiveSheet: (x) => sheetRef(activeSheet(x)),
    getActiveRange: (x) => (x.st.activeRange ? ref('Range', x.st.activeRange) : null),
    getActiveRangeList: (x) => activeRangeList(x),
    flush: () => undefined, // writes apply at once in the host, so flush has nothing left to commit
  },
  Spreadsheet: {
    getName: (x) => x.host.ss.name,
    rename: (x, h, [n]) => { x.host.ss.name = String(n); },
    getSheetByName: (x, h, [name]) => { const sh = x.host.ss.byName(String(name)); return sh ? sheetRef(sh) : null; },
    getSheetById: (x, h, [sid]) => { const sh = x.host.ss.byId(Number(sid)); return sh ? sheetRef(sh) : null; },
    getSheets: (x) => x.host.ss.sheets.map(sheetRef),
    getNumSheets: (x) => x.host.ss.sheets.length,
    insertSheet: (x, h, a) => {
      const name = typeof a[0] === 'string' ? a[0] : `Sheet${x.host.ss.sheets.length + 1}`;
      const index = typeof a[0] === 'number' ? a[0] : a[1];
      return sheetRef(x.host.ss.insert(name, index));
    },
    deleteSheet: (x, h, [s]) => {
      if (x.host.ss.sheets.length === 1) throw new GasError("You can't remove all the sheets in a document.");
      x.host.ss.sheets = x.host.ss.sheets.filter((sh) => sh.id !== s.h.sid);
    },
    getActiveSheet: (x) => sheetRef(activeSheet(x)),
    setActiveSheet: (x, h, [s]) => { x.st.activeSheetId = s.h.sid; return s; },
    getActiveRange: (x) => (x.st.activeRange ? ref('Range', x.st.activeRange) : null),
    getActiveRangeList: (x) => activeRangeList(x),
    getRange: (x, h, [a1]) => rangeByA1(x, a1),
    getSpreadsheetTimeZone: (x) => x.host.ss.timeZone,
    getProtections: (x, h, [type]) => protectionsOf(x.host.ss.sheets, type),
    toast: (x, h, a) => showToast(x, a),
  },
  Sheet: {
    getName: (x, h) => sheetOf(x, h.sid).name,
    setName: (x, h, [name]) => {
      const other = x.host.ss.byName(String(name));
      if (other && other.id !== h.sid) throw new GasError(`A sheet with the name "${name}" already exists. Please enter another name.`);
      sheetOf(x, h.sid).name = String(name);
    },
    getIndex: (x, h) => x.host.ss.sheets.findIndex((s) => s.id === h.sid) + 1,
    getParent: (x) => ssRef(x),
    getRange: (x, h, a) => ref('Range', rangeFromArgs(sheetOf(x, h.sid), a)),
    getLastRow: (x, h) => sheetOf(x, h.sid).lastRow(),
    getLastColumn: (x, h) => sheetOf(x, h.sid).lastColumn(),
    getMaxRows: (x, h) => sheetOf(x, h.sid).maxRows,
    getMaxColumns: (x, h) => sheetOf(x, h.sid).maxCols,
    getDataRange: (x, h) => { const sh = sheetOf(x, h.sid); return ref('Range', makeRange(sh, 1, 1, Math.max(1, sh.lastRow()), Math.max(1, sh.lastColumn()))); },
    getSheetValues: (x, h, [r, c, nr, nc]) => {
      const sh = sheetOf(x, h.sid);
      const rr = makeRange(sh, r, c, nr === -1 ? sh.lastRow() - r + 1 : nr, nc === -1 ? sh.lastColumn() - c + 1 : nc);
      return x.host.handlers.Range.getValues(x, rr);
    },
    appendRow: (x, h, [row]) => {
      if (!Array.isArray(row)) throw new GasError("The parameters (String) don't match the method signature for SpreadsheetApp.Sheet.appendRow.");
      const sh = sheetOf(x, h.sid), r = sh.lastRow() + 1;
      sh.grow(r, row.length);
      x.host.handlers.Range.setValues(x, { sid: sh.id, r, c: 1, nr: 1, nc: row.length }, [[row]]);
    },
    deleteRow: (x, h, [r]) => deleteRows(x, sheetOf(x, h.sid), r, 1),
    deleteRows: (x, h, [r, n]) => deleteRows(x, sheetOf(x, h.sid), r, n),
    deleteColumns: (x, h, [c, n]) => deleteColumns(sheetOf(x, h.sid), Number(c), Number(n)),
    deleteColumn: (x, h, [c]) => deleteColumns(sheetOf(x, h.sid), Number(c), 1),
    insertColumnsAfter: (x, h, [after, n]) => insertColumnsAfter(sheetOf(x, h.sid), Number(after), Number(n)),
    insertRowsAfter: (x, h, [after, n]) => insertRows(sheetOf(x, h.sid), after + 1, n),
    insertRowAfter: (x, h, [after]) => insertRows(sheetOf(x, h.sid), after + 1, 1),
    insertRowsBefore: (x, h, [before, n]) => insertRows(sheetOf(x, h.sid), before, n),
    insertRowBefore: (x, h, [before]) => insertRows(sheetOf(x, h.sid), before, 1),
    setFrozenRows: (x, h, [n]) => { sheetOf(x, h.sid).frozenRows = n; },
    getFrozenRows: (x, h) => sheetOf(x, h.sid).frozenRows,
    setFrozenColumns: (x, h, [n]) => { sheetOf(x, h.sid).frozenCols = n; },
    getFrozenColumns: (x, h) => sheetOf(x, h.sid).frozenCols,
    protect: (x, h) => protect(sheetOf(x, h.sid), 'SHEET', null, x.st.userEmail),
    getProtections: (x, h, [type]) => protectionsOf([sheetOf(x, h.sid)], type),
    setConditionalFormatRules: (x, h, [rules]) => { sheetOf(x, h.sid).cfRules = rules.map((r) => r.h); },
    getConditionalFormatRules: (x, h) => sheetOf(x, h.sid).cfRules.map((r) => ref('ConditionalFormatRule', r)),
    clear: (x, h) => { const sh = sheetOf(x, h.sid); sh.v = []; sh.f = []; sh.nf = []; sh.notes = []; },
    clearContents: (x, h) => { const sh = sheetOf(x, h.sid); sh.v = []; sh.f = []; },
    activate: (x, h) => { x.st.activeSheetId = h.sid; x.st.activeRange = null; },
    ...Object.fromEntries(NOOP_SHEET.map((m) => [m, () => undefined])),
  },
};
