// Host handlers for Range, TextFinder and Protection: every call here is one bridge round trip from a script.
import { GasError } from '../errors.mjs';
import { displayValue, interpretInput, parseA1, storeEntered } from '../spreadsheet-model.mjs';
import { sortRowsAt } from '../sheet-rows.mjs';

export const ref = (cls, h) => ({ __ref: cls, h });

export function sheetOf(x, sid) {
  const sh = x.host.ss.byId(sid);
  if (!sh) throw new GasError('The sheet you are trying to access has been deleted.');
  return sh;
}

/** Bounds checks with the messages Sheets gives for getRange(row, column, numRows, numColumns). */
export function makeRange(sh, r, c, nr = 1, nc = 1) {
  for (const [v, what] of [[r, 'row'], [c, 'column'], [nr, 'rows'], [nc, 'columns']]) {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new GasError(`Cannot convert '${v}' to int.`);
    if (what === 'row' && v < 1) throw new GasError('The starting row of the range is too small.');
    if (what === 'column' && v < 1) throw new GasError('The starting column of the range is too small.');
    if (what === 'rows' && v < 1) throw new GasError('The number of rows in the range must be at least 1.');
    if (what === 'columns' && v < 1) throw new GasError('The number of columns in the range must be at least 1.');
  }
  if (r + nr - 1 > sh.maxRows || c + nc - 1 > sh.maxCols) throw new GasError('The coordinates of the range are outside the dimensions of the sheet.');
  return { sid: sh.id, r: Math.floor(r), c: Math.floor(c), nr: Math.floor(nr), nc: Math.floor(nc) };
}

export function rangeFromArgs(sh, a) {
  if (typeof a[0] === 'string') {
    const text = a[0].includes('!') ? a[0].slice(a[0].lastIndexOf('!') + 1) : a[0];
    const h = parseA1(text, sh);
    if (h.r + h.nr - 1 > sh.maxRows || h.c + h.nc - 1 > sh.maxCols) throw new GasError('Range not found');
    return h;
  }
  return makeRange(sh, a[0], a[1], a[2] ?? 1, a[3] ?? 1);
}

function each(h, fn) { for (let i = 0; i < h.nr; i++) for (let j = 0; j < h.nc; j++) fn(h.r + i, h.c + j, i, j); }

function grid(x, h, cell) {
  const sh = sheetOf(x, h.sid), out = new Array(h.nr);
  for (let i = 0; i < h.nr; i++) {
    const row = new Array(h.nc);
    for (let j = 0; j < h.nc; j++) row[j] = cell(sh, h.r + i, h.c + j);
    out[i] = row;
  }
  x.exec.cellsRead += h.nr * h.nc;
  return out;
}

function checkShape(h, data) {
  if (!Array.isArray(data) || data.some((row) => !Array.isArray(row))) throw new GasError('The parameters (number[]) don\'t match the method signature for SpreadsheetApp.Range.setValues.');
  if (data.length !== h.nr) throw new GasError(`The number of rows in the data does not match the number of rows in the range. The data has ${data.length} but the range has ${h.nr}.`);
  for (const row of data) if (row.length !== h.nc) throw new GasError(`The number of columns in the data does not match the number of columns in the range. The data has ${row.length} but the range has ${h.nc}.`);
}

/** Validates every cell before writing any, so a refused cell (50,000 chars) leaves the range untouched. */
function writeEntered(x, h, at) {
  const sh = sheetOf(x, h.sid), tz = x.host.ss.timeZone, planned = [];
  const now = x.host.now();
  each(h, (r, c, i, j) => planned.push([r, c, interpretInput(at(i, j), sh.format(r, c), tz, now)]));
  for (const [r, c, e] of planned) storeEntered(sh, r, c, e);
  x.exec.cellsWritten += planned.length;
}

