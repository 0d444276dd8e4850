// The host-owned spreadsheet: sheets as parallel row arrays (values, formulas, formats, notes) plus Sheets' input rules.
import { formatJavaDate, isDatePattern, sheetsDatePatternToJava } from './format-date.mjs';
import { GasError } from './errors.mjs';
import { readTyped, signFormulaValue } from './sheets-typing.mjs';

// "Your input contains more than the maximum of 50000 characters in a single cell." (Sheets' own refusal, as quoted
// by Apps Script callers; limit: https://support.google.com/drive/answer/37603).
export const MAX_CELL_CHARS = 50000;
// Every grid cell counts, empty ones too; a new sheet is 1000 rows × 26 columns. Google's refusal when a change would
// pass it, as Apps Script and the Sheets API report it (e.g. "Invalid requests[0].addSheet: This action would …"):
// https://support.google.com/drive/answer/37603 ; https://workspaceupdates.googleblog.com/2022/03/ten-million-cells-google-sheets.html
export const MAX_SPREADSHEET_CELLS = 10000000;
export const CELL_LIMIT_MESSAGE = `This action would increase the number of cells in the workbook above the limit of ${MAX_SPREADSHEET_CELLS} cells.`;
export const NEW_SHEET_ROWS = 1000;
export const NEW_SHEET_COLUMNS = 26;
export const DEFAULT_DATE_FORMAT = 'M/d/yyyy H:mm:ss';


export function colToNum(s) { let n = 0; for (const ch of s.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64); return n; }
function numToCol(n) { let s = ''; while (n > 0) { const m = (n - 1) % 26; s = String.fromCharCode(65 + m) + s; n = Math.floor((n - 1) / 26); } return s; }

/** A1 text of a range handle ('A2', 'A2:D5'), as a staff edit's range reaches a trigger's active range. */
export function a1Of(h) {
  const start = `${numToCol(h.c)}${h.r}`;
  return h.nr === 1 && h.nc === 1 ? start : `${start}:${numToCol(h.c + h.nc - 1)}${h.r + h.nr - 1}`;
}

const A1_RE = /^\$?([A-Z]*)\$?(\d*)(?::\$?([A-Z]*)\$?(\d*))?$/i;

/** Parses A1 notation (cells, rectangles, whole columns 'B:B', open-ended 'A2:C', whole rows '2:5') against a sheet. */
export function parseA1(a1, sheet) {
  const m = A1_RE.exec(String(a1).trim());
  if (!m || (!m[1] && !m[2])) throw new GasError('Range not found');
  const [, ca, ra, cb, rb] = m;
  const hasSecond = m[3] !== undefined || m[4] !== undefined;
  if (!hasSecond) {
    if (!ca || !ra) throw new GasError('Range not found');
    return { sid: sheet.id, r: Number(ra), c: colToNum(ca), nr: 1, nc: 1 };
  }
  if (ca && !ra && cb && !rb) { // whole columns: formats set here apply to rows added later (open: 1)
    const c1 = Math.min(colToNum(ca), colToNum(cb)), c2 = Math.max(colToNum(ca), colToNum(cb));
    return { sid: sheet.id, r: 1, c: c1, nr: sheet.maxRows, nc: c2 - c1 + 1, open: 1 };
  }
  if (ca && ra && cb && !rb) {
    const c1 = Math.min(colToNum(ca), colToNum(cb)), c2 = Math.max(colToNum(ca), colToNum(cb)), r = Number(ra);
    return { sid: sheet.id, r, c: c1, nr: Math.max(1, sheet.maxRows - r + 1), nc: c2 - c1 + 1, open: r };
  }
  if (!ca && ra && !cb && rb) {
    const r1 = Math.min(+ra, +rb), r2 = Math.max(+ra, +rb);
    return { sid: sheet.id, r: r1, c: 1, nr: r2 - r1 + 1, nc: sheet.maxCols };
  }
  if (ca && ra && cb && rb) {
    const r1 = Math.min(+ra, +rb), r2 = Math.max(+ra, +rb), c1 = Math.min(colToNum(ca), colToNum(cb)), c2 = Math.max(colToNum(ca), colToNum(cb));
    return { sid: sheet.id, r: r1, c: c1, nr: r2 - r1 + 1, nc: c2 - c1 + 1 };
  }
  throw new GasError('Range not found');
}

