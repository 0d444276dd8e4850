// What a person does to a sheet in the Sheets UI (type, paste, copy, clear, sort, insert or delete rows, insert a
// column, rename the sheet) and what Google tells installable triggers about it.
//
// Which triggers fire, and with what:
// - on-edit fires when a person changes values: typing, pasting, clearing; e.range is the edited block; e.value and
//   e.oldValue exist "only if the edited range is a single cell" (developers.google.com/apps-script/guides/triggers/
//   events#edit). A cleared cell arrives with oldValue but no value (tanaikech/GetEditType, GetEditType.js:
//   REMOVE_VALUE). What one pasted cell arrives with Google does not say, and GetEditType lists two shapes: neither
//   value nor oldValue ("OTHER") or a value and no oldValue ("PUT_VALUE"); the `paste` world switch picks one
//   (worlds.mjs). A pasted block arrives with neither, in every world (value/oldValue are for a single cell only).
// - on-change fires for every change with e.changeType one of EDIT, INSERT_ROW, INSERT_COLUMN, REMOVE_ROW,
//   REMOVE_COLUMN, INSERT_GRID, REMOVE_GRID, FORMAT, OTHER, and has no range (same page, #change). Editing a value fires
//   both on-edit and on-change; inserting or deleting rows fires on-change only (theappsscriptlab.com "onEdit vs
//   onChange in Google Sheets", table of actions).
// - A sort moves rows with their data, which fires both on-edit and on-change (theappsscriptlab.com's table: "Move a
//   column or row with data" ✔ ✔): on-edit with the sorted range and no value, like a paste of the block. UNVERIFIED
//   with Google: no Google page covers sorting; the changeType is taken as OTHER (what changes that are not a value
//   edit, a format or a row/column/grid insert or removal report). That is the `sort` world switch's default reading;
//   its others fire on-change only, or nothing (worlds.mjs).
// - Copy and paste of a block (Ctrl+C, Ctrl+V) changes values, so it fires on-edit (the pasted block, no value) and
//   on-change EDIT, like a paste of typed values; inserting a column fires on-change INSERT_COLUMN only (events#change).
// - Renaming a sheet is neither a value edit nor an insert or removal: on-change OTHER, no on-edit. UNVERIFIED with
//   Google (no page names the changeType of a rename), taken as OTHER for the same reason as a sort.
import { a1Of, interpretInput, parseA1, storeEntered } from './spreadsheet-model.mjs';
import { deleteRowsAt, insertColumnsAt, insertRowsAt, sortRowsAt } from './sheet-rows.mjs';
import { resolveWorlds } from './worlds.mjs';


/** A staff action Sheets itself would refuse (an out-of-range row, a value outside a dropdown): the caller's mistake. */
export class EditRefused extends Error {}

const asText = (x) => (typeof x === 'boolean' ? (x ? 'TRUE' : 'FALSE') : x instanceof Date ? x.toISOString() : String(x));
const isInt = (n, min) => Number.isInteger(n) && n >= min;

function validationRule(sh, r, c) {
  for (let k = sh.validations.length - 1; k >= 0; k--) {
    const { rect, rule } = sh.validations[k];
    if (r >= rect.r && r < rect.r + rect.nr && c >= rect.c && c < rect.c + rect.nc) return rule;
  }
  return null;
}

/**
 * A checkbox takes its checked and unchecked values only: TRUE and FALSE, or the two values given to
 * requireCheckbox(checked, unchecked) ("Sets the data validation rule to require that the input is a boolean value;
 * this value is rendered as a checkbox", https://developers.google.com/apps-script/reference/spreadsheet/data-validation-builder#requirecheckbox;
 * custom values: https://support.google.com/docs/answer/7684717). Typed TRUE/FALSE are read in any case, as Sheets does.
 */
function isCheckboxValue(rule, value) {
  const custom = rule.values ?? [];
  if (custom.length > 0) return custom.slice(0, 2).map(String).includes(String(value));
  return typeof value === 'boolean' || /^(true|false)$/i.test(String(value).trim());
}

/**
 * A dropdown or a checkbox set to "Reject the input" (setAllowInvalid(false),
 * https://developers.google.com/apps-script/reference/spreadsheet/data-validation-builder#setallowinvalidallowinvalid)
 * refuses any other value; clearing a cell is always allowed.
 */
function checkAllowed(sh, r, c, value) {
  if (value === '' || value === null || value === undefined) return;
  const rule = validationRule(sh, r, c);
  if (!rule || rule.allowInvalid !== false) return;
  const refused =
    (rule.criteria === 'VALUE_IN_LIST' && !rule.values[0].map(String).includes(String(value))) ||
    (rule.criteria === 'CHECKBOX' && !isCheckboxValue(rule, value));
  if (refused) throw new EditRefused(`The data you entered in cell ${a1Of({ r, c, nr: 1, nc: 1 })} violates the data validation rules set on this cell.`);
}

