// Runs one chaos schedule in a fresh runtime, then clears the faults and drains the queue; returns what an auditor needs.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manifestFor } from '../scripts/manifest.mjs';
import { DIST_DIR, TOKEN, eventIdOf, startRuntime, submission } from '../harness/runtime.mjs';
import { BURST_EVENTS, EVENT_POOL, POISON_KINDS, UNKNOWN_FORM_EVENTS } from './chaos-schedule.mjs';
import { isTypeformAction, typeformAction } from './chaos-typeform.mjs';
import { injectionsLeft, intoWindow, isSafetyAction, keepInjections, safetyAction, setWindow } from './chaos-safety.mjs';
import { STAFF, approveAll, isStaffAction, resendAsAdvised, setupAsAdvised, sheetRows, staffAction } from './chaos-staff.mjs';

/** A form Typeform holds but Config does not enable: its deliveries carry the right token. */
const UNKNOWN_FORM = 'Unkn0wnF';
const OPEN = new Set(['PENDING', 'GENERATING', 'READY', 'AWAITING_APPROVAL', 'APPROVED', 'SENDING']);
const MAX_DRAIN_RUNS = 15;
/**
 * Under a low new-recipient ceiling a drain run (a day apart) mails only that many new addresses: the drain gets a
 * run for each batch of the most submissions a schedule can hold (pool, poison, burst, unknown form: under 60).
 */
const drainRunsOf = (schedule) => {
  const ceiling = schedule.safety?.ceiling;
  return ceiling ? MAX_DRAIN_RUNS + Math.ceil(60 / Math.min(ceiling.perHour, ceiling.perDay ?? Infinity)) : MAX_DRAIN_RUNS;
};
const DAY_MS = 24 * 3600_000;
/** The Typeform check reads responses from 48 h to 12 h ago: the schedule's submissions are 13 h old when it runs. */
const PAST_TYPEFORM_RETRIES_MS = 13 * 3600_000;

/** Knobs for a short, deterministic run: no clock triggers, retries due at once, every row mailable. */
export const CHAOS_PROPS = { RETRY_BASE_SECONDS: '1', MAX_ATTEMPTS: '5', MAX_MAILS_PER_RUN: '1500', MAX_MAILS_PER_RECIPIENT_PER_DAY: '100' };

/**
 * Lets a day pass for the host and inside executions (host.advanceClock), so back-offs and stale claims expire
 * exactly as they would, and the mail quota day rolls over. Only called while no execution is alive.
 */
async function letTimePass(rt) {
  rt.host.advanceClock(DAY_MS);
  await rt.server?.sender.runDue(); // Typeform's retries due meanwhile (bench/chaos-typeform.mjs), in order
}

/**
 * A processQueue run killed by the execution time limit while it waits on Gemini: its GENERATING claims are
 * left behind for the stale sweep. A run with nothing to generate ends normally.
 */
async function processKilled(rt, labels) {
  const pause = rt.host.faults.add({ target: 'gemini', pause: true });
  labels.set(pause.id, 'killed while Gemini writes');
  try {
    await rt.run('processQueue', { timeoutMs: 1500 });
  } finally {
    rt.host.faults.remove(pause.id);
  }
}