function setFormats(x, h, at) {
  const sh = sheetOf(x, h.sid);
  if (h.open) { // whole-column ranges format rows that do not exist yet too
    for (let j = 0; j < h.nc; j++) {
      const c = h.c + j, fmt = at(0, j);
      sh.colFormats[c] = { from: h.open, fmt };
      for (let r = h.open; r <= sh.nf.length; r++) sh.put('nf', r, c, undefined);
    }
    return;
  }
  each(h, (r, c, i, j) => sh.put('nf', r, c, at(i, j)));
}

const inRect = (rect, r, c) => r >= rect.r && r < rect.r + rect.nr && c >= rect.c && c < rect.c + rect.nc;

function validationAt(sh, r, c) {
  for (let k = sh.validations.length - 1; k >= 0; k--) if (inRect(sh.validations[k].rect, r, c)) return sh.validations[k].rule;
  return null;
}

function setValidation(sh, h, rule) {
  const covered = (o) => o.r >= h.r && o.c >= h.c && o.r + o.nr <= h.r + h.nr && o.c + o.nc <= h.c + h.nc;
  sh.validations = sh.validations.filter((v) => !covered(v.rect));
  sh.validations.push({ rect: { r: h.r, c: h.c, nr: h.nr, nc: h.nc }, rule: rule ? rule.h : null });
}

/** A new protection lets its creator edit, besides the owner (Sheets' "Only you"). */
export function protect(sh, type, rect, creator) {
  const p = { pid: `p${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`, type, rect, description: '', warningOnly: false, editors: creator ? [String(creator)] : [] };
  sh.protections.push(p);
  return ref('Protection', { sid: sh.id, pid: p.pid });
}

const STYLE_METHODS = ['setBackground', 'setBackgrounds', 'setFontWeight', 'setFontWeights', 'setFontColor', 'setFontColors', 'setFontFamily', 'setFontSize', 'setFontStyle',
  'setWrap', 'setWrapStrategy', 'setHorizontalAlignment', 'setVerticalAlignment', 'setBorder', 'setTextStyle', 'merge', 'breakApart'];

/** Cell text as TextFinder compares it: the displayed value, or the formula with matchFormulaText. */
function cellText(sh, r, c, o, tz) {
  if (o.formulaText) { const f = sh.formula(r, c); if (f) return f; }
  const x = sh.value(r, c);
  return typeof x === 'string' ? x : displayValue(x, sh.format(r, c), tz);
}

function finder(x, h) {
  const t = h.target;
  const sh = sheetOf(x, t.h.sid);
  const rect = t.__ref === 'Sheet' ? { r: 1, c: 1, nr: Math.max(sh.lastRow(), 1), nc: Math.max(sh.lastColumn(), 1) } : t.h;
  const o = h.opts || {}, tz = x.host.ss.timeZone;
  const needle = o.matchCase ? String(h.text) : String(h.text).toLowerCase();
  let re = null;
  if (o.regex) re = new RegExp(o.entireCell ? `^(?:${h.text})$` : h.text, o.matchCase ? '' : 'i');
  const match = (s) => {
    if (s === '') return false;
    if (re) return re.test(s);
    if (o.entireCell) return s.length === needle.length && (o.matchCase ? s : s.toLowerCase()) === needle;
    return (o.matchCase ? s : s.toLowerCase()).includes(needle);
  };
  return { sh, rect, hit: (r, c) => match(cellText(sh, r, c, o, tz)) };
}

