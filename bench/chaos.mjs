// `npm run chaos -- --schedules N [--seed S] [--replay FILE] [--world random | --world KEY=VALUE …]`: random fault schedules, invariants checked, docs/reliability.md written.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChaos, summaryLine } from './chaos-core.mjs';
import { CHAOS_PROPS } from './chaos-run.mjs';
import { setRuntimeDefaults } from '../harness/runtime.mjs';
import { parseLatencySpec } from '../emulator/latency.mjs';
import { parseWorldPairs } from '../emulator/worlds.mjs';
import { fmt, machineLines, table, writeDoc } from './report.mjs';
import { sectionOf } from './outage-checks.mjs';

const { values } = parseArgs({
  options: {
    schedules: { type: 'string', default: '200' },
    seed: { type: 'string' },
    replay: { type: 'string' },
    latency: { type: 'string', default: 'off' },
    // `random`: each schedule draws one reading of every undocumented platform answer; KEY=VALUE fixes one for all.
    world: { type: 'string', multiple: true, default: [] },
  },
});
const randomWorlds = values.world.includes('random');
let fixedWorlds;
try { fixedWorlds = parseWorldPairs(values.world.filter((w) => w !== 'random')); } catch (err) { console.error(`chaos: ${err.message}`); process.exit(2); }
if (randomWorlds && Object.keys(fixedWorlds).length > 0) {
  console.error('chaos: --world random draws every switch; give either random or KEY=VALUE pairs');
  process.exit(2);
}
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
setRuntimeDefaults({ latency: values.latency, latencySeed: seed, worlds: fixedWorlds });
const worldsSaid = randomWorlds ? 'a world drawn per schedule' : Object.keys(fixedWorlds).length > 0 ? Object.entries(fixedWorlds).map(([k, v]) => `${k}=${v}`).join(' ') : 'the default world';

progress(`${replay ? `replaying the schedule in ${values.replay}` : `${schedules} schedules, seed ${seed}`}, latency ${values.latency}, ${worldsSaid}`);
// The first failing schedule is saved (and its violations printed) before shrinking, which can take longer than the run.
const onFirstFailure = ({ schedule, violations }) => {
  const file = join(tmpdir(), `formqueue-chaos-first-failure-${seed}.json`);
  writeFileSync(file, `${JSON.stringify(schedule, null, 2)}\n`);
  progress(`an invariant broke; shrinking the schedule now. Unshrunk, it replays with: npm run chaos -- --replay ${file}`);
  for (const violation of violations) progress(`  - ${violation}`);
};
const result = await runChaos({ schedules, seed, progress, replay, onFirstFailure, randomWorlds });
const { totals } = result;