const NUMBER_RE = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A sheet: rows are 1-based in the API, 0-based here; every per-cell array is sparse (undefined = empty). */
export class SheetModel {
  constructor(id, name) {
    Object.assign(this, { id, name, v: [], f: [], nf: [], notes: [], maxRows: NEW_SHEET_ROWS, maxCols: NEW_SHEET_COLUMNS, frozenRows: 0, frozenCols: 0 });
    this.book = null; // the SpreadsheetModel holding it, which enforces the 10,000,000-cell grid limit
    this.colFormats = {}; // col -> { from, fmt }
    this.validations = []; // { rect, rule }, later entries win
    this.cfRules = [];
    this.protections = [];
  }

  value(r, c) { const row = this.v[r - 1]; const x = row ? row[c - 1] : undefined; return x === undefined || x === null ? '' : x; }
  formula(r, c) { const row = this.f[r - 1]; return (row && row[c - 1]) || ''; }
  note(r, c) { const row = this.notes[r - 1]; return (row && row[c - 1]) || ''; }
  format(r, c) {
    const row = this.nf[r - 1];
    const own = row ? row[c - 1] : undefined;
    if (own !== undefined) return own;
    const col = this.colFormats[c];
    return col && r >= col.from ? col.fmt : undefined;
  }

  put(arrName, r, c, x) {
    const rows = this[arrName];
    let row = rows[r - 1];
    if (!row) { if (x === undefined) return; row = rows[r - 1] = []; }
    row[c - 1] = x;
  }

  /** Writes one cell as a person (or setValue/appendRow) would type it: Sheets' user-entered rules. */
  enter(r, c, input, tz, nowMs) { storeEntered(this, r, c, interpretInput(input, this.format(r, c), tz, nowMs)); }

  lastRow() {
    for (let i = Math.max(this.v.length, this.f.length) - 1; i >= 0; i--) {
      if (rowHasContent(this.v[i]) || rowHasContent(this.f[i])) return i + 1;
    }
    return 0;
  }

  lastColumn() {
    let last = 0;
    for (const rows of [this.v, this.f]) {
      for (const row of rows) {
        if (!row) continue;
        for (let j = row.length - 1; j >= last; j--) if (row[j] !== undefined && row[j] !== '') { last = j + 1; break; }
      }
    }
    return last;
  }

  grow(rows, cols) {
    const r = Math.max(rows, this.maxRows), c = Math.max(cols, this.maxCols);
    this.book?.checkGrid(r * c - this.maxRows * this.maxCols);
    this.maxRows = r; this.maxCols = c;
  }

  spliceRows(start0, deleteCount, insertCount) {
    this.book?.checkGrid((insertCount - deleteCount) * this.maxCols);
    const filler = new Array(insertCount).fill(undefined);
    for (const k of ['v', 'f', 'nf', 'notes']) {
      if (this[k].length > start0) this[k].splice(start0, deleteCount, ...filler);
    }
    this.maxRows += insertCount - deleteCount;
  }

  /** Removes `deleteCount` grid columns from column `start0` (0-based); cells to their right move left. */
  spliceColumns(start0, deleteCount) {
    for (const k of ['v', 'f', 'nf', 'notes']) {
      for (const row of this[k]) if (row && row.length > start0) row.splice(start0, deleteCount);
    }
    this.maxCols -= deleteCount;
  }
}

function rowHasContent(row) { if (!row) return false; for (const x of row) if (x !== undefined && x !== '') return true; return false; }

