// Intake end to end: the built bundle's doPost over HTTP in the local runtime, with real concurrency and faults.
import { beforeEach, describe, expect, it } from 'vitest';
import { QUEUE_HEADERS } from '../../src/core/domain/queue/queue-row';
import { fixture, runtimePerFile, submission, TOKEN, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

describe('doPost over HTTP in the local runtime', () => {
  let rt: Runtime;
  beforeEach(async () => {
    rt = await freshRuntime();
  });

  it('queues a delivery once and answers its Typeform retry as a duplicate', async () => {
    const body = fixture('essay-submission.json');
    expect(await rt.deliver(body)).toEqual({ ok: true, queued: true, event_id: '01JQ8ZK4W6E2V1RZ5T3N8M0B7C' });
    expect(await rt.deliver(body)).toEqual({ ok: true, duplicate: true, event_id: '01JQ8ZK4W6E2V1RZ5T3N8M0B7C' });
    const rows = rt.queue();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'PENDING', recipient: 'mina.okafor@example.com', form_id: 'Wr1tE5sy' });
    expect(String(rows[0].submission)).toContain('Your name: Mina Okafor');
  });

  it('gives one row for 20 concurrent deliveries of the same event', async () => {
    const body = submission(1);
    const answers = await Promise.all(Array.from({ length: 20 }, () => rt.deliver(body)));
    expect(answers.filter((a) => a.queued === true)).toHaveLength(1);
    expect(answers.filter((a) => a.duplicate === true)).toHaveLength(19);
    expect(rt.queue()).toHaveLength(1);
  });

  it('queues 10 different concurrent deliveries as 10 rows, none lost', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => rt.deliver(submission(i + 100))));
    expect(answers.every((a) => a.queued === true)).toBe(true);
    expect(new Set(rt.queue().map((row) => row.event_id)).size).toBe(10);
  });

  it('rejects a wrong token: nothing queued, the body kept in Rejected without the token', async () => {
    const body = submission(2);
    expect(await rt.deliver(body, 'not-the-token')).toEqual({ ok: false, error: 'unauthorized' });
    expect(await rt.deliver(body, null)).toEqual({ ok: false, error: 'unauthorized' });
    expect(rt.queue()).toHaveLength(0);
    const rejected = rt.sheet('Rejected');
    expect(rejected.rows).toHaveLength(2);
    expect(rejected.rows[0][rejected.header.indexOf('body')]).toBe(body);
    expect(JSON.stringify(rejected)).not.toContain(TOKEN);
  });

  it('rejects malformed JSON with an answer naming the error and keeps the raw body', async () => {
    expect(await rt.deliver('{"event_id": "x", ')).toEqual({ ok: false, error: 'malformed_json' });
    const rejected = rt.sheet('Rejected');
    expect(rejected.rows[0][rejected.header.indexOf('body')]).toBe('{"event_id": "x", ');
    expect(String(rejected.rows[0][rejected.header.indexOf('reason')])).toContain('malformed_json');
  });

  it("queues Typeform's test request as TEST", async () => {
    expect(await rt.deliver(fixture('test-request.json'))).toMatchObject({ ok: true, queued: true, test: true });
    expect(rt.queue()[0].status).toBe('TEST');
  });

  it('keeps a form_response_partial in Rejected with its reason, answers ok, and never queues or mails it', async () => {
    const body = fixture('partial-response.json');
    expect(await rt.deliver(body)).toEqual({ ok: true, partial: true, event_id: '01KHNHB0PARTIAL0000000000X' });
    expect(await rt.deliver(body)).toMatchObject({ ok: true });
    expect(rt.queue()).toHaveLength(0);
    const rejected = rt.sheet('Rejected');
    expect(rejected.rows).toHaveLength(1);
    expect(String(rejected.rows[0][rejected.header.indexOf('reason')])).toMatch(/^partial_response: .*never answered/);
    expect(rejected.rows[0][rejected.header.indexOf('body')]).toBe(JSON.stringify(JSON.parse(body)));
    rt.host.properties.set('FQ_DIRTY', String(Date.now()));
    expect((await rt.run('processQueue')).status).toBe('ok');
    expect(rt.host.outbox.filter((mail: { to: string }) => mail.to !== 'staff@example.com')).toHaveLength(0);
  });

  it('rejects a delivery as unknown form when a person cleared the whole Config sheet, header included', async () => {
    rt.host.loadSheet('Config', [], []);
    expect(await rt.deliver(submission(4))).toMatchObject({ ok: false, error: 'unknown_form' });
    expect(rt.queue()).toHaveLength(0);
  });

  it('rejects a form the Config sheet does not enable as unknown form', async () => {
    await rt.host.edit({ sheet: 'Config', a1: 'A2', value: 'SomeOtherForm', user: 'owner@example.com' });
    expect(await rt.deliver(submission(3))).toMatchObject({ ok: false, error: 'unknown_form' });
    expect(rt.queue()).toHaveLength(0);
  });

  it('writes answers that look like formulas, numbers or dates as text', async () => {
    const tricky = ['=HYPERLINK("http://evil.example","x")', '+1 555 0100', '-5', '@import', '2026-11-21'];
    const body = submission(4, (b) => {
      b.form_response.answers[0].text = tricky[0];
      b.form_response.answers[4].text = tricky.join('\n');
      b.form_response.answers[0].field.ref = 'name';
    });
    await rt.deliver(body);
    const sheet = rt.sheet('Queue');
    expect(sheet.formulas.flat().every((cell) => cell === '')).toBe(true);
    const row = rt.queue()[0];
    expect(String(row.submission)).toContain('Your name: =HYPERLINK("http://evil.example","x")');
    expect(row.payload).toBe(body);
    expect(typeof row.response_token).toBe('string');
  });

  it('chunks a 60,000-character essay into Payloads and reassembles it byte for byte', async () => {
    const essay = 'Ünïcödé essay 😀 '.repeat(4000).slice(0, 60000);
    const body = submission(5, (b) => {
      b.form_response.answers[4].text = essay;
    });
    expect((await rt.deliver(body)).queued).toBe(true);
    const row = rt.queue()[0];
    expect(row.payload).toMatch(/^\(in Payloads: \d+ parts\)$/);
    expect(String(row.submission).length).toBeLessThanOrEqual(50000);
    const payloads = rt.sheet('Payloads');
    const text = payloads.rows.filter((r) => r[0] === row.event_id).sort((a, b) => Number(a[1]) - Number(b[1])).map((r) => r[3]).join('');
    expect(text).toBe(JSON.stringify(JSON.parse(body)));
  });

  it('spills deliveries while Sheets fails, answers deferred, and queues them once at the next processQueue', async () => {
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    expect(await rt.deliver(submission(6))).toMatchObject({ ok: true, queued: 'deferred' });
    expect(await rt.deliver(submission(7))).toMatchObject({ ok: true, queued: 'deferred' });
    expect(await rt.deliver(submission(6))).toMatchObject({ ok: true, queued: 'deferred' });
    expect(Object.keys(rt.host.properties.getAll()).some((key) => key.startsWith('FQ_SPILL_'))).toBe(true);
    rt.host.faults.clear();
    expect(rt.queue()).toHaveLength(0);
    await rt.host.run('processQueue', [], { kind: 'trigger' });
    const ids = rt.queue().map((row) => row.event_id);
    expect(ids.slice(0, 2)).toEqual([JSON.parse(submission(6)).event_id, JSON.parse(submission(7)).event_id]);
    expect(ids).toHaveLength(2);
    expect(Object.keys(rt.host.properties.getAll()).some((key) => key.startsWith('FQ_SPILL_'))).toBe(false);
  });

  it("keeps a form's definition once for all its spilled deliveries, and drops it once they are drained", async () => {
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    for (const n of [30, 31, 32]) expect(await rt.deliver(submission(n))).toMatchObject({ queued: 'deferred' });
    const keys = () => Object.keys(rt.host.properties.getAll());
    expect(keys().filter((key) => key.startsWith('FQ_SPILLDEF_'))).toHaveLength(1);
    expect(keys().filter((key) => key.startsWith('FQ_SPILL_'))).toHaveLength(3);
    rt.host.faults.clear();
    await rt.host.run('processQueue', [], { kind: 'trigger' });
    expect(rt.queue().map((row) => row.payload)).toEqual([30, 31, 32].map((n) => JSON.stringify(JSON.parse(submission(n)))));
    expect(keys().filter((key) => key.startsWith('FQ_SPILL'))).toEqual([]);
  });

  it('counts spilled deliveries as waiting in the outage mail, one per delivery however long its body', async () => {
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    await rt.deliver(submission(14));
    // Text gzip cannot shrink much, so this delivery is stored in several 8,000-character parts.
    let seed = 1;
    const noise = Array.from({ length: 30000 }, () => ((seed = (seed * 48271) % 2147483647) % 36).toString(36)).join('');
    await rt.deliver(submission(15, (b) => void (b.form_response.answers[4].text = noise)));
    expect(Object.keys(rt.host.properties.getAll()).filter((key) => key.startsWith('FQ_SPILL_')).length).toBeGreaterThan(2);
    await rt.host.run('processQueue', [], { kind: 'trigger' });
    const mail = rt.host.outbox.find((m: { subject: string }) => m.subject.startsWith('[formqueue] Sheets unavailable'));
    expect(mail?.subject).toMatch(/— 2 waiting/);
  });

  it('keeps a damaged spill entry in Rejected and still drains the deliveries spilled after it', async () => {
    rt.host.properties.set('FQ_SPILL_0000000000001-0badc0de_1_1', 'not gzip at all');
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    expect(await rt.deliver(submission(11))).toMatchObject({ queued: 'deferred' });
    rt.host.faults.clear();
    expect((await rt.host.run('processQueue', [], { kind: 'trigger' })).status).toBe('ok');
    expect(rt.queue().map((row) => row.event_id)).toEqual([JSON.parse(submission(11)).event_id]);
    const rejected = rt.sheet('Rejected');
    expect(rejected.rows).toHaveLength(1);
    expect(String(rejected.rows[0][rejected.header.indexOf('reason')])).toContain('could not be decoded');
    expect(rejected.rows[0][rejected.header.indexOf('body')]).toBe('not gzip at all');
    expect(Object.keys(rt.host.properties.getAll()).some((key) => key.startsWith('FQ_SPILL_'))).toBe(false);
  });

  it('queues a delivery while a processQueue run holds the script lock', async () => {
    await rt.deliver(submission(8));
    rt.host.faults.add({ target: 'gemini', pause: true });
    const running = rt.host.run('processQueue', [], { kind: 'trigger' });
    await rt.host.faults.waitForPausedFetches(1);
    // processQueue is now inside its Gemini call, holding the script lock.
    expect(await rt.deliver(submission(9))).toMatchObject({ ok: true, queued: true });
    expect(rt.queue().map((row) => row.status)).toEqual(['GENERATING', 'PENDING']);
    rt.host.faults.clear();
    expect((await running).status).toBe('ok');
  });

  it('costs the same service calls and cells read per delivery at 100 and at 100,000 rows (no full-sheet read)', async () => {
    const costAt = async (size: number) => {
      const rows = Array.from({ length: size }, (_, i) => QUEUE_HEADERS.map((name) => (name === 'status' ? 'SENT' : name === 'event_id' ? `old-${i}` : name === 'response_token' ? `oldtok-${i}` : '')));
      rt.host.loadSheet('Queue', [...QUEUE_HEADERS], rows);
      // The first append may grow a full grid (once per 1,000 rows); the second shows the steady cost.
      await rt.deliver(submission(`${size}a`));
      expect(await rt.deliver(submission(`${size}b`))).toMatchObject({ queued: true });
      const exec = rt.host.executions.filter((e: { functionName: string }) => e.functionName === 'doPost').at(-1);
      return { calls: exec.calls, cellsRead: exec.cellsRead };
    };
    const small = await costAt(100);
    const large = await costAt(100_000);
    expect(large).toEqual(small);
    // The header, Config and the formats of the 51 rows an append may land in (no getMaxRows): never a column's worth.
    expect(large.cellsRead).toBeLessThan(1000);
  });

  it('raises SPILL_BACKLOG well before the spill is full, and answers backlog_full (never a false success) once it is', async () => {
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    const fill = (from: number, count: number) => {
      for (let i = from; i < from + count; i++) rt.host.properties.set(`FQ_SPILL_${String(i).padStart(13, '0')}-0000abcd_1_1`, 'x'.repeat(8000));
    };
    fill(1, 26); // about 210,000 characters: past the warning, far from the 400,000 limit
    await rt.host.run('processQueue', [], { kind: 'trigger' });
    expect(JSON.parse(rt.host.properties.get('FQ_INCIDENT_SPILL_BACKLOG'))).toMatchObject({ code: 'SPILL_BACKLOG' });
    expect(await rt.deliver(submission(12))).toMatchObject({ ok: true, queued: 'deferred' });
    fill(100, 25); // past 400,000
    expect(await rt.deliver(submission(13))).toMatchObject({ ok: false, error: 'backlog_full' });
  });

  it('answers JSON and never an error page, even when the spreadsheet id is wrong', async () => {
    rt.host.properties.set('SPREADSHEET_ID', 'no-such-spreadsheet');
    const answer = await rt.deliver(submission(10));
    expect(answer.ok).toBe(true);
    expect(answer.queued).toBe('deferred');
  });
});
