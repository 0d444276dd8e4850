// Runs one chaos schedule in a fresh runtime, then clears the faults and drains the queue; returns what an auditor needs.
import { TOKEN, eventIdOf, startRuntime, submission } from './runtime.mjs';
import { BURST_EVENTS, EVENT_POOL, POISON_KINDS } from './chaos-schedule.mjs';

const STAFF = 'staff@example.com';
const OPEN = new Set(['PENDING', 'GENERATING', 'READY', 'AWAITING_APPROVAL', 'APPROVED', 'SENDING']);
const MAX_DRAIN_RUNS = 15;
const DAY_MS = 24 * 3600_000;
/** The Typeform check reads responses from 48 h to 12 h ago: the schedule's submissions are 13 h old when it runs. */
const PAST_TYPEFORM_RETRIES_MS = 13 * 3600_000;

/** Knobs for a short, deterministic run: no clock triggers, retries due at once, every row mailable. */
export const CHAOS_PROPS = { RETRY_BASE_SECONDS: '1', MAX_ATTEMPTS: '5', MAX_MAILS_PER_RUN: '1500', MAX_MAILS_PER_RECIPIENT_PER_DAY: '100' };

function sheetRows(host, name) {
  const sh = host.ss.byName(name);
  if (!sh) return { sh: null, header: [], col: () => -1 };
  const header = (sh.v[0] ?? []).map(String);
  return { sh, header, col: (n) => header.indexOf(n) };
}

/**
 * Lets a day pass for the host and inside executions (host.advanceClock), so back-offs and stale claims expire
 * exactly as they would, and the mail quota day rolls over. Only called while no execution is alive.
 */