/**
 * Sheets' input rules (see docs/platform.md#sheets-input): '=' starts a formula, a leading "'" keeps text and is dropped, a plain-text '@' cell keeps the
 * string verbatim, more than 50,000 characters is refused; any other string is read as Sheets reads typed input in the
 * en_US locale (sheets-typing.mjs: numbers, 1,234, 50%, $5, TRUE, dates, times, '+…'/'-…' formulas). `format` is
 * the number format Sheets gives the cell for what was typed (a percent, a date …); `nowMs` dates '1/2' in its year.
 */
export function interpretInput(input, fmt, tz, nowMs = Date.now()) {
  if (input === null || input === undefined) return { value: '' };
  if (typeof input === 'number' || typeof input === 'boolean') return { value: input };
  if (input instanceof Date || Object.prototype.toString.call(input) === '[object Date]') return { value: new Date(input.getTime()) };
  const s = typeof input === 'string' ? input : String(input);
  if (s.length > MAX_CELL_CHARS) throw new GasError(`Your input contains more than the maximum of ${MAX_CELL_CHARS} characters in a single cell.`);
  if (fmt === '@') return { value: s };
  if (s.startsWith("'")) return { value: s.slice(1) };
  if (s.length > 1 && s.startsWith('=')) return { value: evaluateFormula(s), formula: s };
  const year = Number(zoneFormatter(tz, YEAR_ONLY).format(new Date(nowMs)));
  const typed = readTyped(s, { year, zoned: (y, mo, d, h, mi, sec) => zonedDate(y, mo, d, h, mi, sec, tz) });
  if (typed.formula) return { value: evaluateFormula(typed.formula), formula: typed.formula };
  return typed;
}

/** Stores what interpretInput read into one cell; a format Sheets picks for the input replaces only 'General'. */
export function storeEntered(sh, r, c, e) {
  sh.put('v', r, c, e.value === '' ? undefined : e.value);
  sh.put('f', r, c, e.formula || undefined);
  if (e.format) {
    const now = sh.format(r, c);
    if (now === undefined || /^general$/i.test(now)) sh.put('nf', r, c, e.format);
  }
}

/** Only literals and HYPERLINK's label are evaluated; any other formula reads back as '' (documented limitation). */
export function evaluateFormula(src) {
  const body = src.slice(1).trim();
  let m;
  if ((m = /^"((?:[^"]|"")*)"$/.exec(body))) return m[1].replace(/""/g, '"');
  if (NUMBER_RE.test(body)) return Number(body);
  if (/^[+-]/.test(body)) return signFormulaValue(body);
  if (/^(TRUE|FALSE)$/i.test(body)) return body.toUpperCase() === 'TRUE';
  if ((m = /^HYPERLINK\(\s*"(?:[^"]|"")*"\s*(?:[,;]\s*"((?:[^"]|"")*)"\s*)?\)$/i.exec(body))) return m[1] !== undefined ? m[1].replace(/""/g, '"') : '';
  return '';
}

const YEAR_ONLY = { year: 'numeric' };
const WALL_CLOCK = { hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' };
const zoneFormatters = new Map();

/**
 * One Intl.DateTimeFormat per zone and field set, made once: a formatter is immutable and its answers depend only on
 * the instant passed in, so reusing it changes no result, while making one for every cell written cost about a third
 * of a millisecond of CPU (interpretInput was the host's top function in an e2e file's profile).
 */
function zoneFormatter(tz, fields) {
  const key = `${fields === YEAR_ONLY ? 'y' : 'w'}|${tz}`;
  let f = zoneFormatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, ...fields });
    zoneFormatters.set(key, f);
  }
  return f;
}

