// A runtime reset between tests leaves nothing of the test before: its whole state equals a freshly started runtime's.
//
// The comparison walks every own field of the host (so a piece of state added to GasHost later is compared too, and a
// reset that forgets it fails here), the HTTP front's offline Typeform and webhook sender, and the offline Gemini's
// request log. Only what a second start differs in by nature is written alike: times (dates, epoch milliseconds,
// durations), the ports picked at start and the random ids of the triggers and protections Set up makes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRuntime, submission, TOKEN, type Runtime } from '../e2e/runtime';

/** Not state of the runtime: the process's shared thread pool, the constant service-handler table, the listeners. */
const NOT_STATE = new Set(['pool', 'handlers', '_events', '_eventsCount', '_maxListeners']);
const EPOCH_MS = /\b1[6-9]\d{11}\b/g;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
const LOCAL_PORT = /127\.0\.0\.1:\d+/g;
/** Fields that hold a measured time (an execution's duration, the bridge's round trips): any number there is one. */
const TIMED_FIELD = /^(durationMs|rtts)$/;

/** A plain, comparable picture of any value: Maps, Sets, class instances and shared memory included, cycles cut. */
function picture(value: unknown, host: unknown, seen: Set<unknown>, timed = false): unknown {
  if (typeof value === 'number') return !timed && Number.isInteger(value) && Math.abs(value) < 1e12 ? value : 'time-or-fraction';
  if (typeof value === 'string') return value.replace(ISO_TIME, 'ISO-TIME').replace(EPOCH_MS, 'EPOCH-MS').replace(LOCAL_PORT, '127.0.0.1:PORT');
  if (typeof value === 'function' || value === null || typeof value !== 'object') return value;
  if (value === host) return '<the host>';
  if (value instanceof Date) return 'DATE';
  if (value instanceof Promise) return '<promise>';
  if (seen.has(value)) return '<seen>';
  seen.add(value);
  const of = (v: unknown) => picture(v, host, seen, timed);
  const field = (v: unknown, key: string) => picture(v, host, seen, timed || TIMED_FIELD.test(key));
  if (value instanceof Map) return { Map: [...value].map(([k, v]) => [of(k), of(v)]) };
  if (value instanceof Set) return { Set: [...value].map(of) };
  if (ArrayBuffer.isView(value)) return { [value.constructor.name]: Array.from(value as unknown as ArrayLike<number>, of) };
  if (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer) return { bytes: Array.from(new Uint8Array(value)) };
  if (Array.isArray(value)) return value.map(of);
  const fields = Object.keys(value).filter((key) => typeof (value as any)[key] !== 'function').map((key) => [key, field((value as any)[key], key)]);
  return { class: value.constructor?.name ?? null, ...Object.fromEntries(fields) };
}

/** Everything a test could see of the runtime, as JSON, with trigger ids numbered in order. */
function stateOf(rt: Runtime): string {
  const host = rt.host;
  const hostState = Object.fromEntries(Object.keys(host).filter((key) => !NOT_STATE.has(key)).map((key) => [key, host[key]]));
  const front = { typeform: rt.typeform, geminiRequests: rt.gemini.requests };
  let json = JSON.stringify(picture({ hostState, front }, host, new Set()), null, 1);
  host.triggers.forEach((trigger: { id: string }, i: number) => { json = json.split(trigger.id).join(`trigger-${i}`); });
  return json.replace(/"pid": "p[a-z0-9]+"/g, '"pid": "PROTECTION-ID"'); // random, as Google's protection ids
}