/**
 * A protection that is not warning-only lets through only its editors and the spreadsheet's owner ("the owner of the
 * spreadsheet … can always edit", https://developers.google.com/apps-script/reference/spreadsheet/protection); Sheets
 * refuses anyone else's edit with this message. A warning-only one asks first and lets every editor through.
 */
const PROTECTED_MESSAGE = 'You are trying to edit a protected cell or object. Please contact the spreadsheet owner to remove protection if you need to edit.';

function refuseProtected(sh, req, person, owner) {
  const who = String(person).toLowerCase();
  if (who === String(owner ?? '').toLowerCase()) return;
  const target = req.a1 !== undefined && (req.op ?? 'set') !== 'sort' ? rangeOf(sh, req.a1) : null;
  const rows = req.values?.length ?? target?.nr ?? 0, cols = req.values?.[0]?.length ?? target?.nc ?? 0;
  const touches = (rect) => !rect || !target || (target.r < rect.r + rect.nr && rect.r < target.r + rows && target.c < rect.c + rect.nc && rect.c < target.c + cols);
  for (const p of sh.protections) {
    if (p.warningOnly || p.editors.some((e) => String(e).toLowerCase() === who)) continue;
    if (touches(p.rect)) throw new EditRefused(PROTECTED_MESSAGE);
  }
}

function rangeOf(sh, a1) {
  try { return parseA1(String(a1 ?? ''), sh); } catch { throw new EditRefused(`"a1" must be a cell or range like "A2" or "A2:C4", got ${JSON.stringify(a1)}`); }
}

/**
 * Applies one staff action to the sheet. Returns what the triggers are told: `edit` (the on-edit event's range
 * and, for one cell, value/oldValue) or null when on-edit does not fire, and the on-change `changeType` or null
 * when on-change does not fire. `worlds` are the readings of the undocumented answers (worlds.mjs; defaults when absent).
 * @param {any} sh the SheetModel @param {Record<string, any>} req {op, …}
 * @param {{ tz: string, now: number, worlds?: Record<string, string> }} ctx
 */
export function applyStaffEdit(sh, req, { tz, now, worlds = resolveWorlds(), person, owner }) {
  const op = req.op ?? 'set';
  const apply = OPS[op];
  if (!Object.hasOwn(OPS, op)) throw new EditRefused(`unknown op ${JSON.stringify(op)}; one of ${STAFF_OPS.join(', ')}`);
  if (person !== undefined) refuseProtected(sh, req, person, owner);
  const enter = (r, c, input) => storeEntered(sh, r, c, interpretInput(input, sh.format(r, c), tz, now));
  return apply(sh, req, enter, worlds);
}

