// The idle tick with the webhook watch on (service calls, spreadsheet opened?), the watch's own cost, and the runtime itself (service-call round trip, execution start-up).
import { median, startRuntime, submission } from '../harness/runtime.mjs';

const FORM = 'Wr1tE5sy';
/** The watch trigger runs every 15 minutes (src/core/staff/setup-plan.ts): 4 runs an hour, 96 a day. */
const WATCH_RUNS_PER_HOUR = 4;
const MINUTE_MS = 60_000;
const WATCH_EVERY_MS = 15 * MINUTE_MS;

/**
 * Runs with the webhook watch as deployed with TYPEFORM_TOKEN set (the offline Typeform, one form in Config, its
 * webhook enabled and pointing here): after the queue drained, `ticks` rounds of 15 modeled minutes, each the safety
 * sweep, a watch run and, a minute later, an idle processQueue tick, so what the watch leaves behind is in its count. The watch's calls per run are counted too, and once without
 * the token (one Script Properties read).
 */
export async function measureIdleAndRuntime({ ticks = 5, progress = () => undefined } = {}) {
  const rt = await startRuntime({ typeform: true });
  try {
    await rt.host.edit({ sheet: 'Config', a1: 'A2', value: FORM, user: 'owner@example.com' });
    await rt.deliver(submission(1)); // Typeform now holds the form and its webhook, enabled and pointing at this web app
    const busy = await rt.run('processQueue');
    if (!/sent 1/.test(String(busy.value))) throw new Error(`idle bench: the warm-up run did not send: ${busy.value}`);
    rt.host.bridgeStats({ reset: true });
    const idle = [];
    const watches = [];
    for (let i = 0; i < ticks; i++) {
      // As deployed: every 15 minutes the safety sweep (a full processQueue run, not idle) and the watch; the tick a
      // minute later has nothing to do. Typeform allows 2 requests a second: the watch runs 15 minutes apart.
      rt.host.advanceClock(WATCH_EVERY_MS);
      await rt.run('processQueue');
      watches.push(await rt.run('watchTypeformWebhook'));
      rt.host.advanceClock(MINUTE_MS);
      idle.push(await rt.run('processQueue'));
    }
    if (!watches.every((w) => String(w.value) === `${FORM}: webhook enabled`)) throw new Error(`idle bench: the watch did not find the webhook healthy: ${watches.map((w) => w.value).join(' / ')}`);
    const skipped = idle.filter((e) => /^Skipped/.test(String(e.value))).length;
    progress(`idle: ${ticks} ticks after the queue drained, the watch on: ${idle.map((e) => e.serviceCalls).join(', ')} service calls; watch runs: ${watches.map((w) => w.serviceCalls).join(', ')}`);
    // Without TYPEFORM_TOKEN the watch reads Script Properties and stops.
    const token = rt.host.properties.get('TYPEFORM_TOKEN');
    rt.host.properties.delete('TYPEFORM_TOKEN');
    const tokenless = await rt.run('watchTypeformWebhook');
    rt.host.properties.set('TYPEFORM_TOKEN', token);
    // Start-up alone: a worker, a vm context, the realm and the bundle loaded, no service call (the function does not exist).
    const starts = [];
    for (let i = 0; i < ticks; i++) starts.push((await rt.host.run('benchNoSuchFunction', [], { kind: 'api' })).durationMs);
    // Round trips: a burst of cheap calls (each delivery makes ~30), measured inside the workers.
    for (let i = 0; i < 10; i++) await rt.deliver(submission(100 + i));
    const rtt = rt.host.bridgeStats();
    progress(`runtime: median round trip ${rtt.medianUs?.toFixed(0)} µs over ${rtt.samples} calls, start-up ${median(starts).toFixed(0)} ms`);
    const watchCalls = Math.max(...watches.map((w) => w.serviceCalls));
    const typeformRequests = Math.max(...watches.map((w) => w.calls['UrlFetchApp.fetch'] ?? 0));
    return {
      idleServiceCalls: Math.max(...idle.map((e) => e.serviceCalls)),
      idleCalls: idle[0].calls,
      idleOpened: idle.some((e) => e.spreadsheetOpened),
      idleSkipped: skipped,
      idleWallMs: median(idle.map((e) => e.durationMs)),
      watch: {
        serviceCalls: watchCalls,
        calls: watches[0].calls,
        typeformRequests,
        cellsWritten: Math.max(...watches.map((w) => w.cellsWritten ?? 0)),
        perHour: { serviceCalls: watchCalls * WATCH_RUNS_PER_HOUR, typeformRequests: typeformRequests * WATCH_RUNS_PER_HOUR },
        perDay: { serviceCalls: watchCalls * WATCH_RUNS_PER_HOUR * 24, typeformRequests: typeformRequests * WATCH_RUNS_PER_HOUR * 24 },
        tokenlessServiceCalls: tokenless.serviceCalls,
      },
      startupMs: median(starts),
      rtt,
    };
  } finally {
    await rt.close();
  }
}