const resultTable = table(['measure', 'value'], [
  ['schedules run', fmt.int(totals.schedules)],
  ['deliveries (doPost executions with a valid token)', fmt.int(totals.deliveries)],
  ['distinct events accepted (summed per schedule)', fmt.int(totals.accepted)],
  ['deliveries refused by the platform (over 30 simultaneous)', fmt.int(totals.refusedByPlatform)],
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
const worldTable = Object.keys(result.worlds).length === 0 ? null : table(['world (switch=reading)', 'schedules'],
  Object.entries(result.worlds).sort((a, b) => a[0].localeCompare(b[0])).map(([k, v]) => [k, v]));
console.log(`${resultTable}\n\n${faultTable}${worldTable ? `\n\n${worldTable}` : ''}`);

if (result.failure) {
  const f = result.failure;
  const file = join(tmpdir(), `formqueue-chaos-failure-${f.seed}.json`);
  if (f.schedule) writeFileSync(file, `${JSON.stringify(f.schedule, null, 2)}\n`);
  console.log(`\nchaos: an invariant broke. seed=${f.seed}${f.path ? ` path=${f.path}` : ''}`);
  if (f.readable) console.log(`shrunk schedule:\n${f.readable}\n${JSON.stringify(f.schedule)}`);
  console.log(`violations:\n- ${f.violations.join('\n- ')}`);
  console.log(`replay: npm run chaos -- --schedules ${schedules} --seed ${f.seed}${values.world.map((w) => ` --world ${w}`).join('')}${f.schedule ? `   or: npm run chaos -- --replay ${file}` : ''}`);
} else if (!replay) {
  const typeformSection = sectionOf(readFileSync(new URL('../docs/reliability.md', import.meta.url), 'utf8'));
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
    'Actors besides deliveries and runs, while runs are in flight: staff sorting the Queue, inserting rows, deleting blank or',
    'DUPLICATE rows, pasting READY/APPROVED/PENDING over status cells (a paste has no `e.value`), clearing a SENT row\'s',
    '`sent_at`; "Process now", "Accept rejected delivery" and Set up run by a staff member, not the deployer; poison',
    'deliveries (a 60,000-character `response_token` or `form_id`, a 246+-character `event_id`, a 200,000-deep and a',
    '5,000-deep JSON body, a 60,000-character `event_type`); bursts of 31–36 simultaneous deliveries, past the 30',
    'simultaneous executions Google runs for one user, so the surplus gets Google\'s HTML 200 and no script runs: these',
    'count as `refused_by_platform`. The actors issue #24 added: staff deleting a SENT, PENDING or READY row, copying a',
    'whole row over another submission\'s row, inserting a column between two system columns, renaming Queue and running',
    'Set up, deleting a send ledger line of the Log or editing its `event_id` or `detail`; deliveries with the right token',
    'for a form Config does not enable; and "Process now" by a staff member killed right after the send while the Sent',
    'check is on (such schedules run with `RECONCILE_SENT_MAIL=true` and the manifest with Gmail read access). About a',
    'quarter of the schedules also open with a burst of 34 new submissions beside the first group. Every delivery is',
    'recorded in the offline Typeform API (as Typeform stores every submission, whether its webhook got through or not;',
    'outsiders\' poison posts are not), and 13 h after the schedule `reconcileTypeform` runs (the daily "Check Typeform',
    'for missed submissions"). `--latency google:0.1` adds Google\'s latencies, scaled.',
    'Issue #25\'s actors send submissions through the runtime\'s Typeform sender instead (`typeformSubmit`: POST /exec, the',
    '302 followed or counted as a failure as the schedule\'s `typeformRedirect` world says, retries on Typeform\'s schedule',
    'made due by the runtime clock), remove the deployment for 15–60 minutes while a respondent submits (`typeformOutage`:',
    'the 404 disables the webhook at once; the watch runs during the window and 15 minutes after it) and run the 15-minute',
    'webhook watch (`typeformWatch`), each watch with the deployer\'s `TYPEFORM_WEBHOOK_REENABLE` on or off as drawn; they',
    'move the clock only while no execution runs, at most 12 h a schedule. Each response given to that sender is stored',
    'by Typeform, delivered or not, and must end answered once (or with a person), recovered by the watch or the daily',
    'check when its delivery never got through (test/e2e/chaos-issue25-actors.test.ts runs a crafted schedule in both',
    'readings).',
    'Issue #28\'s mail safety is drawn per schedule (bench/chaos-safety.mjs): in about half the schedules the form has a',
    'send window in Config from the start (`send_hours`, sometimes with a `time_zone`); staff set or clear it mid-schedule',
    '(`staffSendHours`); the runtime clock moves 1–6 hours while no execution runs (`clockHours`, within the same 12 h),',
    'across the window\'s edges; Gemini is talked into it (`injectedReply` delivers a new submission: the runtime\'s',
    '`reply` fault answers it with an outside link or another address, its `obey` fault follows the instruction its',
    'respondent typed into the essay; the drain keeps the injections not used up); in about half the schedules',
    '`MAX_NEW_RECIPIENTS_PER_HOUR` is 2–5 (and sometimes',
    '`MAX_NEW_RECIPIENTS_PER_DAY` 4–10), which the schedule\'s respondents trip. The drain moves the clock inside the',
    'window before each run (as the morning trigger would mail) and gets a run for each batch the ceiling lets through',
    '(test/e2e/chaos-issue28-safety.test.ts runs a crafted schedule).',
    'test/e2e/chaos-every-actor.json is one schedule that fires every actor but issue #24\'s, and',
    'test/e2e/chaos-issue24-actors.json one that fires each of issue #24\'s; both run in `npm test`.',
    '',
    'After each schedule the faults are cleared and the queue is drained: processQueue runs until nothing moves, staff',
    'approve what waits for approval, set PENDING where a row\'s reason says "safe to resend — set PENDING" and run Set up',
    'when the Queue tab is gone or the "Setting missing" mail says so; a Typeform check that failed runs again the next day',
    '(it is a daily trigger); and a day is let pass between rounds (host.advanceClock, which moves the time scripts see',
    'too), so back-offs and stale claims expire and the mail quota day rolls over. Then, for that schedule:',
    '',
    '- no respondent got more than one mail (each event has its own address; every mail carries its row\'s `mail_ref`);',
    '- every accepted event (doPost answered `queued: true`, `queued: "deferred"` or `duplicate`) has a row that ends',
    '  SENT, FAILED, NEEDS_REVIEW, SKIPPED or TEST (other rows of it DUPLICATE, or waiting for a person with a reason, as a',
    '  staff copy the product names `COPIED`), with a reason; none in flight, none spilled. Only Queue and Archive count: a',
    '  submission whose row staff deleted, pasted over or left in a renamed sheet, and that nothing put back (a row put back',
    '  as NEEDS_REVIEW with its reason is with a person), is lost, unless it was mailed exactly once and the Journal holds',
    '  it (a finished row tidied away: nothing is missing from the sheets);',
    '- a delivery for a form Config does not enable is never accepted, so never lost, but each one a script ran for is in',
    '  Rejected (or queued from there);',
    '- every event the platform refused has such a row too (recovered by the Typeform check, its event id `reconciled:…`),',
    '  unless a bad-token delivery of it sits in Rejected, where staff accept it: otherwise it counts as lost, so',
    '  `lost=0` holds only when reconciliation recovered every `refused_by_platform` delivery. That check is opt-in: it',
    '  runs only while `TYPEFORM_TOKEN` is set (this run sets it); without it, a delivery refused by Google or answered',
    '  `backlog_full` is not recovered (the response stays in Typeform only);',
    '- a SENT row has exactly its mail; a mail belongs to a SENT or NEEDS_REVIEW row;',
    '- neither the Gemini key, the webhook token nor the Typeform token appears in any sheet, execution log or mail;',
    '- no row holds an event no delivery sent (a staff paste never lands a status on a row of no event);',
    '- a reply an injection steered (it carries the injected domain) is mailed only after a person set its row\'s status',
    '  (approved it, or pasted a status over it): until then the reply policy holds it AWAITING_APPROVAL;',
    '- no reply is mailed outside the form\'s send window in effect (one changed up to an execution\'s 6 minutes earlier',
    '  counts too: a run may have read it);',
    '- no more respondents mailed for the first time in a rolling hour (day) than `MAX_NEW_RECIPIENTS_PER_HOUR`',
    '  (`_PER_DAY`) allows.',
    '',
    'When Google refuses the on-edit trigger (30 executions of the deployer running), a `sent_at`, `mail_ref` or',
    '`claimed_at` a person cleared is put back by the next full processQueue run from the Log\'s ledger line',
    '(docs/states.md); the every-actor schedule clears a `sent_at` during a burst of 33 deliveries.',
    '',
    'A live submission\'s row deleted, pasted over or left in a renamed Queue is put back from the Journal by the next',
    'full run (NEEDS_REVIEW, `RESTORED`); the Typeform check counts every journaled response as already here, so a SENT row',
    'staff deleted is never queued again; a claim records the account that sent, and the Sent check judges only its own',
    '(docs/states.md). Not guaranteed: when Google refuses the on-edit trigger, a status edit is not judged until a person',
    'looks, and a system value typed over another is not put back — the Log check before any send still stops any second',
    'mail.',
    '',
    `Script Properties set for the run: ${Object.entries(CHAOS_PROPS).map(([k, v]) => `\`${k}=${v}\``).join(', ')}.`,
    '',
    '## Latest run',
    ...machineLines(),
    `- Seed: ${result.seed}; latency: ${values.latency}; worlds: ${worldsSaid}`,
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
    'Actors that fired, and in how many schedules:',
    '',
    table(['actor', 'schedules'], Object.entries(result.actors).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v])),
    '',
    ...(worldTable ? ['Worlds (docs/runtime.md#worlds: a reading of each platform answer Google does not document) the schedules ran in:', '', worldTable, ''] : []),
    '## Reproduce',
    '```',
    `npm run chaos -- --schedules ${schedules} --seed ${result.seed}${values.latency === 'off' ? '' : ` --latency ${values.latency}`}${values.world.map((w) => ` --world ${w}`).join('')}`,
    '```',
    'A failing run prints the seed, the fast-check path and the shrunk schedule, and writes it to a JSON file in the temp',
    'directory (`npm run chaos -- --replay FILE` runs that schedule alone). `npm test` runs 5 schedules of every actor (`npm run test:chaos` 20)',
    'and the every-actor schedule (test/e2e/chaos.test.ts), and issue #24\'s actors on crafted schedules',
    '(test/e2e/chaos-staff-actors.test.ts).',
    // The section `npm run typeform-outage` writes is its run's, not this one's: kept as it stands.
    ...(typeformSection === '' ? [] : ['', typeformSection]),
  ].join('\n'));
  progress('wrote docs/reliability.md');
}
console.log(summaryLine(result));
process.exitCode = result.failure ? 1 : 0;
