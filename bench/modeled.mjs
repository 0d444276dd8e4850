// Modeled time of executions under --latency google: what the model charged (start, calls, final flush), deterministic per seed.
import { loadLatencyModel } from '../emulator/latency.mjs';

/** The execution's modeled ms: the model's start and call costs, without this machine's CPU time (null without --latency). */
export function modeledMsOf(exec) {
  return exec?.latency?.modeledDelayMs ?? null;
}

/** Nearest-rank percentile p (0..1) of `values`. */
export function percentile(values, p) {
  const s = values.filter((v) => v !== null && v !== undefined).slice().sort((a, b) => a - b);
  if (s.length === 0) return null;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

/** The cost names the model rates C (a guess), with their median, for the sensitivity line. */
export function guessedCosts(model = loadLatencyModel()) {
  return Object.entries(model.costs).filter(([, c]) => c.confidence === 'C' && c.dist !== 'fixed').map(([name]) => name);
}

/**
 * How much an execution's modeled ms would grow if cost `name` were twice what the model says: its share of the
 * execution, since every draw of that cost (median, spread and per-cell part alike) would double.
 */
export function shareOf(exec, name) {
  return exec?.latency?.byCost?.[name] ?? 0;
}
