// A deadline burst: N deliveries with Poisson arrivals over a window, against the 30-simultaneous-executions limit, with minute ticks draining the spill.
import { executionRng } from '../emulator/latency.mjs';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { eventIdOf, startRuntime, submission } from './runtime.mjs';

const TICK_EVERY_MS = 60000; // the clock trigger: everyMinutes(1) (src/gas/setup.ts)
const MAX_DRAIN_TICKS = 10;

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
  const rt = await startRuntime({ host: { latency: `google:${scale}`, latencySeed: seed } });
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
      const { answer, exec } = await rt.deliver(submission(50_000 + i));
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
    const result = {
      deliveries, windowMs, scale, seed, ...outcome,
      landed, lost: deliveries - landed, refusedPct: (100 * outcome.refused) / deliveries,
      allInQueueS: lastLanded / 1000, burstEndS: burstEnd / 1000, drainTicks,
      answerP50Ms: done[Math.floor(done.length / 2)], answerMaxMs: done.at(-1),
      refusedExecutions: rt.host.refusals, ticks: tickStarts.length,
    };
    progress(`burst: queued ${result.queued}, spilled ${result.spilled}, refused ${result.refused}, lost ${result.lost}; all in Queue after ${result.allInQueueS.toFixed(0)} s`);
    return result;
  } finally {
    await rt.close(); // a tick still mailing the burst's replies is ended with the runtime
  }
}
