// npm run typeform-outage: days of submissions through Typeform's own sender, one 1-hour 404 window and an outsider flood; checks and prints what happened.
//
// The runtime's Typeform sender (emulator/typeform-sender.mjs) delivers each submission to the web app as Typeform's
// published policy says, with the web app's 302 followed or counted as a failure (`typeformRedirect`, both by
// default). formqueue runs as deployed: processQueue every step, the webhook watch every 15 modeled minutes, the daily
// Typeform check at 06:00, TYPEFORM_WEBHOOK_REENABLE on. Time is modeled: the runtime clock moves 15 minutes a step.
// Exits 1 when a check of issue #25's "Done when" fails (outage-checks.mjs); with --mode both and every check held,
// it writes its figures to docs/reliability.md (section "Typeform's sender").
//   node bench/typeform-outage.mjs [--days 3] [--per-day 100] [--mode follow|fail|both] [--flood 200]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { recipientOf, startRuntime, submission } from '../harness/runtime.mjs';
import { outageChecks, outageSection, replaceSection } from './outage-checks.mjs';
import { machineLines, writeDoc } from './report.mjs';

const FORM = 'Wr1tE5sy';
const MIN = 60_000;
const STEP = 15 * MIN;

const { values } = parseArgs({ options: { days: { type: 'string', default: '3' }, 'per-day': { type: 'string', default: '100' }, mode: { type: 'string', default: 'both' }, flood: { type: 'string', default: '200' } } });
const days = Number(values.days);
const perDay = Number(values['per-day']);
const flood = Number(values.flood);
const modes = values.mode === 'both' ? ['fail', 'follow'] : [values.mode];

/** Replies per respondent of submissions 0..n-1: how many were answered once, twice or more, or never. */
function repliesOf(outbox, n) {
  const replies = new Map();
  for (const mail of outbox) replies.set(mail.to, (replies.get(mail.to) ?? 0) + 1);
  const counts = Array.from({ length: n }, (_, i) => replies.get(recipientOf(i)) ?? 0);
  return {
    once: counts.filter((count) => count === 1).length,
    duplicates: counts.reduce((sum, count) => sum + Math.max(0, count - 1), 0),
    lost: counts.filter((count) => count === 0).length,
    notOnce: counts.map((count, i) => [i, count]).filter(([, count]) => count !== 1).slice(0, 10).map(([i, count]) => `${i}:${count}`),
  };
}

