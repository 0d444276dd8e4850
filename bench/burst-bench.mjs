// A deadline burst: N deliveries with Poisson arrivals over a window, against the 30-simultaneous-executions limit, with
// minute ticks draining the spill, then the daily Typeform check bringing back what Google refused.
import { executionRng } from '../emulator/latency.mjs';
import { createTypeformStore, LOCAL_TYPEFORM_TOKEN } from '../emulator/offline-typeform.mjs';
import { startServer } from '../emulator/server.mjs';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { eventIdOf, startRuntime, submission } from '../harness/runtime.mjs';

const TICK_EVERY_MS = 60000; // the clock trigger: everyMinutes(1) (src/gas/setup.ts)
const MAX_DRAIN_TICKS = 10;
/** The fixture's form, named in Config so the Typeform check asks about it (the `*` row names no form). */
const FORM_ID = 'Wr1tE5sy';
/**
 * The Typeform check reads responses from 48 h to 12 h ago (docs/reconciliation.md): the runtime clock is moved this far
 * past the burst, so the pass runs the window it runs on Google instead of a shortened one.
 */
const RECONCILE_AFTER_MS = 13 * 3600 * 1000;

/** Arrival times (ms from the start) of `count` deliveries, Poisson at count/windowMs, drawn from `seed`; the last at most windowMs. */
export function poissonArrivals(count, windowMs, seed) {
  const rng = executionRng(seed, 'burst'); // a hashed seed: a raw small seed's first draws are poor
  const draw = () => uniformFloat64(rng);
  const gaps = [];
  for (let i = 0; i < count; i++) gaps.push(-Math.log(1 - draw()));
  // Conditioned on `count` arrivals in the window, Poisson arrival times are spread like sorted uniforms: scale the
  // cumulative exponential gaps so the (count+1)-th would fall at the window's end.
  const total = gaps.reduce((a, b) => a + b, 0) - Math.log(1 - draw());
  let at = 0;
  return gaps.map((g) => (at += g) * (windowMs / total));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The burst at latency scale `scale` (real time = modeled × scale; the burst's times are read back ÷ scale, so this
 * machine's CPU time counts as Google's would). Classifies every answer and follows the spill until it is in Queue.
 */
export async function measureBurst({ deliveries = 300, windowMs = 60000, scale = 1, seed = 1, progress = () => undefined } = {}) {
  const rt = await startRuntime({ props: { TYPEFORM_TOKEN: LOCAL_TYPEFORM_TOKEN }, host: { latency: `google:${scale}`, latencySeed: seed } });
  // Typeform keeps every response, delivered or not: the runtime's offline Typeform, served for TYPEFORM_BASE_URL.
  const typeform = createTypeformStore({ now: () => rt.host.now() });
  const api = await startServer({ host: rt.host, port: 0, typeform });
  rt.host.properties.set('TYPEFORM_BASE_URL', `${api.url}/typeform`);
  const arrivals = poissonArrivals(deliveries, windowMs, seed);
  const outcome = { queued: 0, spilled: 0, refused: 0, duplicate: 0, failed: 0 };
  const answers = [];
  const t0 = Date.now();
  const modeledNow = () => (Date.now() - t0) / scale;
  let lastLanded = 0;
  try {
    progress(`burst: ${deliveries} deliveries over ${windowMs / 1000} s (Poisson, seed ${seed}), latency google:${scale}`);
    let ticking = true;
    const tickStarts = [];
    void (async () => {
      for (let k = 1; ticking; k++) {
        const wait = k * TICK_EVERY_MS * scale - (Date.now() - t0);
        if (wait > 0) await sleep(wait);
        if (!ticking) break;
        tickStarts.push(modeledNow());
        await rt.run('processQueue');
      }
    })().catch(() => undefined); // a tick still running when the runtime closes ends with it
    await Promise.all(arrivals.map(async (at, i) => {
      await sleep(at * scale);
      const sent = modeledNow();
      const body = submission(50_000 + i);
      typeform.recordDelivery(body); // stored before the webhook goes, as the runtime's /exec does
      const { answer, exec } = await rt.deliver(body);
      const done = modeledNow();
      answers.push({ i, sent, done, status: exec.status, answer });
      if (exec.status === 'refused') outcome.refused += 1;
      else if (answer?.queued === true) { outcome.queued += 1; lastLanded = Math.max(lastLanded, done); }
      else if (answer?.queued === 'deferred') outcome.spilled += 1;
      else if (answer?.duplicate) outcome.duplicate += 1;
      else outcome.failed += 1;
    }));
    const burstEnd = modeledNow();
    // Every spilled delivery is drained by a tick: watch Queue until every kept delivery is in it (or the ticks give up).
    const wanted = arrivals.map((_, i) => eventIdOf(50_000 + i));
    const inQueue = () => { const ids = new Set(rt.queue().map((row) => row.event_id)); return wanted.filter((id) => ids.has(id)).length; };
    const kept = outcome.queued + outcome.spilled;
    const giveUpAt = burstEnd + MAX_DRAIN_TICKS * TICK_EVERY_MS;
    let landed = inQueue();
    while (landed < kept && modeledNow() < giveUpAt) {
      await sleep(100);
      landed = inQueue();
    }
    if (landed >= kept) lastLanded = Math.max(lastLanded, modeledNow());
    const drainTicks = tickStarts.filter((at) => at > burstEnd && at <= lastLanded).length;
    ticking = false;
    const done = answers.map((a) => a.done - a.sent).sort((a, b) => a - b);
    landed = inQueue();
    const pass = await reconcilePass(rt, scale, progress);
    const tokens = arrivals.map((_, i) => JSON.parse(submission(50_000 + i)).form_response.token);
    const rows = rt.queue();
    const copies = (token) => rows.filter((row) => row.response_token === token).length;
    const inQueueAfter = tokens.filter((token) => copies(token) > 0).length;
    const recovered = rows.filter((row) => String(row.event_id).startsWith('reconciled:') && tokens.includes(row.response_token)).length;
    const result = {
      deliveries, windowMs, scale, seed, ...outcome,
      landed, lostBeforeReconcile: deliveries - landed, refusedPct: (100 * outcome.refused) / deliveries,
      // A refused delivery is lost only when the Typeform check does not bring it back.
      recovered, lost: deliveries - inQueueAfter, exactlyOnce: tokens.filter((token) => copies(token) === 1).length,
      reconcileStatus: pass.status, reconcileS: pass.modeledMs / 1000, reconcileAfterH: RECONCILE_AFTER_MS / 3600000,
      allInQueueS: lastLanded / 1000, burstEndS: burstEnd / 1000, drainTicks,
      answerP50Ms: done[Math.floor(done.length / 2)], answerMaxMs: done.at(-1),
      refusedExecutions: rt.host.refusals, ticks: tickStarts.length,
    };
    progress(`burst: queued ${result.queued}, spilled ${result.spilled}, refused ${result.refused}; kept in Queue after ${result.allInQueueS.toFixed(0)} s; ` +
      `the Typeform check recovered ${result.recovered} (${result.reconcileS.toFixed(1)} s), lost ${result.lost}, exactly once ${result.exactlyOnce}/${deliveries}`);
    return result;
  } finally {
    await rt.close(); // a tick still mailing the burst's replies is ended with the runtime
    await api.close();
  }
}

/**
 * The daily Typeform check after the burst: Config names the form, the runtime clock moves past Typeform's retries
 * (13 h), and reconcileTypeform runs as its trigger does, under the same latency model. Returns its status and modeled time.
 */
async function reconcilePass(rt, scale, progress) {
  await rt.host.edit({ sheet: 'Config', a1: 'A2', value: FORM_ID, user: 'owner@example.com' });
  rt.host.advanceClock(RECONCILE_AFTER_MS);
  const started = Date.now();
  const exec = await rt.run('reconcileTypeform');
  const modeledMs = (Date.now() - started) / scale;
  progress(`burst: reconcileTypeform ${exec.status}: ${String(exec.value ?? JSON.stringify(exec.error)).split('\n')[0]}`);
  return { status: exec.status, modeledMs };
}
