// What a delivery and a run cost in service calls, in the local runtime: the savings docs/performance.md explains, each pinned.
import { describe, expect, it } from 'vitest';
import { QUEUE_HEADERS } from '../../src/core/domain/queue/queue-row';
import { runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const lastExecution = (rt: Runtime, fn: string) => [...rt.host.executions].reverse().find((e: any) => e.functionName === fn);
/** Submitted `ago` ms before now, as Typeform's webhook sends a new response seconds after it is submitted. */
const submittedAgo = (ago: number) => (body: any) => {
  body.form_response.submitted_at = new Date(Date.now() - ago).toISOString();
};
const DAY = 24 * 3600_000;
const col = (name: (typeof QUEUE_HEADERS)[number]) => String.fromCharCode(65 + QUEUE_HEADERS.indexOf(name));

describe('service calls per delivery and per run', () => {
  let rt: Runtime;

  it('a first delivery asks no hasLock, no getLastColumn, no getMaxRows at all, flushes once and leaves no cache mark', async () => {
    rt = await freshRuntime();
    expect(await rt.deliver(submission(1))).toMatchObject({ ok: true, queued: true });
    const calls = lastExecution(rt, 'doPost').calls;
    expect(calls['Lock.hasLock']).toBeUndefined();
    expect(calls['Sheet.getLastColumn']).toBeUndefined();
    expect(calls['Cache.put']).toBeUndefined();
    expect(calls['SpreadsheetApp.flush']).toBe(1);
    expect(calls['TextFinder.findNext']).toBe(1); // event_id and response_token in one search
    expect(calls['Sheet.getMaxRows']).toBeUndefined(); // reading the landing rows' formats shows the grid reaches them
  });

  it('a delivery submitted a minute ago skips the Archive (it cannot be archived yet); one submitted two days ago is found there', async () => {
    rt = await freshRuntime();
    // An archived row, as archiving leaves it: event_id and response_token in the Archive's own columns.
    const archive = rt.host.sheetJson('Archive');
    const archived = JSON.parse(submission(7));
    const cells = archive.header.map((name: string) => ({ status: 'SENT', event_id: archived.event_id, response_token: archived.form_response.token })[name] ?? '');
    rt.host.loadSheet('Archive', archive.header, [cells]);

    expect(await rt.deliver(submission(1, submittedAgo(60_000)))).toMatchObject({ ok: true, queued: true });
    const fresh = lastExecution(rt, 'doPost').calls;
    expect(fresh['Spreadsheet.getSheetByName']).toBe(3); // Queue, Config (no run has copied Config yet) and the Journal, not Archive
    expect(fresh['TextFinder.findNext']).toBe(1); // Queue only
    expect(lastExecution(rt, 'doPost').serviceCalls).toBe(18);

    // A run reads Config and leaves intake a copy of its forms in Script Properties (core/domain/config/forms-mirror.ts).
    await rt.run('processQueue');
    expect(await rt.deliver(submission(2, submittedAgo(60_000)))).toMatchObject({ ok: true, queued: true });
    const copied = lastExecution(rt, 'doPost').calls;
    // Every call of a new delivery, pinned (docs/performance.md explains each): a new one fails here.
    expect(copied).toEqual({
      'Properties.getProperties': 1, // settings, and the copy of Config's forms
      'Cache.get': 1, // the seen mark of a recent redelivery
      'SpreadsheetApp.openById': 1,
      'Spreadsheet.getSheetByName': 2, // Queue, and the Journal (its line after the row's)
      'Sheet.getSheetValues': 1, // the Queue header, in one call
      'Sheet.getRange': 2, // the find's columns, the landing rows
      'Lock.tryLock': 1, // released by the end of the execution, without a call
      'TextFinder.findNext': 1,
      'Sheet.getLastRow': 1, // where the append lands
      'Range.getNumberFormats': 1, // the landing rows are plain text
      'Sheet.appendRow': 2, // the row, and its Journal line (no landing-row check: every Journal cell is text Sheets keeps)
      'SpreadsheetApp.flush': 1,
      'Properties.setProperty': 1, // FQ_DIRTY for the next tick
    });
    expect(lastExecution(rt, 'doPost').serviceCalls).toBe(16);

    // A redelivery of the archived submission (Typeform's retry, or a response brought back later) is a duplicate.
    expect(await rt.deliver(submission(7, submittedAgo(2 * DAY)))).toMatchObject({ ok: true, duplicate: true });
    const old = lastExecution(rt, 'doPost').calls;
    expect(old['Spreadsheet.getSheetByName']).toBe(2); // Queue and Archive; Config from the copy
    expect(old['TextFinder.findNext']).toBe(2); // Queue, then Archive
    expect(rt.queue()).toHaveLength(2); // the two new deliveries, not a third row for the archived one
  });

  it('a junk delivery reads all Script Properties once (the settings) and the day\'s rejection totals once more, after the Tally', async () => {
    rt = await freshRuntime();
    await rt.deliver('{"event_id": "x", '); // the first opens the Tally's landing rows
    expect(await rt.deliver('{"event_id": "y", ')).toEqual({ ok: false, error: 'malformed_json' });
    const junk = lastExecution(rt, 'doPost');
    // Every call of a rejected delivery, pinned: the first look at the day's room is the settings' read.
    expect(junk.calls).toEqual({
      'Properties.getProperties': 1, // settings, and the day's totals as they were
      'SpreadsheetApp.openById': 1,
      'Spreadsheet.getSheetByName': 3, // Queue (opened with the intake sheets), Tally, Rejected
      'Sheet.getLastRow': 3,
      'Sheet.getRange': 3,
      'Range.getNumberFormats': 2,
      'Sheet.appendRow': 2, // the Tally claim, the Rejected row
      'Range.getValues': 1, // the Tally read back
      'Properties.getProperty': 1, // the totals, fresh, after the Tally (a fold in between cannot hide rows)
      'SpreadsheetApp.flush': 2,
    });
    expect(junk.serviceCalls).toBe(19);
  });

  it('a new event_id carrying a queued response token is still a duplicate (one search over both columns)', async () => {
    rt = await freshRuntime();
    await rt.deliver(submission(1));
    const again = submission(1, (body) => { body.event_id = '01NEWEVENT000000000000000X'; });
    expect(await rt.deliver(again)).toMatchObject({ ok: true, duplicate: true });
    expect(rt.queue()).toHaveLength(1);
  });

  it('an event id a person typed into a column between event_id and response_token does not make the delivery a duplicate', async () => {
    rt = await freshRuntime();
    await rt.deliver(submission(1));
    const id = JSON.parse(submission(2)).event_id;
    rt.host.ss.byName('Queue').v[1][QUEUE_HEADERS.indexOf('form_id')] = id; // column D, between B and E
    expect(col('form_id')).toBe('D');
    expect(await rt.deliver(submission(2))).toMatchObject({ ok: true, queued: true });
    expect(rt.queue()).toHaveLength(2);
  });

  it('a run that mails five rows asks MailApp for its daily quota once, counting its own sends down', async () => {
    rt = await freshRuntime();
    for (let n = 1; n <= 5; n++) await rt.deliver(submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; }));
    const run = await rt.run('processQueue');
    expect(String(run.value)).toMatch(/sent 5\b/);
    expect(run.calls['MailApp.getRemainingDailyQuota']).toBe(1);
    expect(run.calls['MailApp.sendEmail']).toBe(5);
  });

  it('a run that generates and mails 8 rows batches its Queue I/O: a verdict written with its send claim, outcomes with the next claims, one Log lookup, one read per mail', async () => {
    rt = await freshRuntime();
    for (let n = 1; n <= 8; n++) await rt.deliver(submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; }));
    const run = await rt.run('processQueue');
    expect(String(run.value)).toMatch(/Generated 8, sent 8\b/);
    const calls = run.calls;
    // Two generation rounds (K = 4) and two send batches, five writes, each flushed: round 1's claims; its verdicts
    // with batch 1's send claims; batch 1's outcomes with round 2's claims; its verdicts with batch 2's claims; batch
    // 2's outcomes at the run's end.
    expect(calls['UrlFetchApp.fetchAll']).toBe(2);
    expect(calls['Range.setValues']).toBe(5);
    // The 5 writes, the lock's release, and each mail's "about to send" Log line (issue #30: +8 for 8 mails).
    expect(calls['SpreadsheetApp.flush']).toBe(14);
    // Reads: the Queue's rows, the send ledger's lines (one TextFinder for all 8 rows), each write's compare-and-set,
    // each claim read back (a round's at once, a send's right before its mail); the last row is asked for only by
    // whole-sheet reads. The Queue header and Config take one getSheetValues each (gas/header-row.ts, config-store.ts).
    expect(calls['Range.getValues']).toBe(18);
    expect(calls['Sheet.getSheetValues']).toBe(4); // and the Journal's lines since the last check, and the Suppressed sheet once
    expect(calls['Sheet.getLastRow']).toBe(6); // the Queue twice, the Log's appender, Archive, the Tally fold, the Journal
    expect(calls['TextFinder.findAll']).toBe(1);
    // Script Properties: the gate's read and the end's spill figures (one read for both), the Tally fold's fresh read
    // of its one key under the lock; one write at the end (the incidents and the gate's marks together).
    expect(calls['Properties.getProperties']).toBe(2);
    expect(calls['Properties.getProperty']).toBe(1);
    expect(calls['Properties.setProperties']).toBe(1);
    // Five Log lines a row (claimed, written, claimed for sending, about to send, sent): appendRow is the only atomic
    // append. The "about to send" line and its flush cost 2 calls a mail (measured: 124 → 140 calls for 8 mails), so
    // a run that dies mid-batch leaves at most one row with an unknown outcome (stale-sweep.ts neverMailedBack).
    expect(calls['Sheet.appendRow']).toBe(40);
    expect(calls['MailApp.sendEmail']).toBe(8);
    // Range handles are kept per span: the whole Queue, each batch's rows (its claim, read-back, mails' reads and
    // outcome write all through one handle); the Log's event_id column, its lines, its landing rows.
    expect(calls['Sheet.getRange']).toBe(6);
    // The Suppressed sheet costs 4 of them: its read (getSheetByName, getSheetValues) and its grid in the capacity watch;
    // the "about to send" Log line before each mail 2 a mail (issue #30's crash blast radius).
    expect(run.serviceCalls).toBeLessThanOrEqual(144);
  });

  it('each mail is read for right before it goes, in one call: the batch\'s rows through their kept range, never a getRange of its own', async () => {
    rt = await freshRuntime({ host: { traceCalls: true } });
    for (let n = 1; n <= 5; n++) await rt.deliver(submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; }));
    const run = await rt.run('processQueue');
    expect(String(run.value)).toMatch(/sent 5\b/);
    const trace: { call: string; sheet: string | null }[] = run.trace;
    // Before each mail: the row's read, then its "about to send" Log line, flushed.
    const beforeMail = trace.flatMap((entry, i) => (entry.call === 'MailApp.sendEmail' ? [[trace[i - 4], trace[i - 3], trace[i - 2], trace[i - 1]]] : []));
    expect(beforeMail).toHaveLength(5);
    expect(beforeMail.every(([, read]) => read.call === 'Range.getValues' && read.sheet === 'Queue')).toBe(true);
    expect(beforeMail.every(([, , mark, flush]) => mark.call === 'Sheet.appendRow' && mark.sheet === 'Log' && flush.call === 'SpreadsheetApp.flush')).toBe(true);
    expect(beforeMail.map(([earlier]) => earlier.call)).not.toContain('Sheet.getRange');
  });
});
