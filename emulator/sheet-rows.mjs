// Moving rows (and inserting columns) as Sheets does: insert, delete and sort carry values, formulas, number formats, notes, data validations,
// conditional-format ranges and protected ranges with the rows they belong to.
//
// Sheets keeps per-cell properties (value, formula, number format, note, data validation) on the cell, so they travel
// with a sorted or shifted row; ranges (conditional-format rules, protected ranges, validation rectangles) grow when
// rows are inserted inside them, shrink when their rows are deleted and shift when rows above them come or go
// (support.google.com/docs/answer/54813 "Add or delete rows"; the Sheets API's InsertDimensionRequest
// `inheritFromBefore`: new rows take the properties of the row before them, or of the row after when there is none:
// developers.google.com/sheets/api/reference/rest/v4/spreadsheets/request#insertdimensionrequest).

const PER_CELL = ['v', 'f', 'nf', 'notes'];

/** Every rectangle of the sheet that is anchored to rows: {r, nr, open?} objects, edited in place. */
function rowRects(sh) {
  const out = [];
  for (const v of sh.validations) out.push(v.rect);
  for (const p of sh.protections) if (p.rect) out.push(p.rect);
  for (const rule of sh.cfRules) for (const range of rule.ranges ?? []) if (range?.h?.sid === sh.id) out.push(range.h);
  return out;
}

/** Inserts `count` empty rows before row `before`; rows inside a range extend it, as typing into the new row would. */
export function insertRowsAt(sh, before, count) {
  // Sheets' new rows inherit from the row above, or from the row below when the row above is the frozen header.
  const src = before - 1 > sh.frozenRows ? before - 1 : before;
  const inherited = sh.nf[src - 1] ? sh.nf[src - 1].slice() : undefined;
  for (const rect of rowRects(sh)) {
    if (src >= rect.r && src <= rect.r + rect.nr - 1) rect.nr += count;
    else if (rect.r >= before) rect.r += count;
    if (rect.open > 1) rect.open = rect.r; // an open-ended 'A2:C' keeps its open end
  }
  for (const col of Object.values(sh.colFormats)) if (col.from >= before) col.from += count;
  if (before <= sh.frozenRows) sh.frozenRows += count;
  sh.spliceRows(before - 1, 0, count);
  if (inherited) for (let i = 0; i < count; i++) sh.nf[before - 1 + i] = inherited.slice();
}

/**
 * Inserts `count` empty columns before column `before`, as "Insert 1 column left/right" does: cells to the right move
 * right with their properties; a range holding the column the new ones inherit from grows over them, one to their
 * right shifts. New columns take the column before's number formats, or the column after's when the one before is
 * frozen (the Sheets API's InsertDimensionRequest `inheritFromBefore`, for COLUMNS as for ROWS).
 */
export function insertColumnsAt(sh, before, count) {
  sh.book?.checkGrid(count * sh.maxRows);
  const src = before - 1 > sh.frozenCols ? before - 1 : before;
  for (const rect of rowRects(sh)) {
    if (src >= rect.c && src <= rect.c + rect.nc - 1) rect.nc += count;
    else if (rect.c >= before) rect.c += count;
  }
  shiftColumnFormats(sh, before, count, src);
  if (before <= sh.frozenCols) sh.frozenCols += count;
  for (const k of PER_CELL) for (const row of sh[k]) if (row && row.length >= before) row.splice(before - 1, 0, ...new Array(count).fill(undefined));
  const from = src >= before ? src + count : src; // where the inherited column sits now
  for (const row of sh.nf) if (row && row[from - 1] !== undefined) for (let i = 0; i < count; i++) row[before - 1 + i] = row[from - 1];
  sh.maxCols += count;
}

/** Whole-column formats move right with their columns; the new columns take the format of column `src`. */
function shiftColumnFormats(sh, before, count, src) {
  const formats = {};
  for (const [c, col] of Object.entries(sh.colFormats)) formats[Number(c) >= before ? Number(c) + count : Number(c)] = col;
  if (sh.colFormats[src]) for (let i = 0; i < count; i++) formats[before + i] = { ...sh.colFormats[src] };
  sh.colFormats = formats;
}

