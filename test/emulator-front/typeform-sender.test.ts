// Contract tests of the runtime's Typeform webhook sender against Typeform's published delivery policy.
// Source: https://www.typeform.com/developers/webhooks/ ("Timeout", "Delivery retries"); the "any other code" gaps from
// the copy of that policy at https://help.moaform.com/hc/en-us/articles/28337527199129-Error-Management; the delivery
// log's 50 attempts from https://hookdeck.com/webhooks/platforms/guide-to-typeform-webhooks-features-and-best-practices.
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { load } from './support';

interface Store {
  webhooksOf(formId: string): { tag: string; url: string; enabled: boolean }[];
  setWebhook(input: { form_id: string; enabled: boolean; url?: string }): unknown;
}
interface LogEntry { at: string; status: number; outcome: string; event_id: string }
interface Sender {
  totals: { attempts: number; delivered: number; failed: number; gaveUp: number; disabled: number; dropped: number };
  pending: number;
  submit(body: string): unknown;
  runDue(): Promise<unknown>;
  deliveryLog(formId: string): LogEntry[];
}
type Post = (url: string, body: string, timeoutMs: number) => Promise<{ status: number; location: string }>;
interface SenderModule {
  TIMEOUT_MS: number;
  createTypeformSender(o: { store: Store; now: () => number; redirect?: () => string; timeoutMs?: number; post?: Post; follow?: (l: string, t: number) => Promise<number> }): Sender;
}

const { createTypeformStore } = await load<{ createTypeformStore(o: { now: () => number }): Store }>('emulator/offline-typeform.mjs');
const { createTypeformSender, TIMEOUT_MS } = await load<SenderModule>('emulator/typeform-sender.mjs');

const FORM = 'Frm1';
const MIN = 60_000;
const HOUR = 60 * MIN;

function body(n: number): string {
  return JSON.stringify({ event_id: `ev${n}`, event_type: 'form_response', form_response: { form_id: FORM, token: `tok${n}`, submitted_at: '2026-12-01T00:00:00Z', answers: [] } });
}

/** A sender whose endpoint answers `answer(attempt)`; time moves only when the test moves it. */
function world(answer: (n: number) => { status: number; location?: string }, redirect = 'follow') {
  let t = Date.parse('2026-12-01T00:00:00Z');
  const store = createTypeformStore({ now: () => t });
  store.setWebhook({ form_id: FORM, enabled: true, url: 'http://hook.test/exec' });
  let calls = 0;
  const followed: string[] = [];
  const sender = createTypeformSender({
    store, now: () => t, redirect: () => redirect,
    post: async () => { calls += 1; const a = answer(calls); return { status: a.status, location: a.location ?? '' }; },
    follow: async (location) => { followed.push(location); return 200; },
  });
  return {
    store, sender, followed,
    get calls() { return calls; },
    at: () => t,
    async advance(ms: number) { t += ms; await sender.runDue(); },
    async submit(n: number) { sender.submit(body(n)); await sender.runDue(); },
  };
}

const gapsOf = (log: LogEntry[]) => log.slice(1).map((entry, i) => Date.parse(entry.at) - Date.parse(log[i].at));