/** One run in one reading of the 302; the figures. */
async function outage(mode) {
  const started = Date.now();
  const rt = await startRuntime({ typeform: true, worlds: { typeformRedirect: mode }, props: { TYPEFORM_WEBHOOK_REENABLE: 'true' } });
  const { server, host } = rt;
  await host.edit({ sheet: 'Config', a1: 'A2', value: FORM, user: 'owner@example.com' });
  server.typeform.setWebhook({ form_id: FORM, enabled: true });
  // Every PUT that switches the webhook back on (the watch's re-enable), on the runtime clock.
  const reenabledAt = [];
  const judgeAfresh = server.typeform.onWebhookUpdated;
  server.typeform.onWebhookUpdated = (formId, tag) => { reenabledAt.push(host.now()); judgeAfresh(formId, tag); };
  const post = (path, body) => fetch(`${server.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
  const t0 = host.now();
  const steps = (days * 24 * 60 * MIN) / STEP;
  const outageStep = Math.floor(steps / 2) - 2; // the 404 hour: the middle of the run
  const floodStep = Math.floor(steps / 3);
  let n = 0;
  let junkQueued = 0;
  let outageFrom = NaN;
  let outageTo = NaN;
  for (let step = 0; step < steps; step += 1) {
    if (step === outageStep) { await post('/api/deployment', { active: false }); outageFrom = host.now(); }
    if (step === outageStep + 4) { await post('/api/deployment', { active: true }); outageTo = host.now(); }
    if (step === floodStep) {
      // An outsider posts junk without the token: rejected, counted, bounded; nothing to do with Typeform.
      const answers = await Promise.all(Array.from({ length: flood }, (_, i) => rt.deliver(`{"junk":${i}}`, null, { typeform: false })));
      junkQueued = answers.filter(({ answer }) => answer?.queued === true || answer?.queued === 'deferred').length;
    }
    const due = Math.floor(((step + 1) * STEP * perDay) / (24 * 60 * MIN));
    while (n < due) {
      const at = new Date(host.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
      server.sender.submit(submission(n, (body) => { body.form_response.submitted_at = at; body.form_response.landed_at = at; }));
      n += 1;
    }
    await server.sender.runDue();
    await rt.run('watchTypeformWebhook');
    // The daily check at 06:00 of the modeled day (the runtime's trigger fires every 1,440 ticks, not at an hour).
    if (new Date(host.now()).getUTCHours() === 6 && new Date(host.now()).getUTCMinutes() < 15) await rt.run('reconcileTypeform');
    await rt.run('processQueue');
    host.advanceClock(STEP);
    await server.sender.runDue();
  }
  for (let i = 0; i < 12; i += 1) {
    await rt.run('watchTypeformWebhook');
    await rt.run('processQueue');
    host.advanceClock(STEP);
    await server.sender.runDue();
  }
  const rows = rt.queue();
  const replies = repliesOf(host.outbox, n);
  const incident = host.outbox.filter((mail) => String(mail.subject).includes('Typeform webhook disabled'));
  const firsts = incident.filter((mail) => !/Resolved|Still/.test(mail.subject)).map((mail) => Date.parse(mail.sentAt));
  const disabledAt = server.sender.disables.map((entry) => entry.at);
  const hours = (at) => Number(((at - t0) / 3_600_000).toFixed(2));
  const figures = {
    mode, modeledDays: days, submissions: n, answeredExactlyOnce: replies.once, duplicateReplies: replies.duplicates, lost: replies.lost, notOnce: replies.notOnce,
    deliveryAttempts: server.sender.totals.attempts, delivered: server.sender.totals.delivered, failedAttempts: server.sender.totals.failed,
    droppedWhileDisabled: server.sender.totals.dropped, gaveUp: server.sender.totals.gaveUp,
    outageHours: [hours(outageFrom), hours(outageTo)],
    webhookDisabled: disabledAt.length, disabledAtHour: disabledAt.map(hours),
    // Modeled minutes from each disable to the first incident mail sent at or after it (null: none came).
    detectionMinutes: disabledAt.map((at) => {
      const mail = firsts.find((sent) => sent >= at);
      return mail === undefined ? null : Math.round((mail - at) / MIN);
    }),
    incidentFirstMails: firsts.length, incidentReminders: incident.filter((mail) => /Still/.test(mail.subject)).length,
    incidentRecoveryMails: incident.filter((mail) => /Resolved/.test(mail.subject)).length,
    reenabled: reenabledAt.length, reenabledAtHour: reenabledAt.map(hours),
    webhookEnabledAtEnd: server.typeform.webhooksOf(FORM)[0]?.enabled === true,
    recoveredRows: rows.filter((row) => String(row.event_id).startsWith('reconciled:')).length,
    rowsInQueue: rows.length, junkPosts: flood, junkQueued,
    wallSeconds: Math.round((Date.now() - started) / 1000),
  };
  await rt.close();
  return figures;
}

/** The commit the run is on, and whether the work tree differs from it. */
function commitOf() {
  const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') === '' ? '' : ' (with uncommitted changes)'}`;
  } catch {
    return 'unknown';
  }
}

// Taken before the run: the code that ran is the code at its start.
const commit = commitOf();
const results = [];
let failed = 0;
for (const mode of modes) {
  const figures = await outage(mode);
  const checks = outageChecks(figures);
  results.push({ figures, checks });
  console.log(`\ntypeformRedirect=${mode}`);
  for (const [key, value] of Object.entries(figures)) console.log(`  ${key.padEnd(22)} ${Array.isArray(value) ? JSON.stringify(value) : value}`);
  for (const check of checks) console.log(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.says}`);
  failed += checks.filter((check) => !check.ok).length;
}
const command = `npm run typeform-outage -- --days ${days} --per-day ${perDay} --mode ${values.mode} --flood ${flood}`;
if (failed === 0 && values.mode === 'both') {
  const doc = new URL('../docs/reliability.md', import.meta.url);
  writeDoc('docs/reliability.md', replaceSection(readFileSync(doc, 'utf8'), outageSection({ command, commit, results, machine: machineLines() })));
  console.error('[typeform-outage] wrote docs/reliability.md (Typeform\'s sender)');
}
console.log(`\ntypeform-outage: ${failed === 0 ? 'every check held' : `${failed} check(s) failed`} (${command})`);
process.exitCode = failed === 0 ? 0 : 1;
