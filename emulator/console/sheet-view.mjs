// One sheet as the console draws it: display values under their number formats, notes, the dropdown of each cell,
// and the colours the sheet's conditional-format rules give it (the subset of rule types the runtime records).
import { displayValue } from '../spreadsheet-model.mjs';

const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 5000;

/**
 * @param {any} host a GasHost
 * @param {string} name
 * @param {{ offset?: number, limit?: number }} [window] rows after the header; by default the last 500
 * @returns {null | { name: string, frozenRows: number, header: string[], totalRows: number, offset: number,
 *   rows: { row: number, cells: Cell[] }[], dropdowns: { values: string[], allowInvalid: boolean, helpText: string }[] }}
 */
export function sheetView(host, name, window = {}) {
  const sh = host.ss.byName(name);
  if (!sh) return null;
  const tz = host.ss.timeZone;
  const width = sh.lastColumn();
  const height = sh.lastRow();
  const totalRows = Math.max(0, height - 1);
  const limit = Math.max(1, Math.min(MAX_LIMIT, Number(window.limit) || DEFAULT_LIMIT));
  const offset = window.offset === undefined || window.offset === null || window.offset === ''
    ? Math.max(0, totalRows - limit) : Math.max(0, Math.min(totalRows, Number(window.offset) || 0));
  /** @type {any[]} */
  const dropdowns = [];
  /** @type {Map<any, number>} */
  const dropdownIndex = new Map();
  const rules = conditionalRules(sh);

  /** @param {number} r @param {number} c @returns {Cell} */
  const cellAt = (r, c) => {
    const value = sh.value(r, c);
    const fmt = sh.format(r, c);
    /** @type {Cell} */
    const cell = { text: displayValue(value, fmt, tz) };
    const formula = sh.formula(r, c);
    if (formula) cell.formula = formula;
    if (fmt) cell.format = fmt;
    if (typeof value === 'number' && !(fmt === '@')) cell.numeric = true;
    const note = sh.note(r, c);
    if (note) cell.note = note;
    const rule = validationAt(sh, r, c);
    if (rule && rule.criteria === 'VALUE_IN_LIST') {
      if (!dropdownIndex.has(rule)) {
        dropdownIndex.set(rule, dropdowns.length);
        dropdowns.push({ values: (rule.values?.[0] ?? []).map(String), allowInvalid: rule.allowInvalid !== false, helpText: rule.helpText ?? '' });
      }
      cell.dropdown = dropdownIndex.get(rule);
    }
    const style = styleAt(rules, sh, r, c);
    if (style) cell.style = style;
    return cell;
  };

  const header = Array.from({ length: width }, (_, j) => String(sh.value(1, j + 1)));
  const rows = [];
  for (let r = 2 + offset; r <= Math.min(height, 1 + offset + limit); r++) {
    rows.push({ row: r, cells: Array.from({ length: width }, (_, j) => cellAt(r, j + 1)) });
  }
  return { name: sh.name, frozenRows: sh.frozenRows ?? 0, header, totalRows, offset, rows, dropdowns };
}

/** @typedef {{ text: string, formula?: string, format?: string, numeric?: boolean, note?: string, dropdown?: number, style?: Record<string, string|boolean> }} Cell */

/** The last data-validation rule covering a cell wins, as in Sheets. @param {any} sh @param {number} r @param {number} c */
function validationAt(sh, r, c) {
  for (let k = sh.validations.length - 1; k >= 0; k--) {
    const { rect, rule } = sh.validations[k];
    if (rule && r >= rect.r && r < rect.r + rect.nr && c >= rect.c && c < rect.c + rect.nc) return rule;
  }
  return null;
}

/**
 * Conditional-format rules as predicates. A custom formula is understood when it compares one cell to a text or
 * number (`=$C2="SENT"`), the form Set up writes; other formulas are skipped (not drawn) rather than guessed.
 * @param {any} sh
 */
function conditionalRules(sh) {
  return (sh.cfRules ?? []).map((/** @type {any} */ rule) => {
    const rects = (rule.ranges ?? []).map((/** @type {any} */ x) => x?.h ?? x).filter((/** @type {any} */ h) => h && h.r);
    const test = predicate(rule.condition);
    return test ? { rects, test, format: rule.format ?? {} } : null;
  }).filter(Boolean);
}

/** @param {any} condition @returns {((sh: any, r: number, c: number, rect: any) => boolean) | null} */
function predicate(condition) {
  const values = condition?.values ?? [];
  const text = (/** @type {any} */ sh, /** @type {number} */ r, /** @type {number} */ c) => String(sh.value(r, c));
  switch (condition?.type) {
    case 'TEXT_EQUAL_TO': return (sh, r, c) => text(sh, r, c) === String(values[0]);
    case 'TEXT_CONTAINS': return (sh, r, c) => text(sh, r, c).includes(String(values[0]));
    case 'TEXT_STARTS_WITH': return (sh, r, c) => text(sh, r, c).startsWith(String(values[0]));
    case 'TEXT_ENDS_WITH': return (sh, r, c) => text(sh, r, c).endsWith(String(values[0]));
    case 'CELL_EMPTY': return (sh, r, c) => text(sh, r, c) === '';
    case 'CELL_NOT_EMPTY': return (sh, r, c) => text(sh, r, c) !== '';
    case 'NUMBER_GREATER_THAN': return (sh, r, c) => Number(sh.value(r, c)) > Number(values[0]);
    case 'NUMBER_LESS_THAN': return (sh, r, c) => Number(sh.value(r, c)) < Number(values[0]);
    case 'NUMBER_EQUAL_TO': return (sh, r, c) => Number(sh.value(r, c)) === Number(values[0]);
    case 'CUSTOM_FORMULA': return comparisonFormula(String(values[0] ?? ''));
    default: return null;
  }
}

/** `=$C2="SENT"` / `=C2=3`: the reference moves with the cell where it is not anchored by `$`. @param {string} formula */
function comparisonFormula(formula) {
  const m = /^=\s*(\$?)([A-Z]{1,3})(\$?)(\d+)\s*=\s*(?:"((?:[^"]|"")*)"|(-?\d+(?:\.\d+)?))\s*$/i.exec(formula.trim());
  if (!m) return null;
  const [, colAbs, colLetters, rowAbs, rowText, str, num] = m;
  const col = [...colLetters.toUpperCase()].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
  const row = Number(rowText);
  const want = str !== undefined ? str.replace(/""/g, '"') : Number(num);
  return (/** @type {any} */ sh, /** @type {number} */ r, /** @type {number} */ c, /** @type {any} */ rect) => {
    const rr = rowAbs ? row : row + (r - rect.r);
    const cc = colAbs ? col : col + (c - rect.c);
    const v = sh.value(rr, cc);
    return typeof want === 'number' ? Number(v) === want : String(v).toLowerCase() === want.toLowerCase();
  };
}

/** The first matching rule's format, as Sheets applies the first rule that matches. @param {any[]} rules @param {any} sh @param {number} r @param {number} c */
function styleAt(rules, sh, r, c) {
  for (const rule of rules) {
    const rect = rule.rects.find((/** @type {any} */ h) => r >= h.r && r < h.r + (h.nr ?? 1) && c >= h.c && c < h.c + (h.nc ?? 1));
    if (rect && rule.test(sh, r, c, rect)) return rule.format;
  }
  return null;
}
