// The latency model behind `--latency google`: what each Apps Script call costs on Google, sampled per execution from a seed.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';

const MODEL_URL = new URL('./latency-model.json', import.meta.url);
const Z90 = 1.2815515655446004; // the standard normal's 90th percentile: p90 = median · e^(σ·Z90)

/** The model shipped with the runtime (emulator/latency-model.json). */
export function loadLatencyModel() {
  return JSON.parse(readFileSync(MODEL_URL, 'utf8'));
}

/**
 * `off` (or nothing) → null; `google` → { scale: 1 }; `google:0.1` → { scale: 0.1 } (every delay slept at a tenth,
 * modeled times still at full scale). Throws on anything else, with what is accepted.
 */
export function parseLatencySpec(spec) {
  if (spec === undefined || spec === null || spec === '' || spec === 'off') return null;
  const m = /^google(?::(\d+(?:\.\d+)?|\.\d+))?$/.exec(String(spec).trim());
  const scale = m ? (m[1] === undefined ? 1 : Number(m[1])) : NaN;
  if (!m || !(scale > 0)) throw new Error(`--latency expects off, google or google:SCALE (SCALE > 0, e.g. google:0.1), got "${spec}"`);
  return { scale };
}

/** σ of a lognormal cost given by its median and p90. */
export function sigmaOf(cost) {
  return Math.log(cost.p90 / cost.median) / Z90;
}

/**
 * One draw of a cost from two uniforms in [0, 1) (pure: tests feed their own). Lognormal by Box–Muller:
 * median · e^(σ·z). A `fixed` cost is its value. `perCell` × cells comes on top.
 */
export function sampleCost(cost, u1, u2, cells = 0) {
  let base;
  if (cost.dist === 'fixed') base = cost.value;
  else if (cost.dist === 'lognormal') {
    const z = Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
    base = cost.median * Math.exp(sigmaOf(cost) * z);
  } else throw new Error(`latency model: unknown dist "${cost.dist}"`);
  return base + (cost.perCell ?? 0) * cells;
}

/** A PRNG for execution n under `seed`: each execution draws from its own stream, so interleaving does not change draws. */
export function executionRng(seed, n) {
  const h = createHash('sha256').update(`${seed}:${n}`).digest();
  return xoroshiro128plus(h.readInt32LE(0));
}

/** The model's cost name for a host call `Class.method`. */
export function costNameOf(model, key) {
  return model.calls[key] ?? model.classDefaults[key.slice(0, key.indexOf('.'))] ?? 'other';
}

/** The host's latency: null when off; otherwise hands each execution its own sampler. */
export function createLatency(spec, seed = 1, model = loadLatencyModel()) {
  const parsed = parseLatencySpec(spec);
  if (!parsed) return null;
  return {
    scale: parsed.scale, seed, model, spec: String(spec),
    forExecution: (n) => new ExecutionLatency(model, executionRng(seed, n), parsed.scale),
  };
}

/**
 * What one execution has cost so far. Spreadsheet writes are buffered as on Google: their cells are paid at the next
 * flush, which a read, a structural change, SpreadsheetApp.flush() or the end of the execution forces.
 */
export class ExecutionLatency {
  constructor(model, rng, scale) {
    this.model = model;
    this.rng = rng;
    this.scale = scale;
    this.pendingCells = 0; // cells written since the last flush
    this.modeledMs = 0; // full-scale modeled delays so far
    this.sleptMs = 0; // what was really slept for them (scaled)
    this.startMs = 0; // the modeled start
    this.byCost = {}; // modeled ms per cost name, so a report can say what a figure is made of
  }

  draw(name, cells = 0) {
    const cost = this.model.costs[name];
    if (!cost) throw new Error(`latency model: no cost named "${name}"`);
    return sampleCost(cost, uniformFloat64(this.rng), uniformFloat64(this.rng), cells);
  }

  /** The start of an execution: warm start, bundle size, and a cold start after a long idle. */
  start({ bundleKb = 0, cold = false } = {}) {
    const warm = this.draw('execution.start'), perKb = this.model.costs['execution.startPerKb'].value * bundleKb;
    const coldExtra = cold ? this.draw('execution.coldExtra') : 0;
    this.startMs = warm + perKb + coldExtra;
    this.note('execution.start', warm);
    this.note('execution.startPerKb', perKb);
    if (cold) this.note('execution.coldExtra', coldExtra);
    return this.charge(this.startMs);
  }

  /** Modeled ms of one call `Class.method` touching `cells` cells; answers what to sleep (scaled). */
  call(key, cells = 0) {
    const name = costNameOf(this.model, key);
    let ms = 0;
    if (name === 'spreadsheet.write') {
      this.pendingCells += cells;
      ms = this.note(name, this.draw(name, cells));
    } else if (name === 'spreadsheet.flush') {
      ms = this.flush() || this.note('spreadsheet.flushEmpty', this.model.costs['spreadsheet.flushEmpty'].value);
    } else if (name.startsWith('spreadsheet.') && name !== 'spreadsheet.format') {
      ms = this.flush() + this.note(name, this.draw(name, cells)); // a read or a structural change commits pending writes first
    } else {
      ms = this.note(name, this.draw(name, cells));
    }
    return this.charge(ms);
  }

  flush() {
    if (this.pendingCells === 0) return 0;
    const ms = this.note('spreadsheet.flush', this.draw('spreadsheet.flush', this.pendingCells));
    this.pendingCells = 0;
    return ms;
  }

  /** Adds `ms` to cost `name`'s share of this execution; answers `ms`. */
  note(name, ms) {
    this.byCost[name] = (this.byCost[name] ?? 0) + ms;
    return ms;
  }

  /** The implicit flush at the end of the execution: modeled, not slept (the script has already returned). */
  finish(wallMs) {
    this.modeledMs += this.flush();
    return wallMs - this.sleptMs + this.modeledMs;
  }

  charge(ms) {
    const slept = ms * this.scale;
    this.modeledMs += ms;
    this.sleptMs += slept;
    return slept;
  }
}

/**
 * The cells getSheetValues returns: -1 rows or columns reach "the very last row or column that has data in the sheet",
 * from the start cell (developers.google.com/apps-script/reference/spreadsheet/sheet#getSheetValues(Integer,Integer,Integer,Integer)),
 * so a header read (1, 1, 1, -1) is one row, not the whole sheet.
 */
function sheetValuesCells(sh, [r = 1, c = 1, nr, nc]) {
  if (!sh) return 0;
  const rows = nr === -1 ? sh.lastRow() - r + 1 : nr, cols = nc === -1 ? sh.lastColumn() - c + 1 : nc;
  const count = (n) => (Number.isFinite(n) ? Math.max(0, n) : 0);
  return count(rows) * count(cols);
}

/** How many cells a host call touches, for costs priced per cell. */
export function cellsOf(ss, req) {
  const h = req.h ?? {};
  if (req.c === 'Range') return (h.nr ?? 1) * (h.nc ?? 1);
  if (req.c === 'Sheet' && req.m === 'appendRow') return Array.isArray(req.a?.[0]) ? req.a[0].length : 0;
  const sheetCells = (sid) => { const sh = ss.byId(sid); return sh ? Math.max(1, sh.lastRow()) * Math.max(1, sh.lastColumn()) : 0; };
  if (req.c === 'Sheet' && req.m === 'getSheetValues') return sheetValuesCells(ss.byId(h.sid), req.a ?? []);
  if (req.c === 'TextFinder') {
    const t = h.target;
    return t?.__ref === 'Range' ? t.h.nr * t.h.nc : sheetCells(t?.h?.sid);
  }
  return 0;
}