/** Deletes rows row..row+count-1; a range loses those rows and disappears when none are left. */
export function deleteRowsAt(sh, row, count) {
  const last = row + count - 1;
  const clip = (rect) => {
    const end = rect.r + rect.nr - 1;
    const gone = Math.max(0, Math.min(end, last) - Math.max(rect.r, row) + 1);
    if (rect.r > last) rect.r -= count;
    else if (rect.r >= row) rect.r = row;
    rect.nr -= gone;
    if (rect.open > 1) rect.open = rect.r;
    return rect.nr > 0;
  };
  sh.validations = sh.validations.filter((v) => clip(v.rect));
  sh.protections = sh.protections.filter((p) => !p.rect || clip(p.rect));
  sh.cfRules = sh.cfRules.filter((rule) => {
    rule.ranges = (rule.ranges ?? []).filter((range) => range?.h?.sid !== sh.id || clip(range.h));
    return rule.ranges.length > 0;
  });
  for (const col of Object.values(sh.colFormats)) if (col.from > last) col.from -= count; else if (col.from > row) col.from = row;
  if (row <= sh.frozenRows) sh.frozenRows -= Math.min(count, sh.frozenRows - row + 1);
  sh.spliceRows(row - 1, count, 0);
}

const EMPTY = (x) => x === undefined || x === null || x === '';
/** Sheets' ascending order: numbers and dates, then text (case-insensitive), then booleans; empty cells always last. */
function rank(x) { return typeof x === 'number' || x instanceof Date ? 0 : typeof x === 'string' ? 1 : 2; }
function compareCells(a, b) {
  const ra = rank(a), rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return Number(a) - Number(b);
  if (ra === 1) return a.localeCompare(b, 'en', { sensitivity: 'base', numeric: false });
  return Number(a) - Number(b);
}

/**
 * Sorts rows r1..r2 of columns c1..c2 by `keys` ([{column, ascending}], column numbers of the sheet), stably.
 * Cells outside c1..c2 stay; conditional-format and protected ranges stay where they are (they belong to the range,
 * not to a cell); data validations inside the block move with their cells. Returns the old row of each new row.
 */
export function sortRowsAt(sh, { r1, r2, c1, c2, keys }) {
  const order = [];
  for (let r = r1; r <= r2; r++) order.push(r);
  order.sort((a, b) => {
    for (const { column, ascending } of keys) {
      const x = sh.value(a, column), y = sh.value(b, column);
      if (EMPTY(x) || EMPTY(y)) { if (EMPTY(x) !== EMPTY(y)) return EMPTY(x) ? 1 : -1; continue; }
      const d = compareCells(x, y);
      if (d !== 0) return ascending === false ? -d : d;
    }
    return a - b;
  });
  for (const k of PER_CELL) {
    const rows = sh[k];
    const copy = order.map((old) => (rows[old - 1] ? rows[old - 1].slice(c1 - 1, c2) : undefined));
    order.forEach((_, i) => {
      const r = r1 + i, src = copy[i];
      if (!rows[r - 1] && !src) return;
      const row = rows[r - 1] ?? (rows[r - 1] = []);
      for (let c = c1; c <= c2; c++) row[c - 1] = src ? src[c - c1] : undefined;
    });
  }
  moveValidations(sh, { r1, r2, c1, c2 }, order);
  return order;
}

/** A validation rectangle covering every sorted row is unchanged by the sort; one covering some of them is split per row. */
function moveValidations(sh, { r1, r2, c1, c2 }, order) {
  const newRowOf = new Map(order.map((old, i) => [old, r1 + i]));
  const out = [];
  for (const v of sh.validations) {
    const { r, c, nr, nc } = v.rect;
    const ra = Math.max(r, r1), rb = Math.min(r + nr - 1, r2), ca = Math.max(c, c1), cb = Math.min(c + nc - 1, c2);
    if (ra > rb || ca > cb || (r <= r1 && r + nr - 1 >= r2)) { out.push(v); continue; }
    const piece = (rr, cc, nnr, nnc) => { if (nnr > 0 && nnc > 0) out.push({ rect: { r: rr, c: cc, nr: nnr, nc: nnc }, rule: v.rule }); };
    piece(r, c, ra - r, nc);
    piece(rb + 1, c, r + nr - 1 - rb, nc);
    piece(ra, c, rb - ra + 1, ca - c);
    piece(ra, cb + 1, rb - ra + 1, c + nc - 1 - cb);
    for (let o = ra; o <= rb; o++) piece(newRowOf.get(o), ca, 1, cb - ca + 1);
  }
  sh.validations = out;
}