export const rangeHandlers = {
  Range: {
    getValues: (x, h) => grid(x, h, (sh, r, c) => sh.value(r, c)),
    getValue: (x, h) => grid(x, { ...h, nr: 1, nc: 1 }, (sh, r, c) => sh.value(r, c))[0][0],
    getDisplayValues: (x, h) => { const tz = x.host.ss.timeZone; return grid(x, h, (sh, r, c) => displayValue(sh.value(r, c), sh.format(r, c), tz)); },
    getDisplayValue: (x, h) => rangeHandlers.Range.getDisplayValues(x, { ...h, nr: 1, nc: 1 })[0][0],
    getFormulas: (x, h) => grid(x, h, (sh, r, c) => sh.formula(r, c)),
    getFormula: (x, h) => grid(x, { ...h, nr: 1, nc: 1 }, (sh, r, c) => sh.formula(r, c))[0][0],
    setValues: (x, h, [data]) => { checkShape(h, data); writeEntered(x, h, (i, j) => data[i][j]); },
    setValue: (x, h, [v]) => writeEntered(x, h, () => v),
    setFormula: (x, h, [f]) => writeEntered(x, h, () => String(f).startsWith('=') ? f : '=' + f),
    setFormulas: (x, h, [data]) => { checkShape(h, data); writeEntered(x, h, (i, j) => data[i][j]); },
    clearContent: (x, h) => { const sh = sheetOf(x, h.sid); each(h, (r, c) => { sh.put('v', r, c, undefined); sh.put('f', r, c, undefined); }); },
    clear: (x, h) => { const sh = sheetOf(x, h.sid); each(h, (r, c) => { for (const k of ['v', 'f', 'nf', 'notes']) sh.put(k, r, c, undefined); }); },
    clearFormat: (x, h) => { const sh = sheetOf(x, h.sid); each(h, (r, c) => sh.put('nf', r, c, undefined)); },
    clearNote: (x, h) => { const sh = sheetOf(x, h.sid); each(h, (r, c) => sh.put('notes', r, c, undefined)); },
    getNumberFormats: (x, h) => grid(x, h, (sh, r, c) => sh.format(r, c) ?? 'General'),
    getNumberFormat: (x, h) => sheetOf(x, h.sid).format(h.r, h.c) ?? 'General',
    setNumberFormat: (x, h, [fmt]) => setFormats(x, h, () => String(fmt)),
    setNumberFormats: (x, h, [data]) => { checkShape(h, data); setFormats(x, h, (i, j) => String(data[i][j])); },
    getNote: (x, h) => sheetOf(x, h.sid).note(h.r, h.c),
    getNotes: (x, h) => grid(x, h, (sh, r, c) => sh.note(r, c)),
    setNote: (x, h, [note]) => { const sh = sheetOf(x, h.sid); each(h, (r, c) => sh.put('notes', r, c, note ? String(note) : undefined)); },
    setNotes: (x, h, [data]) => { checkShape(h, data); const sh = sheetOf(x, h.sid); each(h, (r, c, i, j) => sh.put('notes', r, c, data[i][j] ? String(data[i][j]) : undefined)); },
    setDataValidation: (x, h, [rule]) => setValidation(sheetOf(x, h.sid), h, rule),
    clearDataValidations: (x, h) => setValidation(sheetOf(x, h.sid), h, null),
    getDataValidation: (x, h) => { const rule = validationAt(sheetOf(x, h.sid), h.r, h.c); return rule ? ref('DataValidation', rule) : null; },
    getDataValidations: (x, h) => grid(x, h, (sh, r, c) => { const rule = validationAt(sh, r, c); return rule ? ref('DataValidation', rule) : null; }),
    isBlank: (x, h) => { const sh = sheetOf(x, h.sid); let blank = true; each(h, (r, c) => { if (sh.value(r, c) !== '' || sh.formula(r, c)) blank = false; }); return blank; },
    protect: (x, h) => protect(sheetOf(x, h.sid), 'RANGE', { r: h.r, c: h.c, nr: h.nr, nc: h.nc, ...(h.open ? { open: h.open } : {}) }, x.st.userEmail),
    activate: (x, h) => { x.st.activeRange = h; },
    sort: (x, h, [spec]) => sortRange(x, h, spec),
    ...Object.fromEntries(STYLE_METHODS.map((m) => [m, () => undefined])),
  },
  TextFinder: {
    findAll: (x, h) => {
      const { rect, hit } = finder(x, h), out = [];
      for (let r = rect.r; r < rect.r + rect.nr; r++) for (let c = rect.c; c < rect.c + rect.nc; c++) if (hit(r, c)) out.push(ref('Range', { sid: rect.sid ?? h.target.h.sid, r, c, nr: 1, nc: 1 }));
      return out;
    },
    findNext: (x, h) => {
      const { rect, hit } = finder(x, h), sid = h.target.h.sid, after = h.after;
      for (let r = Math.max(rect.r, after ? after.r : rect.r); r < rect.r + rect.nr; r++) {
        for (let c = rect.c; c < rect.c + rect.nc; c++) {
          if (after && (r < after.r || (r === after.r && c <= after.c))) continue;
          if (hit(r, c)) return ref('Range', { sid, r, c, nr: 1, nc: 1 });
        }
      }
      return null;
    },
  },
  Protection: {
    setWarningOnly: (x, h, [b]) => { prot(x, h).warningOnly = !!b; },
    isWarningOnly: (x, h) => prot(x, h).warningOnly,
    setDescription: (x, h, [d]) => { prot(x, h).description = String(d); },
    getDescription: (x, h) => prot(x, h).description,
    getProtectionType: (x, h) => prot(x, h).type,
    getRange: (x, h) => { const p = prot(x, h), sh = sheetOf(x, h.sid); return ref('Range', p.rect ? { sid: h.sid, ...p.rect } : { sid: h.sid, r: 1, c: 1, nr: sh.maxRows, nc: sh.maxCols }); },
    remove: (x, h) => { const sh = sheetOf(x, h.sid); sh.protections = sh.protections.filter((p) => p.pid !== h.pid); },
    // Each takes an email address or a User ("addEditor(user)", https://developers.google.com/apps-script/reference/spreadsheet/protection#addeditoruser).
    addEditor: (x, h, [u]) => { const p = prot(x, h), e = editorEmail(u); if (!p.editors.includes(e)) p.editors.push(e); },
    addEditors: (x, h, [us]) => { const p = prot(x, h); for (const e of us.map(editorEmail)) if (!p.editors.includes(e)) p.editors.push(e); },
    removeEditor: (x, h, [u]) => { const p = prot(x, h); p.editors = p.editors.filter((e) => e !== editorEmail(u)); },
    removeEditors: (x, h, [us]) => { const p = prot(x, h); p.editors = p.editors.filter((e) => !us.map(editorEmail).includes(e)); },
    getEditors: (x, h) => prot(x, h).editors.map((email) => ref('User', { email })),
    canEdit: () => true,
    setDomainEdit: () => undefined,
    canDomainEdit: () => false,
  },
};

function editorEmail(u) {
  return u && typeof u === 'object' && u.__ref === 'User' ? String(u.h.email) : String(u);
}

function prot(x, h) {
  const p = sheetOf(x, h.sid).protections.find((q) => q.pid === h.pid);
  if (!p) throw new GasError('The protection has been removed.');
  return p;
}

/**
 * Range.sort(sortSpecObj): a column number, {column, ascending}, or an array of those; the column is the sheet's, and
 * must lie inside the range (developers.google.com/apps-script/reference/spreadsheet/range#sortsortspecobj).
 */
function sortRange(x, h, spec) {
  const sh = sheetOf(x, h.sid);
  const keys = (Array.isArray(spec) ? spec : [spec]).map((k) => (typeof k === 'number' ? { column: k, ascending: true } : { column: Number(k?.column), ascending: k?.ascending !== false }));
  for (const { column } of keys) {
    if (!(column >= h.c && column < h.c + h.nc)) throw new GasError(`The column ${column} is out of range.`);
  }
  sortRowsAt(sh, { r1: h.r, r2: h.r + h.nr - 1, c1: h.c, c2: h.c + h.nc - 1, keys });
}