function zonedDate(y, mo, d, h, mi, s, tz) {
  // Find the UTC instant whose wall-clock time in tz is the given one (two passes settle DST edges).
  let guess = Date.UTC(y, mo - 1, d, h, mi, s);
  for (let i = 0; i < 2; i++) {
    const parts = zoneFormatter(tz, WALL_CLOCK).formatToParts(new Date(guess));
    const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
    const wall = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour % 24, +p.minute, +p.second);
    guess += Date.UTC(y, mo - 1, d, h, mi, s) - wall;
  }
  return new Date(guess);
}

const SERIAL_EPOCH_MS = Date.UTC(1899, 11, 30);

/** The text Sheets shows for a value under a number format (a subset: dates, fixed decimals, percent, '@'). */
export function displayValue(x, fmt, tz) {
  if (x === '' || x === undefined || x === null) return '';
  if (typeof x === 'boolean') return x ? 'TRUE' : 'FALSE';
  const isDate = x instanceof Date;
  if (isDate || (typeof x === 'number' && fmt && isDatePattern(fmt))) {
    const ms = isDate ? x.getTime() : SERIAL_EPOCH_MS + x * 86400000;
    const pattern = fmt && fmt !== '@' && isDatePattern(fmt) ? sheetsDatePatternToJava(fmt) : DEFAULT_DATE_FORMAT;
    return formatJavaDate(ms, isDate ? tz : 'UTC', pattern);
  }
  if (typeof x === 'number' && fmt && fmt !== '@' && !/general/i.test(fmt)) {
    // A leading literal ('"$"#,##0.00', '$0.00') goes after the minus sign, as Sheets shows -$5.00.
    const lit = /^(?:"([^"]*)"|(\$))/.exec(fmt);
    const prefix = lit ? (lit[1] ?? lit[2]) : '';
    const body = lit ? fmt.slice(lit[0].length) : fmt;
    const pct = body.trim().endsWith('%');
    const n = Math.abs(pct ? x * 100 : x);
    const dec = /\.(0+)/.exec(body);
    const digits = dec ? dec[1].length : 0;
    let s = n.toFixed(digits);
    if (body.includes(',')) s = Number(s).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
    return (x < 0 && Number(s) !== 0 ? '-' : '') + prefix + s + (pct ? '%' : '');
  }
  return String(x);
}

/** The one container spreadsheet the emulated script is bound to. */
export class SpreadsheetModel {
  constructor(id, timeZone) {
    this.id = id;
    this.name = 'formqueue (local)';
    this.timeZone = timeZone;
    this.sheets = [];
    this.nextSheetId = 1;
  }

  static fresh(id, tz) { const ss = new SpreadsheetModel(id, tz); ss.adopt(new SheetModel(0, 'Sheet1')); return ss; }
  adopt(sh) { sh.book = this; this.sheets.push(sh); return sh; }

  /** Every grid cell of every sheet, empty or not: what Sheets counts against its 10,000,000 cells. */
  gridCells() { let n = 0; for (const sh of this.sheets) n += sh.maxRows * sh.maxCols; return n; }

  /** Refuses a change that would add `added` grid cells past the limit, before anything changes. */
  checkGrid(added) {
    if (added > 0 && this.gridCells() + added > MAX_SPREADSHEET_CELLS) throw new GasError(CELL_LIMIT_MESSAGE);
  }
  byName(name) { return this.sheets.find((s) => s.name === name) || null; }
  byId(sid) { return this.sheets.find((s) => s.id === sid) || null; }

  insert(name, index) {
    if (this.byName(name)) throw new GasError(`A sheet with the name "${name}" already exists. Please enter another name.`);
    this.checkGrid(NEW_SHEET_ROWS * NEW_SHEET_COLUMNS);
    const sh = new SheetModel(this.nextSheetId++ * 1000003 % 2147483647, name);
    sh.book = this;
    if (index === undefined || index === null || index > this.sheets.length) this.sheets.push(sh);
    else this.sheets.splice(Math.max(0, index), 0, sh);
    return sh;
  }
}
