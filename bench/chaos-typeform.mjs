// Typeform's sender as chaos actors: submissions it sends (retries, the 302 in both readings), 404 windows, the 15-minute watch on the runtime clock.
//
// The `deliver` actor calls doPost directly, as an ideal sender would. These go through the runtime's HTTP front as
// Typeform does (emulator/typeform-sender.mjs): POST /exec, the 302 followed or counted as a failure (the
// `typeformRedirect` world), retries on Typeform's published schedule made due by the runtime clock, a 404 from a
// removed deployment disabling the webhook at once. The watch (watchTypeformWebhook) sees it and, when the deployer
// turned TYPEFORM_WEBHOOK_REENABLE on, switches it back on; what the webhook missed Typeform still stores, and the
// watch's hourly recovery or the daily check (the drain's reconcileTypeform) must queue it.
import { eventIdOf } from '../harness/runtime.mjs';

const MINUTE_MS = 60_000;
/** The watch trigger's period (src/core/reconcile/webhook-watch.ts WATCH_EVERY_MINUTES). */
const WATCH_STEP_MS = 15 * MINUTE_MS;
/**
 * How far these actors may move the clock in one schedule: the drain's daily check reads responses from 48 h to 12 h
 * ago, 13 h after the schedule, so every submission of the schedule stays inside its window.
 */
const MAX_MOVED_MS = 12 * 3600_000;
/** How long an actor waits for the executions in flight to end before it lets time pass (real time). */
const QUIET_WAIT_MS = 60_000;

const TYPEFORM_ACTIONS = new Set(['typeformSubmit', 'typeformOutage', 'typeformWatch']);
export const isTypeformAction = (a) => TYPEFORM_ACTIONS.has(a.t);

/** Per runtime: how far these actors moved its clock. */
const moved = new WeakMap();

/**
 * Lets `ms` of runtime time pass once no execution is alive (no real execution lives for 15 minutes: time must not
 * jump under one), then makes Typeform's attempts due meanwhile. Resolves false when it could not (busy, or the
 * schedule already moved MAX_MOVED_MS). Shared with the clock actor of issue #28 (bench/chaos-safety.mjs): one budget.
 */
export async function letRuntimeTimePass(rt, ms) {
  const { host, server } = rt;
  const before = moved.get(rt) ?? 0;
  if (before + ms > MAX_MOVED_MS) return false;
  const until = Date.now() + QUIET_WAIT_MS;
  while (host.live.size > 0) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  host.advanceClock(ms); // synchronous: nothing starts between the check above and the move
  moved.set(rt, before + ms);
  await server.sender.runDue();
  return true;
}

/** The 15-minute watch after time passed; with `reenable` as the deployer set TYPEFORM_WEBHOOK_REENABLE. */
async function watch(rt, reenable, fired) {
  const { host, server } = rt;
  const formOf = () => server.typeform.webhooksOf('Wr1tE5sy')[0];
  const wasOff = formOf()?.enabled === false;
  if (reenable !== undefined) host.properties.set('TYPEFORM_WEBHOOK_REENABLE', String(reenable));
  const exec = await rt.run('watchTypeformWebhook');
  if (exec.status === 'ok') fired.add('typeform-watch');
  if (wasOff && formOf()?.enabled === true) fired.add('typeform-reenable');
}

/**
 * One Typeform actor: resolves with the names of what it made happen ('typeform-submit', 'typeform-outage',
 * 'typeform-watch', 'typeform-disabled', 'typeform-reenable'). Each response the sender was given is recorded in
 * `answers` as stored by Typeform ({n, id, storedByTypeform: true}): chaos-check.mjs demands it be answered once.
 * @param {any} rt a runtime with the HTTP front (startRuntime({ typeform: true })) @param {any} a the action
 * @param {{ answers: any[], deliveryOf: (n: number) => string }} context
 */
export async function typeformAction(rt, a, { answers, deliveryOf }) {
  const { server } = rt;
  const fired = new Set();
  const disablesBefore = server.sender.disables.length;
  const submit = (n) => {
    server.sender.submit(deliveryOf(n));
    answers.push({ n, id: eventIdOf(n), storedByTypeform: true, answer: null });
  };
  if (a.t === 'typeformSubmit') {
    submit(a.n);
    await server.sender.runDue(); // Typeform sends "as soon as it's submitted"
    fired.add('typeform-submit');
  } else if (a.t === 'typeformOutage') {
    // The deployment is removed: a respondent submits meanwhile (its delivery gets 404, the webhook is disabled at once),
    // the watch runs every 15 minutes of the window (it cannot switch the webhook back on while the web app answers 404)
    // and, the deployment back, 15 minutes later, as the deployed trigger does; the deployer's TYPEFORM_WEBHOOK_REENABLE
    // is `a.reenable` throughout.
    const deployment = (active) => fetch(`${server.url}/api/deployment`, { method: 'POST', body: JSON.stringify({ active }) });
    await deployment(false);
    try {
      submit(a.n);
      await server.sender.runDue();
      for (let step = 0; step < a.minutes / 15; step += 1) {
        if (!(await letRuntimeTimePass(rt, WATCH_STEP_MS))) break;
        await watch(rt, a.reenable, fired);
      }
    } finally {
      await deployment(true);
    }
    if (await letRuntimeTimePass(rt, WATCH_STEP_MS)) await watch(rt, a.reenable, fired);
    fired.add('typeform-outage');
  } else if (a.t === 'typeformWatch') {
    if (await letRuntimeTimePass(rt, WATCH_STEP_MS)) await watch(rt, a.reenable, fired);
  } else {
    throw new Error(`unknown Typeform chaos action ${a.t}`);
  }
  if (server.sender.disables.length > disablesBefore) fired.add('typeform-disabled');
  return [...fired];
}