describe('a runtime reset', () => {
  let used: Runtime;
  let fresh: Runtime;
  beforeAll(async () => {
    // Started with other Script Properties, host options and worlds than the fresh one: the reset names its own.
    used = await startRuntime({ props: { PAUSED: 'true', RECONCILE_SENT_MAIL: 'true' }, host: { mailDailyQuota: 3, traceCalls: true }, worlds: { paste: 'value-only' } });
    fresh = await startRuntime();
  });
  afterAll(async () => {
    await used?.close();
    await fresh?.close();
  });

  it('leaves nothing of a test that used every part of it: the state equals a fresh runtime\'s', async () => {
    const rt = used;
    const host = rt.host;
    // Queue, Log, Journal, the offline Typeform's responses, the request log of Gemini, the outbox, executions, quotas.
    host.properties.set('PAUSED', 'false');
    for (const n of [1, 2, 3]) expect((await rt.deliver(submission(n))).ok).toBe(true);
    host.properties.set('FQ_DIRTY', String(Date.now()));
    expect((await rt.run('processQueue')).status).toBe('ok');
    expect(host.outbox.length).toBeGreaterThan(0);
    expect(rt.gemini.requests.length).toBeGreaterThan(0);
    host.deleteSentCopy(host.outbox[0].id);
    // A run held inside Gemini (its script lock taken) while the reset comes: it must not write into the new state.
    await rt.deliver(submission(4));
    host.faults.add({ target: 'gemini', pause: true });
    host.properties.set('FQ_DIRTY', String(Date.now()));
    const held = rt.run('processQueue');
    await host.faults.waitForPausedFetches(1);
    expect(host.live.size).toBe(1);
    // Every other store: properties of each kind, caches, triggers, faults, clock, daily quotas, counters, UI, inbox.
    host.properties.set('LEFT_BEHIND', 'yes');
    host.documentProperties.set('LEFT_BEHIND', 'yes');
    host.userProperties.set('someone@example.com', new host.documentProperties.constructor({ LEFT_BEHIND: 'yes' }));
    host.caches.set('left-behind', new Map([['key', 'value']]));
    host.triggers.push({ id: 'left-behind-trigger', handler: 'processQueue', type: 'CLOCK', everyMinutes: 1 });
    host.faults.add({ target: 'sheets', status: 500, count: 3 });
    host.advanceClock(3 * 60 * 60 * 1000);
    host.useTriggerRuntime(60_000);
    host.useUrlFetches(5);
    host.setMailQuota(1);
    host.refusals += 1;
    host.quotaRefusals += 1;
    host.ui.toasts.push({ message: 'left behind' });
    host.inbox.push({ to: 'owner@example.com', subject: 'left behind' });
    // The front: a webhook set in the offline Typeform, an unfetched echo, the web app's deployment removed.
    rt.typeform.setWebhook({ form_id: 'Wr1tE5sy', tag: 'left-behind', url: `${rt.url}/exec?token=${TOKEN}`, enabled: true });
    const post = await fetch(`${rt.url}/exec?token=${TOKEN}`, { method: 'POST', body: submission(5), redirect: 'manual' });
    const echo = post.headers.get('location') ?? '';
    expect(echo).toContain('/echo?');
    await fetch(`${rt.url}/api/deployment`, { method: 'POST', body: JSON.stringify({ active: false }) });

    await rt.reset();

    expect((await held).status).toBe('crash'); // ended by the reset, before the new state was made
    expect(stateOf(rt)).toEqual(stateOf(fresh));
    expect((await fetch(echo)).status).toBe(404); // the echo of the test before is gone
    expect((await rt.deliver(submission(6))).ok).toBe(true); // the web app is deployed again
    expect(host.clockOffsetMs).toBe(0);
  });

  it('a reset with options gives what a fresh start with them gives (Script Properties, host options, worlds)', async () => {
    const options = { props: { PAUSED: 'true' }, host: { mailDailyQuota: 3 }, worlds: { paste: 'value-only' } };
    await used.reset(options);
    await fresh.reset(options);
    expect(stateOf(used)).toEqual(stateOf(fresh));
    expect(used.host.worlds.paste).toBe('value-only');
    expect(used.host.properties.get('PAUSED')).toBe('true');
    await used.reset();
    expect(used.host.worlds.paste).not.toBe('value-only');
    expect(used.host.properties.get('PAUSED')).toBeNull();
  });
});
