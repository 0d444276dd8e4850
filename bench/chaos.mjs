// `npm run chaos -- --schedules N [--seed S] [--replay FILE]`: random fault schedules, invariants checked, docs/reliability.md written.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChaos, summaryLine } from './chaos-core.mjs';
import { CHAOS_PROPS } from './chaos-run.mjs';
import { setRuntimeDefaults } from './runtime.mjs';
import { parseLatencySpec } from '../emulator/latency.mjs';
import { fmt, machineLines, table, writeDoc } from './report.mjs';

const { values } = parseArgs({
  options: {
    schedules: { type: 'string', default: '200' },
    seed: { type: 'string' },
    replay: { type: 'string' },
    latency: { type: 'string', default: 'off' },
  },
});
try { parseLatencySpec(values.latency); } catch (err) { console.error(`chaos: ${err.message}`); process.exit(2); }
const schedules = Number(values.schedules);
if (!Number.isInteger(schedules) || schedules < 1) {
  console.error('chaos: --schedules must be a whole number ≥ 1');
  process.exit(2);
}
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
const replay = values.replay ? JSON.parse(readFileSync(values.replay, 'utf8')) : null;
const progress = (line) => console.error(`[chaos] ${line}`);
// --latency google[:SCALE]: every runtime delays its calls as Google would, drawn from the chaos seed.
setRuntimeDefaults({ latency: values.latency, latencySeed: seed });

progress(`${replay ? `replaying the schedule in ${values.replay}` : `${schedules} schedules, seed ${seed}`}, latency ${values.latency}`);
const result = await runChaos({ schedules, seed, progress, replay });
const { totals } = result;

const resultTable = table(['measure', 'value'], [
  ['schedules run', fmt.int(totals.schedules)],
  ['deliveries (doPost executions with a valid token)', fmt.int(totals.deliveries)],
  ['distinct events accepted (summed per schedule)', fmt.int(totals.accepted)],
  ['executions (doPost, processQueue, onEdit, setup)', fmt.int(totals.executions)],
  ['mails sent (replies and triage)', fmt.int(totals.mails)],
  ['final Queue statuses', Object.entries(result.statuses).sort().map(([k, v]) => `${k} ${v}`).join(', ')],
  ['duplicate emails', totals.duplicateEmails],
  ['lost or stuck submissions', totals.lost],
  ['secrets leaked (sheets, execution logs, mails)', totals.secretsLeaked],
  ['wall time', `${result.seconds.toFixed(0)} s`],
]);
const faultTable = table(['fault fired (kind in execution)', 'schedules'],
  Object.entries(result.faults).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v]));
console.log(`${resultTable}\n\n${faultTable}`);

if (result.failure) {
  const f = result.failure;
  const file = join(tmpdir(), `formqueue-chaos-failure-${f.seed}.json`);
  if (f.schedule) writeFileSync(file, `${JSON.stringify(f.schedule, null, 2)}\n`);
  console.log(`\nchaos: an invariant broke. seed=${f.seed}${f.path ? ` path=${f.path}` : ''}`);
  if (f.readable) console.log(`shrunk schedule:\n${f.readable}\n${JSON.stringify(f.schedule)}`);
  console.log(`violations:\n- ${f.violations.join('\n- ')}`);
  console.log(`replay: npm run chaos -- --schedules ${schedules} --seed ${f.seed}${f.schedule ? `   or: npm run chaos -- --replay ${file}` : ''}`);
} else if (values.latency !== 'off') {
  progress('docs/reliability.md is left as it is: it reports the standard run, without --latency');
} else if (!replay) {
  writeDoc('docs/reliability.md', [
    '# Reliability',
    '',
    'Measured by `npm run chaos` (bench/chaos.mjs → bench/chaos-core.mjs). fast-check generates random schedules; each runs',
    'in a fresh local Apps Script runtime (emulator/) on the deployed bundle dist/Code.js: groups of concurrent actions',
    '(distinct and duplicate deliveries — concurrent and late —, overlapping processQueue runs, runs killed by the time',
    'limit inside a Gemini call, staff approvals, deliveries with a wrong token), each group opened by injected faults',
    '(Sheets outages during intake and processing, Gemini 429 per minute and per day, 500, 503, timeouts, blocked prompts,',
    'latency; mail quota exhaustion and its return; the execution killed right after a send). Config approval is on in',
    'about a quarter of the schedules.',
    '',
    'After each schedule the faults are cleared and the queue is drained: processQueue runs until nothing moves, staff',
    'approve what waits for approval, and a day is let pass between rounds (host.advanceClock, which moves the time scripts',
    'see too), so back-offs and stale claims expire and the mail quota day rolls over. Then, for that schedule:',
    '',
    '- no respondent got more than one mail (each event has its own address; every mail carries its row\'s `mail_ref`);',
    '- every accepted event (doPost answered `queued: true`, `queued: "deferred"` or `duplicate`) has a row that ends',
    '  SENT, FAILED, NEEDS_REVIEW, SKIPPED or TEST (other rows of it DUPLICATE), with a reason; none in flight, none spilled;',
    '- a SENT row has exactly its mail; a mail belongs to a SENT or NEEDS_REVIEW row;',
    '- neither the Gemini key nor the webhook token appears in any sheet, execution log or mail.',
    '',
    `Script Properties set for the run: ${Object.entries(CHAOS_PROPS).map(([k, v]) => `\`${k}=${v}\``).join(', ')}.`,
    '',
    '## Latest run',
    ...machineLines(),
    `- Seed: ${result.seed}`,
    '',
    resultTable,
    '',
    'Faults that actually fired, and in how many schedules (an injected fault nobody hit is not counted):',
    '',
    faultTable,
    '',
    '```',
    summaryLine(result),
    '```',
    '',
    '## Reproduce',
    '```',
    `npm run chaos -- --schedules ${schedules} --seed ${result.seed}`,
    '```',
    'A failing run prints the seed, the fast-check path and the shrunk schedule, and writes it to a JSON file in the temp',
    'directory (`npm run chaos -- --replay FILE` runs that schedule alone). `npm test` runs 20 schedules (test/e2e/chaos.test.ts).',
  ].join('\n'));
  progress('wrote docs/reliability.md');
}
console.log(summaryLine(result));
process.exitCode = result.failure ? 1 : 0;
