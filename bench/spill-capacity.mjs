// Measures the spill: how many sample deliveries Script Properties keep while Sheets fails, and a burst's losses.
// npm run spill-capacity -- [--outage 0] [--burst 600] [--concurrency 30] [--latency google] [--bundle DIR]
import { setRuntimeDefaults, startRuntime, submission } from '../harness/runtime.mjs';

function argument(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

/** Deliveries of the sample essay (each its own event) kept during an outage, one after another, until backlog_full. */
async function outageCapacity() {
  const rt = await startRuntime({ host: hostOptions });
  try {
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    let kept = 0;
    for (let n = 1; n < 100000; n++) {
      const { answer } = await rt.deliver(submission(n));
      if (answer?.queued === 'deferred') kept++;
      else if (answer?.error === 'backlog_full') break;
      else throw new Error(`unexpected answer during the outage: ${JSON.stringify(answer)}`);
    }
    const props = rt.host.properties.getAll();
    const spillChars = Object.entries(props).filter(([key]) => key.startsWith('FQ_SPILL')).reduce((sum, [key, value]) => sum + key.length + value.length, 0);
    rt.host.faults.clear();
    await rt.run('processQueue');
    const queued = rt.queue().length;
    return { kept, spillChars, queuedAfterDrain: queued, perDelivery: Math.round(spillChars / Math.max(kept, 1)) };
  } finally {
    await rt.close();
  }
}

/** `total` distinct deliveries, `concurrency` at a time, with Sheets up: how each was answered. */
async function burst(total, concurrency) {
  const rt = await startRuntime({ host: hostOptions });
  try {
    const answers = {};
    let next = 1;
    const worker = async () => {
      while (next <= total) {
        const n = next++;
        const { answer, exec } = await rt.deliver(submission(100000 + n));
        const key = answer?.queued === true ? 'queued' : answer?.queued === 'deferred' ? 'deferred' : answer?.error ?? (exec.status === 'refused' ? 'refused_by_platform' : `other:${exec.status}`);
        answers[key] = (answers[key] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    for (let i = 0; i < 5 && Object.keys(rt.host.properties.getAll()).some((key) => key.startsWith('FQ_SPILL_')); i++) await rt.run('processQueue');
    return { total, concurrency, answers, rowsInQueue: rt.queue().length, refusedByPlatform: rt.host.refusals ?? 0 };
  } finally {
    await rt.close();
  }
}

const bundleAt = process.argv.indexOf('--bundle');
/** `--bundle DIR` runs a copy of dist/, so a rebuild meanwhile does not change the code under measurement. */
const hostOptions = bundleAt > 0 ? { bundleDir: process.argv[bundleAt + 1] } : {};
const outageWanted = argument('outage', 1) !== 0;
const latencyAt = process.argv.indexOf('--latency');
if (latencyAt > 0) setRuntimeDefaults({ latency: process.argv[latencyAt + 1], latencySeed: 1 });
const outage = outageWanted ? await outageCapacity() : null;
if (outage) console.log(`spill during an outage: ${outage.kept} sample deliveries kept (${outage.spillChars} characters, ${outage.perDelivery} a delivery), ${outage.queuedAfterDrain} queued by the next run`);
const total = argument('burst', 600);
const concurrency = argument('concurrency', 30);
if (total > 0) {
  const result = await burst(total, concurrency);
  console.log(`burst: ${total} deliveries, ${concurrency} at a time: ${JSON.stringify(result.answers)}; ${result.rowsInQueue} rows in Queue after draining; refused by the platform: ${result.refusedByPlatform}`);
}