function letTimePass(host) {
  host.advanceClock(DAY_MS);
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

/** Staff approve every reply waiting for approval, one edit each, as a person would in the sheet. */
async function approveAll(host) {
  const { sh, col } = sheetRows(host, 'Queue');
  if (!sh) return 0;
  const status = col('status');
  const letter = String.fromCharCode(65 + status);
  const rows = [];
  for (let r = 1; r < sh.v.length; r++) if (sh.v[r]?.[status] === 'AWAITING_APPROVAL') rows.push(r + 1);
  for (const n of rows) await host.edit({ sheet: 'Queue', a1: `${letter}${n}`, value: 'APPROVED', user: STAFF });
  return rows.length;
}

/** Submission n as Typeform delivers it, submitted now (runtime time), so the end-of-schedule Typeform check's window holds it. */
function deliveryOf(host, n) {
  return submission(n, (body) => { body.form_response.submitted_at = new Date(host.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'); });
}

const letterOf = (index) => String.fromCharCode(65 + index);
const pickOf = (pick, n) => Math.min(n - 1, Math.floor(pick * n));

/** Queue data rows (1-based sheet row numbers) whose cells satisfy `test`. */
function queueRowsWhere(host, test) {
  const { sh, col } = sheetRows(host, 'Queue');
  if (!sh) return { rows: [], col };
  const rows = [];
  for (let r = 1; r < sh.v.length; r++) if (test(sh.v[r] ?? [], col)) rows.push(r + 1);
  return { rows, col };
}

const blank = (cells) => cells.every((c) => c === '' || c === null || c === undefined);

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

/**
 * One staff or outsider action. Resolves with the name of the actor when it did something (a sort of two rows or
 * more, a paste that landed, a cleared `sent_at` of a SENT row …), else null.
 */
async function staffAction(rt, a, answers) {
  const host = rt.host;
  if (a.t === 'staffSort') {
    if (queueRowsWhere(host, () => true).rows.length < 2) return null;
    await host.edit({ op: 'sort', sheet: 'Queue', column: a.column, ascending: a.ascending, user: STAFF });
    return 'staff-sort';
  }
  if (a.t === 'staffInsert') {
    const { rows } = queueRowsWhere(host, () => true);
    if (rows.length === 0) return null;
    await host.edit({ op: 'insertRows', sheet: 'Queue', before: rows[pickOf(a.pick, rows.length)], count: a.count, user: STAFF });
    return 'staff-insert';
  }
  if (a.t === 'staffDelete') {
    // Staff tidy up: rows they inserted (blank) or a DUPLICATE row; deleting a live submission is a person's decision.
    const { rows } = queueRowsWhere(host, (cells, col) => blank(cells) || cells[col('status')] === 'DUPLICATE');
    if (rows.length === 0) return null;
    await host.edit({ op: 'deleteRows', sheet: 'Queue', row: rows[pickOf(a.pick, rows.length)], count: 1, user: STAFF });
    return 'staff-delete';
  }
  if (a.t === 'staffPaste') {
    const { rows, col } = queueRowsWhere(host, (cells) => !blank(cells));
    if (rows.length === 0) return null;
    // A block over submissions only: a status typed into a blank row is a row of no event, not a move.
    const start = pickOf(a.pick, rows.length);
    const first = rows[start];
    let length = 1;
    while (length < a.rows && rows[start + length] === first + length) length++;
    const values = Array.from({ length }, () => [a.status]);
    try {
      await host.edit({ op: 'paste', sheet: 'Queue', a1: `${letterOf(col('status'))}${first}`, values, user: STAFF });
    } catch (error) {
      if (!/data validation|refused|invalid/i.test(String(error?.message))) throw error;
      return null; // the dropdown refused the paste: nothing landed
    }
    return 'staff-paste';
  }
  if (a.t === 'staffClearSentAt') {
    const { rows, col } = queueRowsWhere(host, (cells, c) => cells[c('status')] === 'SENT' && cells[c('sent_at')] !== '');
    if (rows.length === 0) return null;
    await host.edit({ op: 'clear', sheet: 'Queue', a1: `${letterOf(col('sent_at'))}${rows[pickOf(a.pick, rows.length)]}`, user: STAFF });
    return 'staff-clear-sent_at';
  }
  return runAction(rt, a, answers);
}

/** Menu items and Set up as a staff member, and the outsiders' deliveries: resolves with the actor's name when it fired. */
async function runAction(rt, a, answers) {
  const host = rt.host;
  if (a.t === 'staffProcessNow') {
    await host.run('menuProcessNow', [], { kind: 'menu', user: STAFF });
    return 'staff-process-now';
  }
  if (a.t === 'staffSetup') {
    await host.run('setup', [], { kind: 'menu', user: STAFF });
    return 'staff-setup';
  }
  if (a.t === 'staffAcceptRejected') {
    const { sh } = sheetRows(host, 'Rejected');
    const n = sh ? sh.v.length - 1 : 0;
    if (n < 1) return null;
    await host.run('menuAcceptRejected', [], { kind: 'menu', user: STAFF, activeRange: { sheet: 'Rejected', a1: `B${2 + pickOf(a.pick, n)}` } });
    return 'staff-accept-rejected';
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

function fingerprint(rt) {
  const props = Object.keys(rt.host.properties.getAll()).filter((k) => k.startsWith('FQ_SPILL_')).length;
  return JSON.stringify([rt.queue().map((r) => [r.status, r.attempts, r.sent_at]), rt.host.outbox.length, props]);
}

function settled(rt) {
  const spilled = Object.keys(rt.host.properties.getAll()).some((k) => k.startsWith('FQ_SPILL_'));
  return !spilled && rt.queue().every((r) => !OPEN.has(String(r.status)));
}

/**
 * Executes `schedule` (see chaos-schedule.mjs) and drains. Every execution's logs and errors are kept, since the
 * host keeps only the last 200 records.
 */
export async function runSchedule(schedule, { gemini } = {}) {
  const rt = await startRuntime({ props: CHAOS_PROPS, gemini, typeform: true });
  const host = rt.host;
  const delivery = (n) => deliveryOf(host, n);
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
  try {
    // The Typeform check asks Typeform about the forms Config names (the * row names none).
    await host.edit({ sheet: 'Config', a1: 'A2', value: 'Wr1tE5sy', user: STAFF });
    if (schedule.approval) {
      const { col } = sheetRows(host, 'Config');
      await host.edit({ sheet: 'Config', a1: `${String.fromCharCode(65 + col('approval_required'))}2`, value: 'TRUE', user: STAFF });
    }
    for (const [g, group] of schedule.groups.entries()) {
      for (const f of group.faults) {
        const item = applyFault(host, f);
        if (item) labels.set(item.id, faultLabel(f));
      }
      const burst = schedule.burst && g === 0 ? BURST_EVENTS.map((n) => ({ t: 'deliver', n })) : [];
      await Promise.all([...burst, ...group.actions].map(async (a) => {
        if (a.t === 'deliver') answers.push({ n: a.n, answer: (await rt.deliver(delivery(a.n))).answer });
        else if (a.t === 'badToken') await rt.deliver(delivery(a.n), `${TOKEN.slice(0, -4)}nope`);
        else if (a.t === 'process') await rt.run('processQueue');
        else if (a.t === 'processKilled') await processKilled(rt, labels);
        else if (a.t === 'approve') { if ((await approveAll(host)) > 0) actors.add('staff-approve'); return; }
        else {
          const fired = await staffAction(rt, a, answers);
          if (fired) actors.add(fired);
          return;
        }
        actors.add(a.t);
      }));
    }
    host.faults.clear();
    // Once Typeform's retries are over, the daily check recovers what the platform refused; staff approve it below.
    host.advanceClock(PAST_TYPEFORM_RETRIES_MS);
    const check = await rt.run('reconcileTypeform');
    const drainLog = [`reconcileTypeform ${check.status}: ${String(check.value ?? check.error?.message ?? '')}`];
    let quiet = 0, drainRuns = 0;
    while (drainRuns < MAX_DRAIN_RUNS && !(settled(rt) && quiet >= 1)) {
      letTimePass(host);
      await approveAll(host);
      const before = fingerprint(rt);
      const exec = await rt.run('processQueue');
      drainLog.push(`${exec.status}: ${String(exec.value ?? exec.error?.message ?? '')}`);
      drainRuns++;
      quiet = fingerprint(rt) === before ? quiet + 1 : 0;
      if (quiet >= 3) break; // nothing moves any more: the checks will say what is stuck
    }
    const sheets = Object.fromEntries(host.sheetNames().map((name) => [name, host.sheetJson(name)]));
    const spill = Object.keys(host.properties.getAll()).filter((k) => k.startsWith('FQ_SPILL_'));
    const fnOf = new Map(executions.map((e) => [e.id, e.fn]));
    const faultsFired = [...quotaSeen, ...host.faults.history.map((h) => `${labels.get(h.id) ?? h.target} in ${fnOf.get(h.executionId) ?? 'other'}`)];
    if (host.latency) actors.add('latency');
    return { answers, outbox: host.outbox.slice(), sheets, executions, spill, drainRuns, drainLog, faultsFired, actors: [...actors] };
  } finally {
    await rt.close();
  }
}