/** Submission n as Typeform delivers it, submitted now (runtime time), so the end-of-schedule Typeform check's window holds it. */
function deliveryOf(host, n) {
  return submission(n, (body) => { body.form_response.submitted_at = new Date(host.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'); });
}

/** The event id of a poison delivery's submission: `longEventId` is 246+ characters (the cache refuses keys over 250). */
function poisonEventId(a) {
  return a.kind === 'longEventId' ? `E${String(a.n).padStart(3, '0')}`.padEnd(246 + a.n - EVENT_POOL, 'E') : eventIdOf(poisonN(a));
}

/** Each poison kind has its own submissions (and respondents) above the pool, so one kind's mail is never another's. */
function poisonN(a) {
  return EVENT_POOL + 1 + POISON_KINDS.indexOf(a.kind) * 3 + (a.n - EVENT_POOL - 1);
}

/** The body of a hostile delivery: oversized fields, a 246+-character event_id, deep JSON, a 60,000-character event_type. */
function poisonBody(a) {
  if (a.kind === 'deepJson') return '['.repeat(200000) + ']'.repeat(200000);
  if (a.kind === 'nestedJson') return '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
  return submission(poisonN(a), (b) => {
    b.event_id = poisonEventId(a);
    if (a.kind === 'bigToken') b.form_response.token = 't'.repeat(60000);
    if (a.kind === 'bigFormId') b.form_response.form_id = 'F'.repeat(60000);
    if (a.kind === 'bigEventType') b.event_type = 'z'.repeat(60000);
  });
}

/** An outsider's or Typeform's delivery: resolves with the actor's name when it fired. */
async function deliveryAction(rt, a, answers) {
  const host = rt.host;
  if (a.t === 'unknownForm') {
    // A response of a form Typeform holds and Config does not enable, with the right token: Typeform keeps it too.
    const n = UNKNOWN_FORM_EVENTS[a.n - 1];
    const body = submission(n, (b) => {
      b.form_response.form_id = UNKNOWN_FORM;
      b.form_response.definition.id = UNKNOWN_FORM;
      b.form_response.submitted_at = new Date(host.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    });
    const { answer } = await rt.deliver(body);
    answers.push({ n, id: eventIdOf(n), unknownForm: true, answer });
    return 'unknown-form';
  }
  if (a.t === 'poison') {
    // An outsider posting to the web app, not a Typeform submission: Typeform has no response for it.
    const { answer } = await rt.deliver(poisonBody(a), TOKEN, { typeform: false });
    answers.push({ n: poisonN(a), id: poisonEventId(a), poison: a.kind, answer });
    return 'poison';
  }
  if (a.t === 'burst') {
    const all = await Promise.all(Array.from({ length: a.size }, (_, i) => rt.deliver(deliveryOf(host, 1 + (i % EVENT_POOL)))));
    all.forEach(({ answer }, i) => answers.push({ n: 1 + (i % EVENT_POOL), answer }));
    return all.some(({ exec }) => exec.status === 'refused') ? 'burst' : null;
  }
  throw new Error(`unknown chaos action ${a.t}`);
}

function applyFault(host, f) {
  if (f.clear === 'all') {
    host.faults.clear();
  } else if (f.clear === 'mail-quota') {
    for (const g of host.faults.list()) if (g.target === 'mail' && g.quota !== undefined) host.faults.remove(g.id);
  } else {
    const item = host.faults.add({ ...f });
    return item;
  }
  return null;
}

function faultLabel(f) {
  if (f.target === 'sheets') return 'sheets outage';
  if (f.target === 'mail') return f.crashAfterSend ? 'killed right after a send' : `mail quota=${f.quota}`;
  if (f.latencyMs) return 'gemini latency';
  if (f.timeout) return 'gemini timeout';
  if (f.blocked) return 'gemini blocked prompt';
  return `gemini ${f.status}${f.quota === 'day' ? ' per day' : ''}`;
}

/** Queue rows as objects; none when staff renamed Queue away and no Set up made a new one. */
const queueRows = (rt) => (rt.host.ss.byName('Queue') ? rt.queue() : []);

function fingerprint(rt) {
  const props = Object.keys(rt.host.properties.getAll()).filter((k) => k.startsWith('FQ_SPILL_')).length;
  return JSON.stringify([queueRows(rt).map((r) => [r.status, r.attempts, r.sent_at]), rt.host.outbox.length, props]);
}

function settled(rt) {
  const spilled = Object.keys(rt.host.properties.getAll()).some((k) => k.startsWith('FQ_SPILL_'));
  return !spilled && queueRows(rt).every((r) => !OPEN.has(String(r.status)));
}

/**
 * A schedule where staff run Process now with a crash after the send, or where an address bounces, is one where the
 * deployer turned the Sent check and the bounce check on (RECONCILE_SENT_MAIL, RECONCILE_BOUNCES): the runtime runs
 * the same Code.js with the manifest `node scripts/build.mjs --reconcile-sent-mail` writes (Gmail read access). Resolves with the bundle directory, or null for the plain one.
 */
function sentCheckBundle(schedule) {
  if (!schedule.groups.some((g) => g.actions.some((a) => a.t === 'staffProcessNowCrash' || a.t === 'deadAddress'))) return null;
  const dir = mkdtempSync(join(tmpdir(), 'fq-chaos-sent-check-'));
  cpSync(join(DIST_DIR, 'Code.js'), join(dir, 'Code.js'));
  const manifest = manifestFor(JSON.parse(readFileSync(join(DIST_DIR, 'appsscript.json'), 'utf8')), { reconcileSentMail: true });
  writeFileSync(join(dir, 'appsscript.json'), JSON.stringify(manifest));
  return dir;
}

/** One action of a group: resolves with the name of the actor when it fired (the names, for Typeform's), else null. */
async function act(rt, a, { answers, labels, touched, windows }) {
  const host = rt.host;
  if (isTypeformAction(a)) return typeformAction(rt, a, { answers, deliveryOf: (n) => deliveryOf(host, n) });
  if (isSafetyAction(a)) return safetyAction(rt, a, { answers, labels, windows, deliveryOf: (n) => deliveryOf(host, n) });
  if (a.t === 'deliver') answers.push({ n: a.n, answer: (await rt.deliver(deliveryOf(host, a.n))).answer });
  else if (a.t === 'badToken') await rt.deliver(deliveryOf(host, a.n), `${TOKEN.slice(0, -4)}nope`);
  else if (a.t === 'process') await rt.run('processQueue');
  else if (a.t === 'processKilled') await processKilled(rt, labels);
  else if (a.t === 'approve') return (await approveAll(host, touched)) > 0 ? 'staff-approve' : null;
  else return isStaffAction(a) ? staffAction(host, a, labels, touched) : deliveryAction(rt, a, answers);
  return a.t;
}

/** Issue #28's holds seen in the drain: a reply the policy held for a person, a row waiting for its send window. */
function noteHeldRows(rt, actors) {
  const errors = queueRows(rt).map((r) => String(r.error));
  if (errors.some((e) => e.startsWith('REPLY_POLICY'))) actors.add('reply-policy-held');
  if (errors.some((e) => e.startsWith('SEND_WINDOW'))) actors.add('send-window-held');
}

/**
 * After the schedule: faults cleared (all but a model talked into it by a submission's text), the daily Typeform check once Typeform's retries are over (it recovers what the
 * platform refused), then processQueue a day apart until nothing moves, staff approving what waits for approval and
 * doing what a row's reason tells them between runs. A form's send window: each run goes inside it (the clock moved to
 * the morning, as the deployed trigger would mail then), so a row waiting for its window is drained, not lost.
 */
async function drain(rt, actors, { touched, maxRuns, labels }) {
  const host = rt.host;
  const injections = injectionsLeft(host);
  host.faults.clear();
  keepInjections(host, injections, labels);
  host.advanceClock(PAST_TYPEFORM_RETRIES_MS);
  await rt.server?.sender.runDue();
  if (await setupAsAdvised(host)) actors.add('staff-setup-as-advised');
  let check = await rt.run('reconcileTypeform');
  const drainLog = [`reconcileTypeform ${check.status}: ${String(check.value ?? check.error?.message ?? '')}`];
  let quiet = 0, drainRuns = 0;
  while (drainRuns < maxRuns && !(settled(rt) && quiet >= 1)) {
    await letTimePass(rt);
    noteHeldRows(rt, actors);
    await approveAll(host, touched);
    if ((await resendAsAdvised(host)) > 0) actors.add('staff-resend-as-advised');
    if (await setupAsAdvised(host)) actors.add('staff-setup-as-advised');
    // The check is a daily trigger: one that failed (a sheet missing until staff ran Set up) runs again the next day,
    // after staff did what the mail said, and its 48-to-12-hour window still holds what the schedule delivered.
    if (check.status !== 'ok') {
      check = await rt.run('reconcileTypeform');
      drainLog.push(`reconcileTypeform ${check.status}: ${String(check.value ?? check.error?.message ?? '').slice(0, 600)}`);
    }
    noteHeldRows(rt, actors);
    await intoWindow(rt);
    const before = fingerprint(rt);
    const exec = await rt.run('processQueue');
    drainLog.push(`${exec.status}: ${String(exec.value ?? exec.error?.message ?? '')}`);
    drainRuns++;
    quiet = fingerprint(rt) === before ? quiet + 1 : 0;
    if (quiet >= 3) break; // nothing moves any more: the checks will say what is stuck
  }
  return { drainLog, drainRuns };
}

/** The Script Properties a schedule's deployer set. */
function propsOf(schedule, sentCheck) {
  const ceiling = schedule.safety?.ceiling;
  return {
    ...CHAOS_PROPS,
    // With Gmail read access the deployer turns on the bounce check too (issue #28), checking at its most frequent.
    ...(sentCheck ? { RECONCILE_SENT_MAIL: 'true', RECONCILE_BOUNCES: 'true', BOUNCE_CHECK_MINUTES: '5' } : {}),
    // Issue #28: a low new-recipient ceiling the schedule's ~10 respondents trip.
    ...(ceiling ? { MAX_NEW_RECIPIENTS_PER_HOUR: String(ceiling.perHour), ...(ceiling.perDay ? { MAX_NEW_RECIPIENTS_PER_DAY: String(ceiling.perDay) } : {}) } : {}),
  };
}

/**
 * Executes `schedule` (see chaos-schedule.mjs) and drains. Every execution's logs and errors are kept, since the
 * host keeps only the last 200 records.
 */
export async function runSchedule(schedule, { gemini } = {}) {
  const sentCheck = sentCheckBundle(schedule);
  const props = propsOf(schedule, sentCheck !== null);
  // A schedule drawn with worlds (npm run chaos -- --world random) runs in them; others in the runtime's defaults.
  const hostOptions = { ...(sentCheck ? { bundleDir: sentCheck } : {}), ...(schedule.worlds ? { worlds: schedule.worlds } : {}) };
  const rt = await startRuntime({ props, gemini, typeform: true, host: hostOptions });
  const host = rt.host;
  const executions = [];
  const quotaSeen = [];
  host.on('execution', (rec) => {
    executions.push({ id: rec.id, fn: rec.functionName, status: rec.status, logs: rec.logs.slice(), error: rec.error ?? null, value: rec.value });
    // The quota fault is a forced value, not a use: count the runs that asked for the quota while it said 0.
    if (host.faults.mailQuota() === 0 && rec.calls['MailApp.getRemainingDailyQuota'] > 0) quotaSeen.push(`mail quota=0 in ${rec.functionName}`);
  });
  const answers = []; // { n, answer }
  const labels = new Map(); // fault id → what it injects
  const actors = new Set(); // the actors that did something in this schedule
  const touched = new Set(); // event ids and tokens of rows whose status a person set (chaos-staff.mjs noteTouched)
  const windows = []; // each send window set: { at, hours, zone } (chaos-safety.mjs)
  try {
    // The Typeform check asks Typeform about the forms Config names (the * row names none).
    await host.edit({ sheet: 'Config', a1: 'A2', value: 'Wr1tE5sy', user: STAFF });
    if (schedule.approval) {
      const { col } = sheetRows(host, 'Config');
      await host.edit({ sheet: 'Config', a1: `${String.fromCharCode(65 + col('approval_required'))}2`, value: 'TRUE', user: STAFF });
    }
    if (schedule.safety?.window && (await setWindow(host, schedule.safety.window, windows))) actors.add('send-window');
    for (const [g, group] of schedule.groups.entries()) {
      for (const f of group.faults) {
        const item = applyFault(host, f);
        if (item) labels.set(item.id, faultLabel(f));
      }
      const burst = schedule.burst && g === 0 ? BURST_EVENTS.map((n) => ({ t: 'deliver', n })) : [];
      await Promise.all([...burst, ...group.actions].map(async (a) => {
        const fired = await act(rt, a, { answers, labels, touched, windows });
        for (const name of Array.isArray(fired) ? fired : [fired]) if (name) actors.add(name);
      }));
      noteHeldRows(rt, actors);
    }
    const { drainLog, drainRuns } = await drain(rt, actors, { touched, maxRuns: drainRunsOf(schedule), labels });
    const sheets = Object.fromEntries(host.sheetNames().map((name) => [name, host.sheetJson(name)]));
    const spill = Object.keys(host.properties.getAll()).filter((k) => k.startsWith('FQ_SPILL_'));
    const fnOf = new Map(executions.map((e) => [e.id, e.fn]));
    const faultsFired = [...quotaSeen, ...host.faults.history.map((h) => `${labels.get(h.id) ?? h.target} in ${fnOf.get(h.executionId) ?? 'other'}`)];
    if (host.latency) actors.add('latency');
    if (host.faults.history.some((h) => h.kind === 'reply' || h.kind === 'obey')) actors.add('gemini-talked-into');
    if (host.outbox.some((m) => String(m.subject).includes('Many new recipients at once'))) actors.add('recipient-ceiling-tripped');
    // What Typeform's sender did (bench/chaos-typeform.mjs): its attempts and every time it disabled the webhook.
    const typeform = { totals: { ...rt.server.sender.totals }, disables: rt.server.sender.disables.slice(), webhooks: rt.server.typeform.webhooksOf('Wr1tE5sy') };
    return { answers, outbox: host.outbox.slice(), sheets, executions, spill, drainRuns, drainLog, faultsFired, actors: [...actors], typeform, staffTouched: [...touched], windows, ceiling: schedule.safety?.ceiling ?? null };
  } finally {
    await rt.close();
    if (sentCheck) rmSync(sentCheck, { recursive: true, force: true });
  }
}

