// The Google-cost sections of docs/performance.md: tables, the model's sources and confidence, and the sensitivity of each figure to a guess.
import { loadLatencyModel } from '../emulator/latency.mjs';
import { assembleDay, runModeledMs } from './google-bench.mjs';
import { guessedCosts, percentile, shareOf } from './modeled.mjs';
import { fmt, table } from './report.mjs';
import { STEP_NOTES } from './run-breakdown.mjs';

const s1 = (ms) => `${(ms / 1000).toFixed(1)} s`;

export function intakeModeledTable(intake) {
  return table(
    ['Queue rows', 'formqueue calls', 'formqueue p50', 'formqueue p99', 'full-scan calls', 'full-scan p50', 'full-scan p99', 'formqueue / full scan (p50)'],
    intake.map((r) => [fmt.int(r.size), fmt.int(r.formqueue.serviceCalls), fmt.ms(r.formqueue.modeledP50), fmt.ms(r.formqueue.modeledP99),
      fmt.int(r.fullscan.serviceCalls), fmt.ms(r.fullscan.modeledP50), fmt.ms(r.fullscan.modeledP99), `${fmt.x(r.formqueue.modeledP50 / r.fullscan.modeledP50)}×`]),
  );
}

export function callsTable(calls) {
  return Object.entries(calls).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}×${v}`).join(', ');
}

export function burstTable(b) {
  return table(['measure', 'value'], [
    ['deliveries, window, arrivals', `${b.deliveries} over ${b.windowMs / 1000} s, Poisson (seed ${b.seed})`],
    ['queued at once (JSON `queued: true`)', b.queued],
    ['spilled (`queued: "deferred"`), drained by the minute tick', b.spilled],
    ['refused by Google (HTTP 200 HTML: Typeform counts it delivered)', `${b.refused} (${fmt.x(b.refusedPct, 1)} %)`],
    ['other answers (duplicate, error)', b.duplicate + b.failed],
    ['not in Queue before the Typeform check', b.lostBeforeReconcile],
    [`recovered by the Typeform check (\`reconcileTypeform\`, runtime clock moved ${b.reconcileAfterH} h; ${b.reconcileStatus})`, b.recovered],
    ['lost (not in Queue after the Typeform check)', b.lost],
    ['in Queue exactly once after the check', `${b.exactlyOnce} of ${b.deliveries}`],
    ['time until every kept delivery is in Queue', `${b.allInQueueS.toFixed(0)} s after the first arrival (${b.drainTicks} drain ticks after the burst)`],
    ['time until every one is in Queue, counting the Typeform check', b.recovered === 0 && b.lost === 0
      ? `${b.allInQueueS.toFixed(0)} s (nothing to recover)`
      : `the first daily check at least 12 h after the burst (its window ends 12 h back): 12–36 h; the pass itself took ${b.reconcileS.toFixed(0)} s`],
    ['doPost answer time, p50 / max', `${s1(b.answerP50Ms)} / ${s1(b.answerMaxMs)}`],
    ['latency scale of this run', `google:${b.scale} (times read back ÷ ${b.scale})`],
  ]);
}

export function costPerRowTable(c) {
  return table(['measure', 'value'], [
    ['rows PENDING → SENT', `${c.rows} in ${c.runs.length} run(s)`],
    ['service calls per mailed row', fmt.x(c.callsPerRow, 1)],
    ['modeled trigger seconds per mailed row (Gemini 3 s per fetch round)', fmt.x(c.secondsPerRow, 2)],
    ['modeled seconds per row by cost (largest first)', Object.entries(c.byCost).sort((a, b) => b[1] - a[1]).slice(0, 6)
      .map(([k, v]) => `${k} ${fmt.x(v / 1000 / c.rows, 2)}`).join(', ')],
    ['calls by method, whole run', callsTable(c.byMethod)],
  ]);
}

/** Where a mailed row's calls go, step by step (bench/run-breakdown.mjs), per row and over the whole run. */
export function stepTable(c) {
  const steps = Object.entries(c.byStep).filter(([, s]) => s.calls > 0);
  return table(['step', 'calls per mailed row', 'calls in all', 'by method', 'made of'], [
    ...steps.map(([step, s]) => [step, fmt.x(s.calls / c.rows, 2), s.calls, callsTable(s.byMethod), STEP_NOTES[step] ?? '']),
    ['**all**', `**${fmt.x(c.callsPerRow, 2)}**`, steps.reduce((n, [, s]) => n + s.calls, 0), '', ''],
  ]);
}

