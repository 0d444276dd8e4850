// What staff do to the Queue (paste, sort, insert, delete rows) while formqueue runs, end to end in the runtime.
// A row is its event_id, never its row number: staff sort, insert and delete rows at any time.
import { beforeEach, describe, expect, it } from 'vitest';
import { QUEUE_HEADERS, type QueueHeader } from '../../src/core/domain/queue/queue-row';
import { runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const DIRTY = 'FQ_DIRTY';
const ANA = 'ana@example.org';
interface Mail { to: string; subject: string; body: string }

/** A distinct delivery whose respondent is r<n>@example.com. */
function delivery(n: number): string {
  return submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; });
}
const eventIdOf = (body: string): string => JSON.parse(body).event_id;
const col = (header: QueueHeader): string => String.fromCharCode(65 + QUEUE_HEADERS.indexOf(header));

describe('staff reshaping the Queue during runs', () => {
  let rt: Runtime;
  beforeEach(async () => { rt = await freshRuntime({ props: { GEMINI_CONCURRENCY: '1' } }); });

  const respondentMails = (): Mail[] => rt.host.outbox.filter((m: Mail) => m.to !== 'staff@example.com');
  const rowOf = (eventId: string) => rt.queue().find((r) => r.event_id === eventId)!;
  const tick = async () => {
    rt.host.properties.set(DIRTY, String(Date.now()));
    const exec = await rt.run('processQueue');
    expect(exec.status, JSON.stringify(exec.error)).toBe('ok');
    return exec;
  };
  /** Holds a run inside its first Gemini call, lets `reshape` act on the sheet, then lets the run finish. */
  const duringRun = async (reshape: () => Promise<unknown>) => {
    rt.host.faults.add({ target: 'gemini', pause: true });
    rt.host.properties.set(DIRTY, String(Date.now()));
    const running = rt.run('processQueue');
    await rt.host.faults.waitForPausedFetches(1);
    await reshape();
    rt.host.faults.clear();
    const exec = await running;
    expect(exec.status, JSON.stringify(exec.error)).toBe('ok');
  };
  /** Every row ends SENT with its own reply, and each respondent gets exactly one mail. */
  const expectEachRowMailedOnce = (bodies: string[]) => {
    for (const body of bodies) {
      const row = rowOf(eventIdOf(body));
      expect([row.status, row.error]).toEqual(['SENT', '']);
      expect(String(row.mail_ref)).not.toBe('');
    }
    const mails = respondentMails();
    expect(mails.map((m) => m.to).sort()).toEqual(bodies.map((b) => rowOf(eventIdOf(b)).recipient).sort());
    for (const mail of mails) {
      const row = rt.queue().find((r) => r.recipient === mail.to)!;
      expect(mail.body).toContain(String(row.result).slice(0, 40)); // the mail carries that row's own reply
    }
  };

  /** Ticks until every row is SENT (or six ticks passed), moving time on so stale claims are swept. */
  const settle = async () => {
    for (let i = 0; i < 6 && rt.queue().some((r) => r.status !== 'SENT'); i++) {
      rt.host.advanceClock(10 * 60_000);
      await tick();
    }
  };

  // Sorting fires the on-edit trigger with the sorted block and no e.value (staff-edits.mjs: a sort moves rows with
  // their data, which fires on-edit like a paste). The guard leaves a whole-row block's rows alone when each is the
  // submission it was (its status is the one the Log last recorded, or PENDING with no Log line).
  it('sorting the Queue by recipient leaves every row as it was and the queue is still mailed', async () => {
    const bodies = [delivery(58), delivery(59)];
    for (const body of bodies) await rt.deliver(body);
    await rt.host.edit({ op: 'sort', sheet: 'Queue', column: 'recipient', ascending: false, user: ANA });
    expect(rt.queue().map((r) => [r.recipient, r.status])).toEqual([['r59@example.com', 'PENDING'], ['r58@example.com', 'PENDING']]);
    await settle();
    expectEachRowMailedOnce(bodies);
  });

  it('sorting a Queue of more rows than the guard looks up one by one (the Log is read once) leaves every row as it was', async () => {
    const sent = [70, 71, 72, 73, 74, 75].map(delivery);
    for (const body of sent) await rt.deliver(body);
    await settle();
    const waiting = delivery(76);
    await rt.deliver(waiting);
    const before = new Map(rt.queue().map((r) => [String(r.event_id), r.status]));
    const [guard] = await rt.host.edit({ op: 'sort', sheet: 'Queue', column: 'recipient', ascending: false, user: ANA });
    expect(guard.status, JSON.stringify(guard.error)).toBe('ok');
    expect(new Map(rt.queue().map((r) => [String(r.event_id), r.status]))).toEqual(before);
    await settle();
    expectEachRowMailedOnce([...sent, waiting]);
  });

  // A submission can have a copy (a delivery appended past the intake lock's wait, or a redelivery processing
  // collapsed): the Log then tells of two rows under one event_id, and its last line may be the copy's or the
  // answering row's. A sort must leave both as they were, not put one's status on the other.
  it('sorting the Queue while a submission has a DUPLICATE copy leaves the copy DUPLICATE and the answering row as it was; mailed once', async () => {
    const body = delivery(90);
    await rt.deliver(body);
    const queue = rt.host.sheetJson('Queue');
    rt.host.loadSheet('Queue', queue.header, [queue.rows[0], queue.rows[0].slice()]); // the copy below the first row
    rt.host.faults.add({ target: 'gemini', status: 503, count: 1 });
    await tick(); // collapses the copy (its Log line first), then the answering row's try fails: back to PENDING
    const shape = () => rt.queue().map((r) => [r.status, Number(r.attempts)]);
    expect(shape()).toEqual([['PENDING', 1], ['DUPLICATE', 0]]);
    const [guard] = await rt.host.edit({ op: 'sort', sheet: 'Queue', column: 'status', ascending: true, user: ANA });
    expect(guard.status, JSON.stringify(guard.error)).toBe('ok');
    expect(shape()).toEqual([['DUPLICATE', 0], ['PENDING', 1]]);
    rt.host.faults.clear();
    rt.host.advanceClock(10 * 60_000);
    await tick();
    expect(shape()).toEqual([['DUPLICATE', 0], ['SENT', 2]]); // its second try wrote the reply
    expect(respondentMails().map((m) => m.to)).toEqual(['r90@example.com']);
  });

  // The rows in flight keep their claims; the reply Gemini wrote is written where its submission moved to.
  it('a sort of the Queue while a run is held inside Gemini: each reply lands on its own submission and is mailed once', async () => {
    const bodies = [delivery(60), delivery(61), delivery(62)];
    for (const body of bodies) await rt.deliver(body);
    await duringRun(() => rt.host.edit({ op: 'sort', sheet: 'Queue', column: 'recipient', ascending: false, user: ANA }));
    await settle();
    expect(rt.queue().map((r) => r.recipient)).toEqual(['r62@example.com', 'r61@example.com', 'r60@example.com']);
    expectEachRowMailedOnce(bodies);
  });

  it('rows inserted above the Queue rows while a run is held inside Gemini: each submission is mailed once, on its own row', async () => {
    const bodies = [delivery(63), delivery(64)];
    for (const body of bodies) await rt.deliver(body);
    await duringRun(() => rt.host.edit({ op: 'insertRows', sheet: 'Queue', before: 2, count: 3, user: ANA }));
    await settle();
    expectEachRowMailedOnce(bodies);
  });

  // The run finds the row it claimed by its event_id, not by the row number it read before the insert.
  it('a reply generated while staff inserted rows above is written to its own row in the same run', async () => {
    const body = delivery(68);
    await rt.deliver(body);
    await duringRun(() => rt.host.edit({ op: 'insertRows', sheet: 'Queue', before: 2, count: 1, user: ANA }));
    expect(rowOf(eventIdOf(body)).status).toBe('SENT');
    expect(rt.gemini.requests).toHaveLength(1);
  });

  it('a row deleted above the one being generated while a run is held inside Gemini: each submission is mailed once, on its own row', async () => {
    const [first, second] = [delivery(65), delivery(66)];
    await rt.deliver(first);
    await rt.deliver(second);
    await rt.host.edit({ op: 'insertRows', sheet: 'Queue', before: 2, count: 1, user: ANA }); // a blank row staff added earlier
    await duringRun(() => rt.host.edit({ op: 'deleteRows', sheet: 'Queue', row: 2, count: 1, user: ANA }));
    await settle();
    expectEachRowMailedOnce([first, second]);
  });

  // Archiving copies rows to Archive, then deletes them from Queue: a sort in between must not delete the live rows
  // that now stand where the archived ones stood. The Archive append is held (a sheets pause fault) while staff sort.
  it('a sort while archiving appends to Archive: only the archived rows leave the Queue, the live ones stay, each archived once', async () => {
    const old = [delivery(90), delivery(91)];
    for (const body of old) await rt.deliver(body);
    await settle();
    const queueSheet = rt.host.ss.byName('Queue');
    const longAgo = `${new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10)} 09:00`;
    for (const row of [2, 3]) {
      for (const header of ['received_at', 'sent_at', 'updated_at'] as const) queueSheet.enter(row, QUEUE_HEADERS.indexOf(header) + 1, longAgo, rt.host.ss.timeZone, Date.now());
    }
    rt.host.properties.set('PAUSED', 'true'); // the live rows stay PENDING: the run only archives
    const live = [delivery(92), delivery(93)];
    for (const body of live) await rt.deliver(body);
    rt.host.faults.add({ target: 'sheets', pause: true, call: 'Sheet.appendRow', sheet: 'Archive', count: 1 });
    rt.host.properties.set(DIRTY, String(Date.now()));
    const running = rt.run('processQueue');
    await rt.host.faults.waitForHeldSheetCalls(1);
    // r93, r92 (live) now stand at rows 2 and 3, where the archived rows stood when archiving found them.
    await rt.host.edit({ op: 'sort', sheet: 'Queue', column: 'recipient', ascending: false, user: ANA });
    rt.host.faults.clear();
    const exec = await running;
    expect(exec.status, JSON.stringify(exec.error)).toBe('ok');
    expect(rt.queue().map((r) => [r.event_id, r.status])).toEqual([[eventIdOf(live[1]), 'PENDING'], [eventIdOf(live[0]), 'PENDING']]);
    const archive = rt.host.sheetJson('Archive');
    const archivedIds = archive.rows.map((cells: unknown[]) => cells[archive.header.indexOf('event_id')]);
    expect(archivedIds.sort()).toEqual(old.map(eventIdOf).sort());
    expect(respondentMails()).toHaveLength(2);
  });

  // Paste sends no e.value (docs/platform.md#on-edit-events): the guard must judge the pasted cell, not take it for
  // "superseded" and leave READY over NEEDS_REVIEW, which would mail again a row that may already have reached the person.
  it('READY pasted over a NEEDS_REVIEW row is put back, and the row is not mailed again', async () => {
    // A row whose mail may have gone out (the send's outcome is unknown): only staff can close it, never a resend.
    const at = new Date(Date.now() - 3600_000);
    const fields: Partial<Record<QueueHeader, unknown>> = {
      status: 'NEEDS_REVIEW', event_id: 'ev-review', received_at: at, form_id: 'f1', recipient: 'r69@example.com', submission: 'Q: a',
      result: 'Maybe sent', mail_ref: 'FQ-BBBBBB', error: 'MAIL_UNKNOWN: killed', updated_at: at,
    };
    rt.host.loadSheet('Queue', [...QUEUE_HEADERS], [QUEUE_HEADERS.map((h) => fields[h] ?? '')]);
    const [guard] = await rt.host.edit({ op: 'paste', sheet: 'Queue', a1: `${col('status')}2`, values: [['READY']], user: ANA });
    expect(guard.status).toBe('ok');
    await tick();
    expect(rowOf('ev-review').status).toBe('NEEDS_REVIEW');
    expect(respondentMails()).toEqual([]);
  });

  // A row parked by a paste while PENDING (or GENERATING with its Log line not yet written) had no reason of its own:
  // staff filtering NEEDS_REVIEW saw an empty error cell.
  it('READY pasted over a row the Log knows nothing of parks it in NEEDS_REVIEW with the reason on the row', async () => {
    const body = delivery(81);
    await rt.deliver(body);
    const [guard] = await rt.host.edit({ op: 'paste', sheet: 'Queue', a1: `${col('status')}2`, values: [['READY']], user: ANA });
    expect(guard.status).toBe('ok');
    const row = rowOf(eventIdOf(body));
    expect(row.status).toBe('NEEDS_REVIEW');
    expect(String(row.error)).toMatch(/^STAFF_EDIT_UNCHECKED: multi-cell edit to "READY" could not be checked/);
    await tick();
    expect(respondentMails()).toEqual([]);
  });

  // Google runs 30 executions of one user at a time and refuses the rest (the on-edit trigger runs as its creator, the
  // deployer): during a burst of deliveries a person's edit is never judged. The next run puts the ledger's values back.
  it('a sent_at cleared while 30 executions hold the deployer busy (the on-edit trigger refused) is put back by the next processQueue', async () => {
    const body = delivery(82);
    await rt.deliver(body);
    await settle();
    const sent = rowOf(eventIdOf(body));
    expect(sent.status).toBe('SENT');
    rt.host.faults.add({ target: 'gemini', pause: true });
    const busy = Array.from({ length: 30 }, () => rt.host.run('selfTest', [], { kind: 'menu' }));
    await rt.host.faults.waitForPausedFetches(30);
    const [guard] = await rt.host.edit({ op: 'clear', sheet: 'Queue', a1: `${col('sent_at')}2`, user: ANA });
    expect(guard.status).toBe('refused');
    expect(rowOf(eventIdOf(body)).sent_at).toBe('');
    rt.host.faults.clear();
    await Promise.all(busy);
    await tick();
    const row = rowOf(eventIdOf(body));
    expect([row.status, new Date(row.sent_at as string).getTime(), row.mail_ref]).toEqual(['SENT', new Date(sent.sent_at as string).getTime(), sent.mail_ref]);
    const queue = rt.host.ss.byName('Queue');
    expect(queue.note(2, QUEUE_HEADERS.indexOf('sent_at') + 1)).toMatch(/^formqueue put back sent_at \(empty\) → /);
    const log = rt.host.sheetJson('Log')!.rows.filter((cells: unknown[]) => cells[1] === eventIdOf(body) && String(cells[5]).startsWith('put back sent_at'));
    expect(log).toHaveLength(1);
    expect(respondentMails()).toHaveLength(1);
  });

  // Sheets gives no old values for an edit of several cells (docs/platform.md#on-edit-events): the payload (event_id)
  // and the Log's ledger lines (mail_ref, sent_at, claimed_at) are the records a block of system cells is put back from.
  it('a clear over sent_at and mail_ref of two SENT rows puts every cell back from the Log, with a note on each, and nothing is mailed again', async () => {
    const bodies = [delivery(83), delivery(84)];
    for (const body of bodies) await rt.deliver(body);
    await settle();
    const before = bodies.map((body) => rowOf(eventIdOf(body)));
    expect(before.map((r) => r.status)).toEqual(['SENT', 'SENT']);
    const [guard] = await rt.host.edit({ op: 'clear', sheet: 'Queue', a1: `${col('sent_at')}2:${col('mail_ref')}3`, user: ANA });
    expect(guard.status, JSON.stringify(guard.error)).toBe('ok');
    for (const [i, body] of bodies.entries()) {
      const row = rowOf(eventIdOf(body));
      expect([row.status, new Date(row.sent_at as string).getTime(), row.mail_ref]).toEqual(['SENT', new Date(before[i].sent_at as string).getTime(), before[i].mail_ref]);
    }
    const queue = rt.host.ss.byName('Queue');
    for (const r of [2, 3]) {
      for (const header of ['sent_at', 'mail_ref'] as const) expect(queue.note(r, QUEUE_HEADERS.indexOf(header) + 1)).toMatch(/^formqueue \(edit by .+\): multi-cell edit of .*put back /);
    }
    await tick();
    expect(respondentMails()).toHaveLength(2);
  });

  it('event_id pasted over several rows is put back from each row\'s payload, and each submission is still mailed once', async () => {
    const bodies = [delivery(85), delivery(86), delivery(87)];
    for (const body of bodies) await rt.deliver(body);
    const [guard] = await rt.host.edit({ op: 'paste', sheet: 'Queue', a1: `${col('event_id')}2`, values: [['x-1'], ['x-2'], ['x-3']], user: ANA });
    expect(guard.status, JSON.stringify(guard.error)).toBe('ok');
    expect(rt.queue().map((r) => r.event_id)).toEqual(bodies.map(eventIdOf));
    expect(rt.queue().map((r) => r.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    expect(rt.host.ss.byName('Queue').note(3, QUEUE_HEADERS.indexOf('event_id') + 1)).toMatch(/put back event_id from the row's payload \(x-2 → /);
    await settle();
    expectEachRowMailedOnce(bodies);
  });

  it('a value pasted into claimed_at of rows the Log knows nothing of parks them in NEEDS_REVIEW, with the reason, never mailed', async () => {
    const bodies = [delivery(88), delivery(89)];
    for (const body of bodies) await rt.deliver(body);
    const [guard] = await rt.host.edit({ op: 'paste', sheet: 'Queue', a1: `${col('claimed_at')}2`, values: [['2026-01-01'], ['2026-01-01']], user: ANA });
    expect(guard.status, JSON.stringify(guard.error)).toBe('ok');
    expect(rt.queue().map((r) => [r.status, String(r.error).slice(0, 21)])).toEqual([['NEEDS_REVIEW', 'STAFF_EDIT_UNCHECKED:'], ['NEEDS_REVIEW', 'STAFF_EDIT_UNCHECKED:']]);
    await tick();
    expect(respondentMails()).toEqual([]);
  });
});
