// What a delivery and a run cost in service calls, in the local runtime: the savings docs/performance.md explains, each pinned.
import { afterEach, describe, expect, it } from 'vitest';
import { QUEUE_HEADERS } from '../../src/core/queue-row';
import { startRuntime, submission, type Runtime } from './runtime';

const lastExecution = (rt: Runtime, fn: string) => [...rt.host.executions].reverse().find((e: any) => e.functionName === fn);
const col = (name: (typeof QUEUE_HEADERS)[number]) => String.fromCharCode(65 + QUEUE_HEADERS.indexOf(name));

describe('service calls per delivery and per run', () => {
  let rt: Runtime;
  afterEach(async () => {
    await rt?.close();
  });

  it('a first delivery asks no hasLock, no getLastColumn or getMaxRows before its finds, flushes once and leaves no cache mark', async () => {
    rt = await startRuntime();
    expect(await rt.deliver(submission(1))).toMatchObject({ ok: true, queued: true });
    const calls = lastExecution(rt, 'doPost').calls;
    expect(calls['Lock.hasLock']).toBeUndefined();
    expect(calls['Sheet.getLastColumn']).toBeUndefined();
    expect(calls['Cache.put']).toBeUndefined();
    expect(calls['SpreadsheetApp.flush']).toBe(1);
    expect(calls['TextFinder.findNext']).toBe(1); // event_id and response_token in one search
    expect(calls['Sheet.getMaxRows']).toBe(1); // the headroom check only
  });

  it('a new event_id carrying a queued response token is still a duplicate (one search over both columns)', async () => {
    rt = await startRuntime();
    await rt.deliver(submission(1));
    const again = submission(1, (body) => { body.event_id = '01NEWEVENT000000000000000X'; });
    expect(await rt.deliver(again)).toMatchObject({ ok: true, duplicate: true });
    expect(rt.queue()).toHaveLength(1);
  });

  it('an event id a person typed into a column between event_id and response_token does not make the delivery a duplicate', async () => {
    rt = await startRuntime();
    await rt.deliver(submission(1));
    const id = JSON.parse(submission(2)).event_id;
    rt.host.ss.byName('Queue').v[1][QUEUE_HEADERS.indexOf('form_id')] = id; // column D, between B and E
    expect(col('form_id')).toBe('D');
    expect(await rt.deliver(submission(2))).toMatchObject({ ok: true, queued: true });
    expect(rt.queue()).toHaveLength(2);
  });

  it('a run that mails five rows asks MailApp for its daily quota once, counting its own sends down', async () => {
    rt = await startRuntime();
    for (let n = 1; n <= 5; n++) await rt.deliver(submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; }));
    const run = await rt.run('processQueue');
    expect(String(run.value)).toMatch(/sent 5\b/);
    expect(run.calls['MailApp.getRemainingDailyQuota']).toBe(1);
    expect(run.calls['MailApp.sendEmail']).toBe(5);
  });

  it('a run that generates and mails 8 rows batches its Queue I/O: claims and outcomes written per batch, one Log lookup, one read per mail', async () => {
    rt = await startRuntime();
    for (let n = 1; n <= 8; n++) await rt.deliver(submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; }));
    const run = await rt.run('processQueue');
    expect(String(run.value)).toMatch(/Generated 8, sent 8\b/);
    const calls = run.calls;
    // Two generation rounds (K = 4) and two send batches: a claim write and an outcome write each, each flushed.
    expect(calls['UrlFetchApp.fetchAll']).toBe(2);
    expect(calls['Range.setValues']).toBe(8);
    expect(calls['SpreadsheetApp.flush']).toBe(9); // the 8 writes and the lock's release
    // Reads: Queue header and rows, Config, the send ledger's lines (one TextFinder for all 8 rows), each claim read
    // back (a round's at once, a send's right before its mail); the last row is asked for only by whole-sheet reads.
    expect(calls['Range.getValues']).toBe(23);
    expect(calls['Sheet.getLastRow']).toBe(4);
    expect(calls['TextFinder.findAll']).toBe(1);
    // Script Properties: the gate's read and the end's spill figures (one read for both), one write at the end.
    expect(calls['Properties.getProperties']).toBe(2);
    expect(calls['Properties.setProperties']).toBe(1);
    // Four Log lines a row (claimed, written, claimed for sending, sent): appendRow is the only atomic append.
    expect(calls['Sheet.appendRow']).toBe(32);
    expect(calls['MailApp.sendEmail']).toBe(8);
    expect(run.serviceCalls).toBeLessThanOrEqual(151);
  });
});
