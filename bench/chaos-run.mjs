// Runs one chaos schedule in a fresh runtime, then clears the faults and drains the queue; returns what an auditor needs.
import { BURST_SIZE, EVENT_POOL } from './chaos-schedule.mjs';
import { TOKEN, startRuntime, submission } from './runtime.mjs';

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
  // Submitted now (runtime time), so the end-of-schedule Typeform check's window holds every one.
  const delivery = (n) => submission(n, (body) => { body.form_response.submitted_at = new Date(host.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'); });
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
      const burst = schedule.burst && g === 0 ? Array.from({ length: BURST_SIZE }, (_, i) => ({ t: 'deliver', n: EVENT_POOL + 1 + i })) : [];
      await Promise.all([...burst, ...group.actions].map(async (a) => {
        if (a.t === 'deliver') answers.push({ n: a.n, answer: (await rt.deliver(delivery(a.n))).answer });
        else if (a.t === 'badToken') await rt.deliver(delivery(a.n), `${TOKEN.slice(0, -4)}nope`);
        else if (a.t === 'process') await rt.run('processQueue');
        else if (a.t === 'processKilled') await processKilled(rt, labels);
        else if (a.t === 'approve') await approveAll(host);
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
    return { answers, outbox: host.outbox.slice(), sheets, executions, spill, drainRuns, drainLog, faultsFired };
  } finally {
    await rt.close();
  }
}