export function dayTable(d, quotas) {
  return table(['submissions / day', 'busy ticks', 'sweeps', 'idle ticks', 'trigger minutes / day', ...quotas.map((q) => `of ${q.name} (${q.minutes} min)`)],
    d.days.map((x) => [fmt.int(x.n), fmt.int(x.busyTicks), fmt.int(x.sweeps), fmt.int(x.idleTicks), fmt.x(x.minutes, 1),
      ...quotas.map((q) => `${fmt.x((100 * x.minutes) / q.minutes, 0)} %`)]));
}

export function tickTable(d) {
  return table(['tick', 'modeled (median of its runs)', 'service calls'], [
    ['idle (Skipped)', fmt.ms(d.idleMs), d.idleCalls],
    ['15-minute safety sweep (full run, nothing new)', fmt.ms(d.sweepMs), d.sweepExec[0].serviceCalls],
    ['one new delivery, generated and mailed', fmt.ms(d.oneMs), d.oneExec[0].serviceCalls],
    ['two new deliveries', fmt.ms(d.twoMs), '–'],
  ]);
}

/** Every cost of the model with its figure, confidence and source. */
export function modelTable(model = loadLatencyModel()) {
  return table(['cost', 'figure (ms)', 'confidence', 'source'], Object.entries(model.costs).map(([name, c]) => [
    `\`${name}\``,
    c.dist === 'fixed' ? `${c.value}` : `median ${c.median}, p90 ${c.p90}${c.perCell ? `, + ${c.perCell}/cell` : ''}`,
    c.confidence,
    /^https?:/.test(model.sources[c.source] ?? '') ? model.sources[c.source].split(' ')[0] : (model.sources[c.source] ?? c.source),
  ]));
}

/**
 * What each figure becomes if one C-rated (guessed) cost were twice the model's: exact for the sequential runs,
 * since every draw of that cost doubles with the same seed. The burst is left out (its queueing is not linear).
 */
export function sensitivity({ intake, costPerRow, day }) {
  const small = intake[0];
  const p50With = (execs, name) => percentile(execs.map((e) => e.latency.modeledDelayMs + shareOf(e, name)), 0.5);
  const median = (execs, name) => percentile(execs.map((e) => runModeledMs(e) + shareOf(e, name)), 0.5);
  const rowsMs = (name) => costPerRow.runs.reduce((n, r) => n + runModeledMs(r) + shareOf(r, name), 0) / costPerRow.rows;
  const base = {
    dopost: small.formqueue.modeledP50, fullscan: small.fullscan.modeledP50, row: costPerRow.secondsPerRow * 1000,
    day: day.days.at(-1).minutes, idle: day.idleMs,
  };
  const rows = guessedCosts().map((name) => {
    const dayWith = assembleDay(day.days.at(-1).n, {
      idleMs: median(day.idleExec, name), sweepMs: median(day.sweepExec, name), oneMs: median(day.oneExec, name),
      twoMs: day.twoMs + (median(day.oneExec, name) - day.oneMs),
    }).minutes;
    const v = { dopost: p50With(small.formqueue.execs, name), fullscan: p50With(small.fullscan.execs, name), row: rowsMs(name), day: dayWith, idle: median(day.idleExec, name) };
    const worst = Math.max(...Object.keys(base).map((k) => v[k] / base[k]));
    return { name, v, worst };
  }).sort((a, b) => b.worst - a.worst);
  const pct = (k, v) => (v[k] / base[k] - 1 < 0.005 ? '–' : `+${fmt.x(100 * (v[k] / base[k] - 1), 0)} %`);
  const t = table(
    ['C-rated cost ×2', `doPost p50 at ${fmt.int(small.size)} (${fmt.ms(base.dopost)})`, `full scan p50 (${fmt.ms(base.fullscan)})`,
      `s per mailed row (${fmt.x(base.row / 1000, 2)})`, `trigger min/day at ${fmt.int(day.days.at(-1).n)} (${fmt.x(base.day, 0)})`, `idle tick (${fmt.ms(base.idle)})`],
    rows.map((r) => [`\`${r.name}\``, pct('dopost', r.v), pct('fullscan', r.v), pct('row', r.v), pct('day', r.v), pct('idle', r.v)]),
  );
  const top = rows.slice(0, 3).map((r) => `${r.name} (up to +${fmt.x(100 * (r.worst - 1), 0)} %)`).join(', ');
  return { table: t, line: `Sensitivity: doubling a guessed (C) cost moves these figures most: ${top}; every other C cost moves none of them by more than ${fmt.x(100 * ((rows[3]?.worst ?? 1) - 1), 0)} %.` };
}
