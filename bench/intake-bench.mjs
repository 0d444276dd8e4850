// Intake cost at several Queue sizes: formqueue's bundle and the full-scan reference, side by side on the same spreadsheet.
import { GasHost } from '../emulator/host.mjs';
import { buildEvent } from '../emulator/server.mjs';
import { TOKEN, eventIdOf, median, recipientOf, startRuntime, submission } from '../harness/runtime.mjs';
import { modeledMsOf, percentile } from './modeled.mjs';

const FULLSCAN_DIR = new URL('./fullscan', import.meta.url).pathname;
const WEBAPP = 'http://127.0.0.1:8787/exec';

/** `count` finished Queue rows laid out along `header`, as a queue that has been running for a while holds them. */
function filler(header, count, base) {
  const at = (name) => header.indexOf(name);
  const t = new Date(Date.now() - 3600_000);
  const rows = new Array(count);
  for (let i = 0; i < count; i++) {
    const n = base + i;
    const row = new Array(header.length).fill('');
    row[at('status')] = 'SENT';
    row[at('event_id')] = eventIdOf(n);
    row[at('received_at')] = t;
    row[at('form_id')] = 'Wr1tE5sy';
    row[at('response_token')] = `tok${String(n).padStart(29, '0')}`;
    row[at('recipient')] = recipientOf(n);
    row[at('submission')] = `Your name: Person ${n}\nPaste your essay: a short essay number ${n}`;
    row[at('payload')] = `{"event_id":"${eventIdOf(n)}"}`;
    row[at('attempts')] = 1;
    row[at('result')] = `Dear Person ${n}, thank you.`;
    row[at('sent_at')] = t;
    row[at('mail_ref')] = `FQ-${n.toString(36).toUpperCase().padStart(6, '0')}`;
    row[at('updated_at')] = t;
    rows[i] = row;
  }
  return rows;
}

/** A second host running the reference bundle against the first host's spreadsheet and properties (deliveries are sequential). */
function referenceHost(host) {
  const ref = new GasHost({ ...host.opts, bundleDir: FULLSCAN_DIR, dataDir: null });
  ref.ss = host.ss;
  ref.properties = host.properties;
  ref.seq = 1_000_000; // execution ids distinct from the main host's
  return ref;
}

async function deliverVia(host, body) {
  const url = new URL(`${WEBAPP}?token=${encodeURIComponent(TOKEN)}`);
  const exec = await host.run('doPost', [buildEvent(url, Buffer.from(body, 'utf8'), 'application/json')], { kind: 'webapp' });
  const answer = JSON.parse(String(exec.value?.content ?? 'null'));
  return { answer, exec };
}

/**
 * The minute trigger's part while deliveries keep arriving: a processQueue run refreshes intake's copy of Config once it
 * is half as old as it may be (forms-mirror.ts). The bench's deliveries come faster than a minute apart, so a run is
 * made between two of them when the copy is three minutes old, and the 100k Queue's slow deliveries never see it expire.
 */
async function keepCopyFresh(host) {
  const copy = host.properties.get('FQ_INTAKE_FORMS');
  const readAt = copy ? JSON.parse(copy).readAt : 0;
  if (host.now() - readAt > 3 * 60_000) await host.run('processQueue', [], { kind: 'trigger' });
}

function summarize(samples) {
  return {
    serviceCalls: median(samples.map((s) => s.exec.serviceCalls)),
    cellsRead: median(samples.map((s) => s.exec.cellsRead)),
    cellsWritten: median(samples.map((s) => s.exec.cellsWritten)),
    wallMs: median(samples.map((s) => s.exec.durationMs)),
    // Modeled on Google (--latency): p50 and p99 (nearest rank) of the model's charge per delivery.
    modeledP50: percentile(samples.map((s) => modeledMsOf(s.exec)), 0.5),
    modeledP99: percentile(samples.map((s) => modeledMsOf(s.exec)), 0.99),
    execs: samples.map((s) => s.exec),
    // The last delivery's calls: the first after a load grows the full grid (three calls more), which is not the steady cost.
    calls: samples.at(-1)?.exec.calls ?? {},
    queued: samples.filter((s) => s.answer?.queued === true).length,
    n: samples.length,
    answers: samples.filter((s) => s.answer?.queued !== true).map((s) => [s.answer ?? s.exec.error, s.exec.logs]),
  };
}

/**
 * For each size: load a Queue of that many rows, then deliver `perSize` new submissions through each bundle
 * (alternating, so both see the same sheet sizes) and take medians. `progress(line)` reports as it goes.
 */
export async function measureIntake({ sizes = [1000, 10000, 100000], perSize = 5, progress = () => undefined } = {}) {
  const rt = await startRuntime();
  const ref = referenceHost(rt.host);
  const header = rt.host.sheetJson('Queue').header;
  const results = [];
  let next = 10_000_000;
  try {
    // One warm-up delivery each, so worker start-up caches do not land in the first size's numbers.
    const first = await deliverVia(rt.host, submission(next++));
    await deliverVia(ref, submission(next++));
    // Then a processQueue run, as the minute trigger makes after a delivery: it reads Config and leaves intake its copy
    // of the forms in Script Properties (src/core/domain/config/forms-mirror.ts), which the deliveries below read instead of
    // Config, as they do on Google while deliveries keep arriving. The warm-up delivery had none: its calls are the cost
    // of a delivery after five idle minutes or a Config edit.
    await rt.host.run('processQueue', [], { kind: 'trigger' });
    // A bundle from before the copy (FQ_BENCH_BUNDLE=<an older dist>) leaves none and reads Config every time.
    const copies = Boolean(rt.host.properties.get('FQ_INTAKE_FORMS'));
    if (!copies) progress('intake: this bundle leaves no copy of Config (FQ_INTAKE_FORMS): every delivery reads Config');
    results.withoutCopy = { serviceCalls: first.exec.serviceCalls, calls: first.exec.calls };
    for (const size of sizes) {
      const t0 = Date.now();
      rt.host.loadSheet('Queue', header, filler(header, size, 1));
      progress(`intake: Queue loaded with ${size} rows in ${Date.now() - t0} ms; ${perSize} deliveries through each bundle`);
      const ours = [], naive = [];
      for (let i = 0; i < perSize; i++) {
        if (copies) await keepCopyFresh(rt.host);
        ours.push(await deliverVia(rt.host, submission(next++)));
        naive.push(await deliverVia(ref, submission(next++)));
      }
      const row = { size, formqueue: summarize(ours), fullscan: summarize(naive) };
      const readConfig = ours.filter((s) => (s.exec.calls['Spreadsheet.getSheetByName'] ?? 0) > 1).length;
      if (copies && readConfig > 0) throw new Error(`intake bench: ${readConfig} of ${ours.length} deliveries at ${size} rows read Config: the copy expired (the bench ran over 5 minutes) or was not trusted`);
      for (const [name, s] of Object.entries({ formqueue: row.formqueue, fullscan: row.fullscan })) {
        if (s.queued !== s.n) throw new Error(`intake bench: ${name} queued ${s.queued} of ${s.n} deliveries at ${size} rows: ${JSON.stringify(s.answers)}`);
      }
      progress(`intake: ${size} rows: formqueue ${row.formqueue.serviceCalls} calls, ${row.formqueue.cellsRead} cells, ` +
        `${row.formqueue.wallMs.toFixed(0)} ms; full scan ${row.fullscan.serviceCalls} calls, ${row.fullscan.cellsRead} cells, ${row.fullscan.wallMs.toFixed(0)} ms`);
      results.push(row);
    }
  } finally {
    await ref.dispose();
    await rt.close();
  }
  return results;
}