describe('Typeform webhook sender (typeform.com/developers/webhooks)', () => {
  it('waits 30 seconds for an answer, as the page\'s "Timeout" section says', () => {
    expect(TIMEOUT_MS).toBe(30_000);
  });

  it('a 2xx is delivered once and logged with its status', async () => {
    const w = world(() => ({ status: 200 }));
    await w.submit(1);
    await w.advance(11 * HOUR);
    expect(w.calls).toBe(1);
    expect(w.sender.deliveryLog(FORM)).toMatchObject([{ status: 200, outcome: 'delivered', event_id: 'ev1' }]);
  });

  it.each([404, 410])('%i: no retry, and the webhook is disabled at once', async (status) => {
    const w = world(() => ({ status }));
    await w.submit(1);
    await w.advance(24 * HOUR);
    expect(w.calls).toBe(1);
    expect(w.store.webhooksOf(FORM)[0].enabled).toBe(false);
    // a disabled webhook sends nothing more: the next submission is stored, not delivered
    await w.submit(2);
    expect(w.calls).toBe(1);
  });

  it.each([408, 423, 429, 503])('%i: retried every 2–3 minutes for 10 hours, then given up', async (status) => {
    const w = world(() => ({ status }));
    await w.submit(1);
    await w.advance(11 * HOUR);
    const log = w.sender.deliveryLog(FORM);
    const all = w.calls;
    expect(all).toBeGreaterThan(10 * 60 / 3);
    expect(all).toBeLessThanOrEqual(10 * 60 / 2 + 1);
    // the log keeps the last 50 attempts only
    expect(log).toHaveLength(50);
    for (const gap of gapsOf(log)) expect(gap === 2 * MIN || gap === 3 * MIN).toBe(true);
    expect(log.at(-1)!.outcome).toBe('failed: no more retries');
    expect(Date.parse(log.at(-1)!.at) - w.at() + 11 * HOUR).toBeLessThanOrEqual(10 * HOUR);
    expect(w.store.webhooksOf(FORM)[0].enabled).toBe(true); // 240 attempts: under the 24-hour threshold
  });

  it('any other code: a few retries with growing gaps (5, 10, 20, 60, 120 minutes), then given up', async () => {
    const w = world(() => ({ status: 500 }));
    await w.submit(1);
    await w.advance(5 * HOUR);
    const log = w.sender.deliveryLog(FORM);
    expect(log.map((entry) => entry.status)).toEqual([500, 500, 500, 500, 500, 500]);
    expect(gapsOf(log)).toEqual([5, 10, 20, 60, 120].map((m) => m * MIN));
    expect(log.at(-1)!.outcome).toBe('failed: no more retries');
  });

  it('no answer (timeout, refused connection) counts as a failure of the "other" class', async () => {
    const w = world(() => ({ status: 0 }));
    await w.submit(1);
    await w.advance(5 * HOUR);
    expect(w.calls).toBe(6);
  });

  it('a real endpoint slower than the timeout is logged with no status (0) and retried', async () => {
    const slow = createServer((_req, res) => { setTimeout(() => res.end('late'), 300); });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', () => resolve()));
    const port = (slow.address() as { port: number }).port;
    try {
      let t = Date.parse('2026-12-01T00:00:00Z');
      const store = createTypeformStore({ now: () => t });
      store.setWebhook({ form_id: FORM, enabled: true, url: `http://127.0.0.1:${port}/exec` });
      const sender = createTypeformSender({ store, now: () => t, timeoutMs: 50 });
      sender.submit(body(1));
      await sender.runDue();
      expect(sender.deliveryLog(FORM)[0]).toMatchObject({ status: 0 });
      t += 5 * MIN;
      await sender.runDue();
      expect(sender.deliveryLog(FORM)).toHaveLength(2);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it('typeformRedirect=follow: the 302 is followed with a GET and its 200 counts as delivered', async () => {
    const w = world(() => ({ status: 302, location: 'http://hook.test/echo?k=1' }), 'follow');
    await w.submit(1);
    await w.advance(5 * HOUR);
    expect(w.calls).toBe(1);
    expect(w.followed).toEqual(['http://hook.test/echo?k=1']);
    expect(w.sender.deliveryLog(FORM)).toMatchObject([{ status: 200, outcome: 'delivered' }]);
  });

  it('typeformRedirect=fail: the 302 is a failure: redelivered on the "other" schedule, and the same event_id each time', async () => {
    const w = world(() => ({ status: 302, location: 'http://hook.test/echo?k=1' }), 'fail');
    await w.submit(1);
    await w.advance(5 * HOUR);
    expect(w.calls).toBe(6);
    expect(w.followed).toEqual([]);
    expect(new Set(w.sender.deliveryLog(FORM).map((entry) => entry.event_id))).toEqual(new Set(['ev1']));
  });

  it('every attempt failing within 5 minutes, 100 of them: the webhook is disabled at the 100th', async () => {
    const w = world(() => ({ status: 500 }));
    for (let n = 0; n < 120; n += 1) w.sender.submit(body(n));
    await w.sender.runDue();
    expect(w.calls).toBe(100);
    expect(w.store.webhooksOf(FORM)[0].enabled).toBe(false);
    expect(w.sender.deliveryLog(FORM).at(-1)!.outcome).toBe('failed: webhook disabled (every attempt failing)');
    await w.advance(HOUR);
    expect(w.calls).toBe(100); // the queued retries of a disabled webhook are dropped
  });

  it('every attempt failing over 24 hours, more than 300 of them: the webhook is disabled', async () => {
    const w = world(() => ({ status: 302 }), 'fail');
    let n = 0;
    while (w.store.webhooksOf(FORM)[0].enabled && n < 200) {
      await w.submit(n);
      n += 1;
      await w.advance(15 * MIN);
    }
    expect(w.store.webhooksOf(FORM)[0].enabled).toBe(false);
    expect(w.calls).toBe(301);
    // 4 submissions an hour, 6 attempts each: under a day
    expect(n * 15 * MIN).toBeLessThan(24 * HOUR);
  });

  it('one success in the window keeps the webhook on, however many failures', async () => {
    const w = world((call) => ({ status: call === 1 ? 200 : 500 }));
    for (let n = 0; n < 80; n += 1) {
      await w.submit(n);
      await w.advance(15 * MIN);
    }
    expect(w.calls).toBeGreaterThan(300);
    expect(w.store.webhooksOf(FORM)[0].enabled).toBe(true);
  });
});
