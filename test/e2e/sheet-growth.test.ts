// Regression (found by the bench): a sheet whose 1,000 grid rows are all used must still take appends (Queue and Log).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRuntime, submission, type Runtime } from './runtime';

/** Fills `name` so its last row is its last grid row (a fresh sheet has 1,000), as after 999 real appends. */
function fillToGrid(rt: Runtime, name: string, make: (i: number, template: unknown[]) => unknown[]): void {
  const sheet = rt.host.ss.byName(name);
  const header = sheet.v[0];
  const template = sheet.v[1] ?? header.map(() => '');
  const rows = Array.from({ length: sheet.maxRows - 1 }, (_, i) => make(i, template));
  rt.host.loadSheet(name, header, rows);
  expect(sheet.v.length).toBe(sheet.maxRows);
}

describe('appending to a sheet whose grid is full', () => {
  let rt: Runtime;
  beforeEach(async () => {
    rt = await startRuntime();
  });
  afterEach(async () => {
    await rt.close();
  });

  it('queues a delivery when Queue already uses all 1,000 rows (not spilled)', async () => {
    await rt.deliver(submission(1));
    fillToGrid(rt, 'Queue', (i, row) => ['SENT', `ev-${i}`, ...row.slice(2, 4), `tok-${i}`, ...row.slice(5)]);
    expect(await rt.deliver(submission(2))).toMatchObject({ ok: true, queued: true });
    expect(rt.queue().at(-1)?.event_id).toBe(JSON.parse(submission(2)).event_id);
  });

  it('sends a reply when the Log sheet already uses all 1,000 rows', async () => {
    fillToGrid(rt, 'Log', (i) => [new Date(), `ev-${i}`, 'PENDING', 'GENERATING', 'system', 'filler']);
    await rt.deliver(submission(3));
    const run = await rt.run('processQueue');
    expect(run.status).toBe('ok');
    expect(rt.queue()[0].status).toBe('SENT');
    expect(rt.host.outbox.filter((m: { to: string }) => m.to !== 'staff@example.com')).toHaveLength(1);
  });
});
