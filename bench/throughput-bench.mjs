// Generation throughput: rows generated in one processQueue run against the offline Gemini with a fixed latency, at concurrency K.
import { pendingQueue, startRuntime } from '../harness/runtime.mjs';


/**
 * One trigger run at concurrency `k` with Gemini latency `latencyMs` and a `budgetSeconds` run budget;
 * returns the run's execution record and the rows it generated (replies written: READY, AWAITING_APPROVAL or SENT).
 */
export async function oneRun({ k, latencyMs, budgetSeconds, rows }) {
  const rt = await startRuntime({ props: { GEMINI_CONCURRENCY: String(k), RUN_BUDGET_SECONDS: String(budgetSeconds), MAX_MAILS_PER_RUN: '1500' } });
  try {
    await pendingQueue(rt, rows);
    rt.host.faults.add({ target: 'gemini', latencyMs });
    const exec = await rt.run('processQueue');
    if (exec.status !== 'ok') throw new Error(`throughput bench: processQueue ${exec.status}: ${JSON.stringify(exec.error)}`);
    const generated = rt.queue().filter((row) => String(row.result ?? '') !== '').length;
    const sent = rt.queue().filter((row) => row.status === 'SENT').length;
    if (generated >= rows) throw new Error(`throughput bench: all ${rows} rows were generated at K=${k}; raise the row count`);
    return { k, generated, sent, fetches: exec.fetches, wallMs: exec.durationMs, summary: String(exec.value ?? '') };
  } finally {
    await rt.close();
  }
}

/** Concurrency 1 against concurrency K, same latency and budget. */
export async function measureThroughput({ k = 4, latencyMs = 500, budgetSeconds = 10, rows = 300, progress = () => undefined } = {}) {
  progress(`throughput: K=1, Gemini latency ${latencyMs} ms, RUN_BUDGET_SECONDS=${budgetSeconds}, ${rows} PENDING rows`);
  const one = await oneRun({ k: 1, latencyMs, budgetSeconds, rows });
  progress(`throughput: K=1 generated ${one.generated} rows (${one.sent} sent) in ${(one.wallMs / 1000).toFixed(1)} s`);
  progress(`throughput: K=${k}, same latency and budget`);
  const many = await oneRun({ k, latencyMs, budgetSeconds, rows });
  progress(`throughput: K=${k} generated ${many.generated} rows (${many.sent} sent) in ${(many.wallMs / 1000).toFixed(1)} s`);
  return { k, latencyMs, budgetSeconds, one, many, ratio: many.generated / one.generated };
}
