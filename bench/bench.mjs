// `npm run bench`: measures the performance targets in the local runtime, writes docs/performance.md, prints the summary last.
import { measureIdleAndRuntime } from './idle-bench.mjs';
import { measureIntake } from './intake-bench.mjs';
import { measureThroughput } from './throughput-bench.mjs';
import { fmt, machine, machineLines, table, writeDoc } from './report.mjs';
import { setRuntimeDefaults } from './runtime.mjs';
import { parseLatencySpec } from '../emulator/latency.mjs';
import { parseArgs } from 'node:util';

const SIZES = [1000, 10000, 100000];
const DELIVERIES_PER_SIZE = 5;
const K = 4;
const LATENCY_MS = 500;
const BUDGET_SECONDS = 12;
const PENDING_ROWS = 300;

const progress = (line) => console.error(`[bench] ${line}`);

// `npm run bench -- --latency google[:SCALE] [--seed N]`: every runtime delays its calls as Google would.
const { values: flags } = parseArgs({ options: { latency: { type: 'string', default: 'off' }, seed: { type: 'string', default: '1' } } });
try { parseLatencySpec(flags.latency); } catch (err) { console.error(`bench: ${err.message}`); process.exit(2); }
setRuntimeDefaults({ latency: flags.latency, latencySeed: Number(flags.seed) });
// The committed report is the standard run's; a run with --latency prints its tables only.
const writeReport = flags.latency === 'off' ? writeDoc : (file) => progress(`${file} is left as it is: it reports the standard run, without --latency`);

