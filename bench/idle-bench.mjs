// The idle tick (service calls, spreadsheet opened?) and the runtime itself (service-call round trip, execution start-up).
import { median, startRuntime, submission } from '../harness/runtime.mjs';

export async function measureIdleAndRuntime({ ticks = 5, progress = () => undefined } = {}) {
  const rt = await startRuntime();
  try {
    await rt.deliver(submission(1));
    const busy = await rt.run('processQueue');
    if (!/sent 1/.test(String(busy.value))) throw new Error(`idle bench: the warm-up run did not send: ${busy.value}`);
    rt.host.bridgeStats({ reset: true });
    const idle = [];
    for (let i = 0; i < ticks; i++) idle.push(await rt.run('processQueue'));
    const skipped = idle.filter((e) => /^Skipped/.test(String(e.value))).length;
    progress(`idle: ${ticks} ticks after the queue drained: ${idle.map((e) => e.serviceCalls).join(', ')} service calls`);
    // Start-up alone: a worker, a vm context, the realm and the bundle loaded, no service call (the function does not exist).
    const starts = [];
    for (let i = 0; i < ticks; i++) starts.push((await rt.host.run('benchNoSuchFunction', [], { kind: 'api' })).durationMs);
    // Round trips: a burst of cheap calls (each delivery makes ~30), measured inside the workers.
    for (let i = 0; i < 10; i++) await rt.deliver(submission(100 + i));
    const rtt = rt.host.bridgeStats();
    progress(`runtime: median round trip ${rtt.medianUs?.toFixed(0)} µs over ${rtt.samples} calls, start-up ${median(starts).toFixed(0)} ms`);
    return {
      idleServiceCalls: Math.max(...idle.map((e) => e.serviceCalls)),
      idleCalls: idle[0].calls,
      idleOpened: idle.some((e) => e.spreadsheetOpened),
      idleSkipped: skipped,
      idleWallMs: median(idle.map((e) => e.durationMs)),
      startupMs: median(starts),
      rtt,
    };
  } finally {
    await rt.close();
  }
}
