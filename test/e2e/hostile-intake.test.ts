// Hostile deliveries end to end: each is answered with a named error and recorded, and none stops processQueue.
import { beforeEach, describe, expect, it } from 'vitest';
import { runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const reasons = (rt: Runtime) => {
  const rejected = rt.sheet('Rejected');
  return rejected.rows.map((row) => String(row[rejected.header.indexOf('reason')]));
};

describe('hostile deliveries in the runtime', () => {
  let rt: Runtime;
  beforeEach(async () => {
    rt = await freshRuntime();
  });

  it('rejects a 60,000-character response_token during an outage instead of spilling it, and processQueue stays healthy', async () => {
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    const body = submission(1, (b) => void (b.form_response.token = 't'.repeat(60000)));
    expect(await rt.deliver(body)).toMatchObject({ ok: false, error: 'field_too_large' });
    expect(Object.keys(rt.host.properties.getAll()).some((key) => key.startsWith('FQ_SPILL_'))).toBe(false);
    rt.host.faults.clear();
    expect(await rt.deliver(body)).toMatchObject({ ok: false, error: 'field_too_large' });
    expect(reasons(rt)).toEqual([expect.stringMatching(/response_token is 60,000 characters \(limit 256\)/)]);
    await rt.deliver(submission(2));
    expect((await rt.run('processQueue')).status).toBe('ok');
    expect(rt.host.properties.get('FQ_INCIDENT_CODE_BUG')).toBeNull();
    expect(rt.queue().map((row) => row.status)).toEqual(['SENT']);
  });

  it('a Tally made before the kind column still counts every rejection, without kinds, until Set up / repair adds the column', async () => {
    // What a deployment set up by an earlier release has: Set up trimmed the grid to day, bytes, id.
    rt.host.ss.byName('Tally').spliceColumns(3, 1);
    expect(rt.sheet('Tally').header).toEqual(['day', 'bytes', 'id']);
    expect(await rt.deliver('{"junk":1}', null)).toEqual({ ok: false, error: 'unauthorized' });
    expect(rt.sheet('Tally').rows).toEqual([[expect.any(String), expect.any(Number), expect.any(String)]]);
    expect(reasons(rt)).toEqual(['unauthorized: missing token in the webhook URL']);
    await rt.deliver(submission(1)); // wakes processQueue, as any delivery does
    expect((await rt.run('processQueue')).status).toBe('ok');
    expect(JSON.parse(rt.host.properties.get('FQ_REJECTED_DAY'))).toMatchObject({ count: 1, dropped: 0, kinds: {} });
    const setup = await rt.host.run('setup', [], { kind: 'editor' });
    expect(String(setup.value)).toContain('Tally: added missing columns kind at the right.');
    expect(rt.sheet('Tally').header).toEqual(['day', 'bytes', 'id', 'kind']);
    await rt.deliver('{"junk":2}', null);
    expect(rt.sheet('Tally').rows.map((row) => row[3])).toEqual(['unauthorized']);
  });

  it('drains a spilled entry no cell can hold into Rejected and queues the one spilled after it', async () => {
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    await rt.deliver(submission(3));
    rt.host.faults.clear();
    // A recipient of 60,000 characters is only known with the Config: kept until the drain, then set aside there.
    await rt.host.edit({ sheet: 'Config', a1: 'G2', value: 'name', user: 'owner@example.com' });
    const header = rt.sheet('Config').header.map(String);
    expect(header[6]).toBe('recipient_field');
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    await rt.deliver(submission(4, (b) => {
      b.form_response.answers[0].text = 'n'.repeat(60000);
      b.form_response.answers[0].field.ref = 'name';
    }));
    await rt.deliver(submission(5));
    rt.host.faults.clear();
    expect((await rt.run('processQueue')).status).toBe('ok');
    expect(rt.host.properties.get('FQ_INCIDENT_CODE_BUG')).toBeNull();
    expect(rt.queue().map((row) => row.event_id)).toEqual([JSON.parse(submission(3)).event_id, JSON.parse(submission(5)).event_id]);
    expect(reasons(rt)).toEqual([expect.stringMatching(/recipient is 60,000 characters \(limit 320\)/)]);
  });

  it('queues an event_id of 246 characters (the cache refuses keys over 250) and dedupes its redelivery', async () => {
    const body = submission(6, (b) => void (b.event_id = 'E'.repeat(246)));
    expect(await rt.deliver(body)).toMatchObject({ ok: true, queued: true });
    expect(await rt.deliver(body)).toMatchObject({ ok: true, duplicate: true });
    expect(rt.queue()).toHaveLength(1);
  });

  it('answers a 200,000-deep JSON body with body_too_large and records it, never internal_error', async () => {
    const deep = '['.repeat(200000) + ']'.repeat(200000);
    expect(await rt.deliver(deep)).toEqual({ ok: false, error: 'body_too_large' });
    const shallowButDeep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    expect(await rt.deliver(shallowButDeep)).toEqual({ ok: false, error: 'too_deeply_nested' });
    expect(reasons(rt)).toEqual([expect.stringMatching(/^body_too_large: the body is 400,000 characters/), expect.stringMatching(/^too_deeply_nested/)]);
  });

  it('records a 60,000-character event_type with its reason cut to fit the cell', async () => {
    expect(await rt.deliver(submission(7, (b) => void (b.event_type = 'z'.repeat(60000))))).toEqual({ ok: false, error: 'unsupported_event_type' });
    const [reason] = reasons(rt);
    expect(reason).toMatch(/^unsupported_event_type: event_type "zzz/);
    expect(reason.length).toBeLessThanOrEqual(2000);
  });

  it('reads a payload whose parts a retried append doubled (Sheets failed before the Queue row), and answers from it once', async () => {
    const essay = 'Ünïcödé essay 😀 '.repeat(4000).slice(0, 60000) + ' THE-VERY-END';
    // The prompt quotes the essay by its field ref: only the payload has it whole (the submission cell is cut).
    await rt.host.edit({ sheet: 'Config', a1: 'C2', value: 'Reply to this essay: {{essay}}', user: 'owner@example.com' });
    const body = submission(8, (b) => void (b.form_response.answers[4].text = essay));
    const eventId = JSON.parse(body).event_id;
    // As a Sheets error between the Payloads parts and the Queue row leaves it: the parts, no row.
    expect(await rt.deliver(body)).toMatchObject({ queued: true });
    const parts = rt.sheet('Payloads').rows.filter((row) => row[0] === eventId);
    expect(parts.length).toBeGreaterThan(1);
    rt.host.loadSheet('Queue', rt.sheet('Queue').header, []);
    rt.host.loadSheet('Payloads', rt.sheet('Payloads').header, parts);
    rt.host.caches.clear(); // the seen mark would answer the retry before the sheet is looked at
    expect(await rt.deliver(body)).toMatchObject({ queued: true });
    expect(rt.sheet('Payloads').rows.filter((row) => row[0] === eventId).length).toBe(parts.length * 2);
    expect((await rt.run('processQueue')).status).toBe('ok');
    expect(rt.queue().map((row) => row.status)).toEqual(['SENT']);
    const prompt = JSON.stringify(rt.gemini.requests.at(-1));
    expect(prompt).toContain('THE-VERY-END');
  });

  it('keeps a rejected body too long for a cell whole in Payloads, and Accept rejected delivery queues all of it', async () => {
    const essay = 'Ünïcödé essay 😀 '.repeat(6000).slice(0, 100000) + ' THE-VERY-END';
    const body = submission(9, (b) => {
      b.form_response.answers[4].text = essay;
      b.form_response.form_id = 'NotEnabled';
    });
    await rt.host.edit({ sheet: 'Config', a1: 'A2', value: 'Wr1tE5sy', user: 'owner@example.com' });
    expect(await rt.deliver(body)).toMatchObject({ ok: false, error: 'unknown_form' });
    const rejected = rt.sheet('Rejected');
    expect(String(rejected.rows[0][rejected.header.indexOf('body')])).toMatch(/^\(in Payloads under rejected-\d+-[0-9a-f]{8}: 3 parts\)$/);
    await rt.host.edit({ sheet: 'Config', a1: 'A2', value: '*', user: 'owner@example.com' });
    const accept = await rt.host.run('menuAcceptRejected', [], { kind: 'menu', user: 'colleague@example.com', activeRange: { sheet: 'Rejected', a1: 'B2' } });
    expect(accept.status).toBe('ok');
    expect(rt.host.ui.dialogs.at(-1).prompt).toMatch(/was added to Queue as PENDING/);
    const row = rt.queue()[0];
    const parts = rt.sheet('Payloads').rows.filter((r) => r[0] === row.event_id).sort((a, b) => Number(a[1]) - Number(b[1]));
    expect(parts.map((r) => r[3]).join('')).toBe(JSON.stringify(JSON.parse(body)));
  });
});