async function main() {
  const started = Date.now();
  const intake = await measureIntake({ sizes: SIZES, perSize: DELIVERIES_PER_SIZE, progress });
  const throughput = await measureThroughput({ k: K, latencyMs: LATENCY_MS, budgetSeconds: BUDGET_SECONDS, rows: PENDING_ROWS, progress });
  const idle = await measureIdleAndRuntime({ progress });

  const small = intake[0], big = intake[intake.length - 1];
  const callsRatio = big.formqueue.serviceCalls / small.formqueue.serviceCalls;
  const cellsFlat = big.formqueue.cellsRead / small.formqueue.cellsRead;
  const cellsVsFullscan = big.fullscan.cellsRead / big.formqueue.cellsRead;

  const targets = [
    { name: 'intake service calls flat', target: '100k/1k ≤ 1.05', result: fmt.x(callsRatio, 3), ok: callsRatio <= 1.05 },
    { name: 'intake cells read flat', target: '100k/1k ≤ 1.05', result: fmt.x(cellsFlat, 3), ok: cellsFlat <= 1.05 },
    { name: 'cells read vs full scan at 100k', target: '≥ 1000× fewer', result: `${fmt.int(cellsVsFullscan)}× fewer`, ok: cellsVsFullscan >= 1000 },
    { name: `generation throughput, K=${K} vs 1`, target: `≥ ${0.75 * K}× (0.75·K)`, result: `${fmt.x(throughput.ratio)}×`, ok: throughput.ratio >= 0.75 * K },
    { name: 'idle tick service calls', target: '≤ 2', result: String(idle.idleServiceCalls), ok: idle.idleServiceCalls <= 2 },
    { name: 'idle tick opens the spreadsheet', target: 'no', result: idle.idleOpened ? 'yes' : 'no', ok: !idle.idleOpened },
  ];

  const intakeTable = table(
    ['Queue rows', 'formqueue calls', 'formqueue cells read', 'formqueue ms/delivery', 'full-scan calls', 'full-scan cells read', 'full-scan ms/delivery', 'cells ratio'],
    intake.map((r) => [fmt.int(r.size), fmt.int(r.formqueue.serviceCalls), fmt.int(r.formqueue.cellsRead), fmt.ms(r.formqueue.wallMs),
      fmt.int(r.fullscan.serviceCalls), fmt.int(r.fullscan.cellsRead), fmt.ms(r.fullscan.wallMs), `${fmt.int(r.fullscan.cellsRead / r.formqueue.cellsRead)}×`]),
  );
  const throughputTable = table(
    ['GEMINI_CONCURRENCY', 'Gemini latency', 'RUN_BUDGET_SECONDS', 'rows generated in one run', 'of which sent', 'Gemini fetches', 'run wall time'],
    [throughput.one, throughput.many].map((r) => [r.k, `${LATENCY_MS} ms`, BUDGET_SECONDS, r.generated, r.sent, r.fetches, fmt.ms(r.wallMs)]),
  );
  const runtimeTable = table(
    ['measure', 'value'],
    [
      ['idle tick: service calls (max of 5)', idle.idleServiceCalls],
      ['idle tick: calls by method', Object.entries(idle.idleCalls).map(([k, v]) => `${k}×${v}`).join(', ')],
      ['idle tick: spreadsheet opened', idle.idleOpened ? 'yes' : 'no'],
      ['idle tick: wall time (median)', fmt.ms(idle.idleWallMs)],
      ['service-call round trip (median / p90 / p99)', `${fmt.x(idle.rtt.medianUs, 0)} / ${fmt.x(idle.rtt.p90Us, 0)} / ${fmt.x(idle.rtt.p99Us, 0)} µs over ${idle.rtt.samples} calls`],
      ['execution start-up (worker + bundle load, no call; median)', fmt.ms(idle.startupMs)],
    ],
  );
  const targetTable = table(['target', 'required', 'measured', 'met'], targets.map((t) => [t.name, t.target, t.result, t.ok ? 'yes' : '**NO**']));
  const summary = `bench: intake_calls_100k_over_1k=${callsRatio.toFixed(2)} cells_ratio_fullscan_100k=${Math.round(cellsVsFullscan)} ` +
    `throughput_ratio=${throughput.ratio.toFixed(2)} concurrency=${K} idle_service_calls=${idle.idleServiceCalls}`;

  const sections = [
    `## Intake per delivery (median of ${DELIVERIES_PER_SIZE} new deliveries per size, each bundle on the same spreadsheet)`, intakeTable,
    `## Generation throughput (one processQueue run, ${PENDING_ROWS} PENDING rows, offline Gemini with a fixed ${LATENCY_MS} ms latency)`, throughputTable,
    '## Idle tick and the runtime', runtimeTable,
    '## Targets', targetTable,
  ];
  console.log(sections.join('\n\n'));
  const m = machine();
  writeReport('docs/performance.md', [
    '# Performance',
    '',
    'Measured by `npm run bench` (bench/bench.mjs) in the local Apps Script runtime (emulator/), which runs the deployed',
    'bundle dist/Code.js and counts every service call, cell read and written, fetch and mail per execution. The full-scan',
    'intake is a reference written only in bench/fullscan/Code.js (`getDataRange().getValues()`, look for the `event_id`,',
    '`appendRow`), run by the same runtime against the same spreadsheet. Wall times are this machine\'s and the emulator\'s,',
    'not Google\'s: compare them side by side, not with production. Service calls and cells are what the targets are about.',
    '',
    'Each size is loaded straight into the host (GasHost.loadSheet), so the grid is exactly full: the first formqueue',
    'delivery after a load adds 1,000 grid rows and formats them (two more calls, `insertRowsAfter` and `setNumberFormats`), which the median leaves out.',
    '',
    '## Machine',
    ...machineLines(m),
    `- Bench wall time: ${((Date.now() - started) / 1000).toFixed(0)} s`,
    '',
    ...sections.flatMap((s) => [s, '']),
    '## Summary line',
    '```',
    summary,
    '```',
    '',
    '## Reproduce',
    '```',
    'npm ci && npm run bench',
    '```',
    'The knobs (sizes, deliveries per size, latency, budget, K) are constants at the top of bench/bench.mjs.',
  ].join('\n'));
  progress(`${flags.latency === 'off' ? 'wrote docs/performance.md' : `finished (latency ${flags.latency})`} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const missed = targets.filter((t) => !t.ok);
  for (const t of missed) console.log(`bench: target missed: ${t.name}: required ${t.target}, measured ${t.result}`);
  console.log(summary);
  process.exitCode = missed.length > 0 ? 1 : 0;
}

main().catch((error) => {
  console.error(error?.stack ?? String(error));
  process.exitCode = 2;
});
