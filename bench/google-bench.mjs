// Google's costs per mailed reply, the daily trigger budget and the idle tick, in modeled time (--latency google, seeded).
import { median, pendingQueue, startRuntime, submission } from '../harness/runtime.mjs';
import { modeledMsOf } from './modeled.mjs';
import { breakdownOf } from './run-breakdown.mjs';

export const GEMINI_MS = 3000; // the fixed Gemini time per request
const TICKS_PER_DAY = 1440; // everyMinutes(1)
const SWEEPS_PER_DAY = 96; // the 15-minute safety sweep (src/core/domain/queue/tick-gate.ts)
const FETCH_KEYS = ['UrlFetchApp.fetch', 'UrlFetchApp.fetchAll'];

/**
 * A trigger run's modeled ms: the model's costs plus Gemini's own 3 s per fetch round (a fetchAll's requests run in
 * parallel, so one round costs one Gemini time). The offline Gemini answers after GEMINI_MS × scale of real time,
 * which the model does not see, so it is added here at full scale.
 */
export function runModeledMs(exec) {
  const rounds = FETCH_KEYS.reduce((n, key) => n + (exec.calls[key] ?? 0), 0);
  return modeledMsOf(exec) + rounds * GEMINI_MS;
}


/** Trigger runs until every row is SENT: service calls and modeled trigger seconds per mailed row, and where the calls go. */
export async function measureCostPerRow({ rows = 40, latency, seed, progress = () => undefined }) {
  const scale = Number(String(latency).split(':')[1] ?? 1);
  const rt = await startRuntime({ host: { latency, latencySeed: seed, traceCalls: true } });
  try {
    await pendingQueue(rt, rows);
    rt.host.faults.add({ target: 'gemini', latencyMs: GEMINI_MS * scale });
    const runs = [];
    for (let i = 0; i < 20 && rt.queue().some((row) => row.status !== 'SENT'); i++) runs.push(await rt.run('processQueue'));
    const sent = rt.queue().filter((row) => row.status === 'SENT').length;
    if (sent !== rows) throw new Error(`google bench: ${sent} of ${rows} rows SENT after ${runs.length} runs: ${runs.map((r) => r.value).join(' | ')}`);
    const calls = runs.reduce((n, r) => n + r.serviceCalls, 0);
    const ms = runs.reduce((n, r) => n + runModeledMs(r), 0);
    const byMethod = {}, byCost = { 'gemini (fixed 3 s per round)': 0 };
    for (const r of runs) for (const [k, v] of Object.entries(r.calls)) byMethod[k] = (byMethod[k] ?? 0) + v;
    for (const r of runs) for (const [k, v] of Object.entries(r.latency?.byCost ?? {})) byCost[k] = (byCost[k] ?? 0) + v;
    for (const r of runs) byCost['gemini (fixed 3 s per round)'] += runModeledMs(r) - modeledMsOf(r);
    progress(`cost per row: ${rows} rows SENT in ${runs.length} runs, ${calls} calls, ${(ms / 1000).toFixed(1)} modeled s`);
    const byStep = breakdownOf(runs);
    for (const r of runs) delete r.trace; // kept out of the sensitivity's and report's way: thousands of entries
    return { rows, runs, callsPerRow: calls / rows, secondsPerRow: ms / 1000 / rows, byMethod, byCost, byStep };
  } finally {
    await rt.close();
  }
}

/**
 * The ticks a day is made of, each measured once in the runtime: idle (nothing to do), the safety sweep (a full run
 * with nothing new), a run with one new delivery and with two (its marginal row). The day is then assembled for N
 * submissions spread at random over 1,440 minute ticks: a tick has work with probability 1 − e^(−N/1440).
 */
export async function measureTriggerDay({ latency, seed, perDay = [100, 1500], progress = () => undefined }) {
  const scale = Number(String(latency).split(':')[1] ?? 1);
  const rt = await startRuntime({ host: { latency, latencySeed: seed } });
  try {
    rt.host.faults.add({ target: 'gemini', latencyMs: GEMINI_MS * scale });
    const busyRun = async (n, base) => {
      for (let i = 0; i < n; i++) await rt.deliver(submission(base + i));
      return rt.run('processQueue');
    };
    await busyRun(1, 900); // warm-up: the first run also creates what Set up left for later
    const one = [], two = [], idle = [], sweep = [];
    for (let k = 0; k < 3; k++) {
      one.push(await busyRun(1, 1000 + 10 * k));
      two.push(await busyRun(2, 2000 + 10 * k));
      for (let i = 0; i < 3; i++) idle.push(await rt.run('processQueue'));
      rt.host.properties.set('FQ_LAST_SWEEP_AT', '0'); // the next tick is the 15-minute sweep
      sweep.push(await rt.run('processQueue'));
    }
    for (const e of idle) if (!/^Skipped/.test(String(e.value))) throw new Error(`google bench: an idle tick did not skip: ${e.value}`);
    const f = {
      idleMs: median(idle.map(runModeledMs)), idleCalls: Math.max(...idle.map((e) => e.serviceCalls)),
      sweepMs: median(sweep.map(runModeledMs)), oneMs: median(one.map(runModeledMs)), twoMs: median(two.map(runModeledMs)),
      idleExec: idle, oneExec: one, sweepExec: sweep,
    };
    f.days = perDay.map((n) => ({ n, ...assembleDay(n, f) }));
    progress(`trigger day: idle ${f.idleMs.toFixed(0)} ms, sweep ${f.sweepMs.toFixed(0)} ms, 1-row run ${f.oneMs.toFixed(0)} ms, 2-row run ${f.twoMs.toFixed(0)} ms`);
    return f;
  } finally {
    await rt.close();
  }
}

/** Minutes of trigger time in a day of `n` submissions, from the measured ticks (see measureTriggerDay). */
export function assembleDay(n, { idleMs, sweepMs, oneMs, twoMs }) {
  const busy = TICKS_PER_DAY * (1 - Math.exp(-n / TICKS_PER_DAY));
  const extraRows = n - busy;
  const sweeps = SWEEPS_PER_DAY * (1 - busy / TICKS_PER_DAY); // a sweep falling on a busy tick is that run
  const idle = TICKS_PER_DAY - busy - sweeps;
  const ms = busy * oneMs + extraRows * Math.max(0, twoMs - oneMs) + sweeps * sweepMs + idle * idleMs;
  return { busyTicks: busy, sweeps, idleTicks: idle, minutes: ms / 60000 };
}