const OPS = {
  set(sh, req, enter) {
    const h = rangeOf(sh, req.a1);
    if (h.nr !== 1 || h.nc !== 1) throw new EditRefused(`"set" types into one cell; use "paste" for ${req.a1}`);
    if (req.value === undefined) throw new EditRefused('"value" is missing (use "" or op "clear" to clear the cell)');
    const old = sh.value(h.r, h.c);
    checkAllowed(sh, h.r, h.c, req.value);
    enter(h.r, h.c, req.value);
    const edit = { range: cell(h), oldValue: old === '' ? undefined : asText(old) };
    // Typing a value gives e.value; emptying the cell is a clear (no e.value), as Delete is.
    if (req.value !== '' && req.value !== null) edit.value = asText(sh.value(h.r, h.c));
    return { edit, changeType: 'EDIT' };
  },
  paste(sh, req, enter, worlds) {
    const values = req.values ?? (req.value !== undefined ? [[req.value]] : undefined);
    if (!isBlock(values)) throw new EditRefused('"paste" needs "values": a non-empty rectangular array of rows, e.g. [["READY"]]');
    const top = rangeOf(sh, req.a1);
    const h = { sid: sh.id, r: top.r, c: top.c, nr: values.length, nc: values[0].length };
    sh.grow(h.r + h.nr - 1, h.c + h.nc - 1); // a paste past the last row or column adds them, as Sheets does
    values.forEach((row, i) => row.forEach((v, j) => checkAllowed(sh, h.r + i, h.c + j, v)));
    values.forEach((row, i) => row.forEach((v, j) => enter(h.r + i, h.c + j, v)));
    /** @type {{ range: any, value?: string }} */
    const edit = { range: h };
    // paste=value-only: one pasted cell tells what it now holds and never what it held (GetEditType's PUT_VALUE), as
    // a value typed into an empty cell does. An empty paste has no value to tell (GetEditType's REMOVE_VALUE).
    const pasted = h.nr === 1 && h.nc === 1 ? sh.value(h.r, h.c) : '';
    if (worlds.paste === 'value-only' && pasted !== '' && pasted !== null && pasted !== undefined) edit.value = asText(pasted);
    return { edit, changeType: 'EDIT' };
  },
  /**
   * Copy of the block `from` pasted at `a1` (its top-left cell), as Ctrl+C then Ctrl+V: every cell's value, formula, number
   * format and note, exactly, not re-read as typed input. `from: '3:3'` is a whole row. Formulas are copied as written
   * (no relative reference is shifted: the runtime evaluates only literals). Data validation is the destination's: the
   * runtime keeps rules per rectangle, and staff copy within the same columns, which carry the same rules.
   */
  copy(sh, req) {
    const from = rangeOf(sh, req.from);
    const top = rangeOf(sh, req.a1);
    const h = { sid: sh.id, r: top.r, c: top.c, nr: from.nr, nc: from.nc };
    sh.grow(h.r + h.nr - 1, h.c + h.nc - 1);
    const block = Object.fromEntries(COPIED.map((k) => [k, Array.from({ length: h.nr }, (_, i) => Array.from({ length: h.nc }, (_, j) => sh[k][from.r - 1 + i]?.[from.c - 1 + j]))]));
    block.v.forEach((row, i) => row.forEach((v, j) => checkAllowed(sh, h.r + i, h.c + j, v)));
    for (const k of COPIED) block[k].forEach((row, i) => row.forEach((x, j) => sh.put(k, h.r + i, h.c + j, x)));
    return { edit: { range: h }, changeType: 'EDIT' };
  },
  clear(sh, req) {
    const h = rangeOf(sh, req.a1);
    const single = h.nr === 1 && h.nc === 1;
    const old = single ? sh.value(h.r, h.c) : '';
    for (let r = h.r; r < h.r + h.nr; r++) for (let c = h.c; c < h.c + h.nc; c++) { sh.put('v', r, c, undefined); sh.put('f', r, c, undefined); }
    return { edit: { range: { sid: sh.id, r: h.r, c: h.c, nr: h.nr, nc: h.nc }, oldValue: old !== '' ? asText(old) : undefined }, changeType: 'EDIT' };
  },
  sort(sh, req, _enter, worlds) {
    // "Sort sheet" sorts every row below the frozen ones; formqueue's sheets freeze their header row.
    const header = Math.max(sh.frozenRows, 1);
    const names = Array.from({ length: sh.lastColumn() }, (_, j) => String(sh.value(1, j + 1)));
    const column = names.indexOf(String(req.column)) + 1;
    if (column === 0) throw new EditRefused(`no column headed ${JSON.stringify(req.column)}; headers: ${names.filter(Boolean).join(', ')}`);
    const r1 = header + 1, r2 = sh.lastRow();
    const changeType = worlds.sort === 'none' ? null : 'OTHER';
    if (r2 < r1) return { edit: null, changeType };
    sortRowsAt(sh, { r1, r2, c1: 1, c2: sh.maxCols, keys: [{ column, ascending: req.ascending !== false }] });
    if (worlds.sort !== 'edit-other') return { edit: null, changeType };
    return { edit: { range: { sid: sh.id, r: r1, c: 1, nr: r2 - r1 + 1, nc: Math.max(sh.lastColumn(), 1) } }, changeType };
  },
  insertRows(sh, req) {
    const before = Number(req.before), count = Number(req.count ?? 1);
    if (!isInt(before, 1) || before > sh.maxRows + 1 || !isInt(count, 1)) throw new EditRefused(`"insertRows" needs "before" (1–${sh.maxRows + 1}) and "count" (≥ 1)`);
    insertRowsAt(sh, before, count);
    return { edit: null, changeType: 'INSERT_ROW' };
  },
  insertColumns(sh, req) {
    const before = Number(req.before), count = Number(req.count ?? 1);
    if (!isInt(before, 1) || before > sh.maxCols + 1 || !isInt(count, 1)) throw new EditRefused(`"insertColumns" needs "before" (1–${sh.maxCols + 1}) and "count" (≥ 1)`);
    insertColumnsAt(sh, before, count);
    return { edit: null, changeType: 'INSERT_COLUMN' };
  },
  renameSheet(sh, req) {
    const name = String(req.name ?? '').trim();
    if (name === '') throw new EditRefused('"renameSheet" needs "name"');
    const other = sh.book?.byName(name);
    if (other && other !== sh) throw new EditRefused(`A sheet with the name "${name}" already exists. Please enter another name.`);
    sh.name = name;
    return { edit: null, changeType: 'OTHER' };
  },
  deleteRows(sh, req) {
    const row = Number(req.row), count = Number(req.count ?? 1);
    if (!isInt(row, 1) || !isInt(count, 1) || row + count - 1 > sh.maxRows) throw new EditRefused('Those rows are out of bounds.');
    if (count >= sh.maxRows - sh.frozenRows && row > sh.frozenRows) throw new EditRefused('Sorry, it is not possible to delete all non-frozen rows.');
    deleteRowsAt(sh, row, count);
    return { edit: null, changeType: 'REMOVE_ROW' };
  },
};

/** What a copy and paste carries per cell: value, formula, number format, note. */
const COPIED = ['v', 'f', 'nf', 'notes'];

const isBlock = (values) => Array.isArray(values) && values.length > 0 && values.every((row) => Array.isArray(row) && row.length > 0 && row.length === values[0].length);

function cell(h) { return { sid: h.sid, r: h.r, c: h.c, nr: 1, nc: 1 }; }

export const STAFF_OPS = Object.keys(OPS);
