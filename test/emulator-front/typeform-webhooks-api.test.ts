// Contract tests of the offline Typeform's Webhooks API: list, read and create-or-update by tag, scopes, rate limit.
// Sources: https://www.typeform.com/developers/webhooks/reference/retrieve-webhooks/,
// https://www.typeform.com/developers/webhooks/reference/create-or-update-webhook/ (PUT /forms/{form_id}/webhooks/{tag}
// with url, enabled, secret, verify_ssl), https://www.typeform.com/developers/get-started/scopes/ (webhooks:read,
// webhooks:write), https://www.typeform.com/developers/get-started/#rate-limits ("2 requests per second per account").
import { describe, expect, it } from 'vitest';
import { load } from './support';

interface Answer { status: number; body: any; headers?: Record<string, string> }
interface Store {
  recordDelivery(body: string): unknown;
  addToken(input: { token: string; scopes: string[] }): unknown;
  setDefaultWebhookUrl(url: () => string): void;
  handle(method: string, url: URL, rest: string, authorization: string | undefined, body?: string): Answer;
}
const { createTypeformStore, LOCAL_TYPEFORM_TOKEN } = await load<{ createTypeformStore(o: { now: () => number }): Store; LOCAL_TYPEFORM_TOKEN: string }>('emulator/offline-typeform.mjs');

const FORM = 'Frm1';
const BEARER = `Bearer ${LOCAL_TYPEFORM_TOKEN}`;

function api() {
  let t = Date.parse('2026-12-01T00:00:00Z');
  const store = createTypeformStore({ now: () => t });
  store.setDefaultWebhookUrl(() => 'https://script.google.com/macros/s/X/exec?token=abc');
  store.recordDelivery(JSON.stringify({ event_id: 'e1', event_type: 'form_response', form_response: { form_id: FORM, token: 't1', answers: [] } }));
  const call = (method: string, rest: string, auth = BEARER, body = '') => {
    t += 1000; // one request a second: under the rate limit
    return store.handle(method, new URL(`http://x/typeform${rest}`), rest, auth, body);
  };
  return { store, call, burst: (rest: string) => store.handle('GET', new URL(`http://x/typeform${rest}`), rest, BEARER) };
}

describe('offline Typeform Webhooks API', () => {
  it('GET /forms/{id}/webhooks lists the form\'s webhook with enabled, url and tag', () => {
    const { call } = api();
    const answer = call('GET', `/forms/${FORM}/webhooks`);
    expect(answer.status).toBe(200);
    expect(answer.body.items).toMatchObject([{ form_id: FORM, tag: 'formqueue', enabled: true, url: 'https://script.google.com/macros/s/X/exec?token=abc' }]);
  });

  it('PUT /forms/{id}/webhooks/{tag} updates the webhook of that tag (enabled, url) and answers it; GET by tag reads it', () => {
    const { call } = api();
    const put = call('PUT', `/forms/${FORM}/webhooks/formqueue`, BEARER, JSON.stringify({ url: 'https://example.test/exec', enabled: false }));
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ tag: 'formqueue', url: 'https://example.test/exec', enabled: false });
    expect(call('GET', `/forms/${FORM}/webhooks/formqueue`).body).toMatchObject({ enabled: false, url: 'https://example.test/exec' });
    const again = call('PUT', `/forms/${FORM}/webhooks/formqueue`, BEARER, JSON.stringify({ url: 'https://example.test/exec', enabled: true }));
    expect(again.body.enabled).toBe(true);
    expect(call('GET', `/forms/${FORM}/webhooks`).body.items).toHaveLength(1);
  });

  it('PUT with a new tag creates a second webhook; without "url" it is a validation error', () => {
    const { call } = api();
    expect(call('PUT', `/forms/${FORM}/webhooks/other`, BEARER, JSON.stringify({ url: 'https://other.test/hook', enabled: true })).status).toBe(200);
    expect(call('GET', `/forms/${FORM}/webhooks`).body.items.map((h: any) => h.tag)).toEqual(['formqueue', 'other']);
    expect(call('PUT', `/forms/${FORM}/webhooks/formqueue`, BEARER, JSON.stringify({ enabled: true })).status).toBe(400);
    expect(call('GET', `/forms/${FORM}/webhooks/nope`).status).toBe(404);
  });

  it('reading needs webhooks:read and updating webhooks:write: a token without them is refused (403), an unknown one 401', () => {
    const { store, call } = api();
    store.addToken({ token: 'tfp_read_only', scopes: ['responses:read', 'forms:read', 'webhooks:read'] });
    store.addToken({ token: 'tfp_no_hooks', scopes: ['responses:read', 'forms:read'] });
    expect(call('GET', `/forms/${FORM}/webhooks`, 'Bearer tfp_read_only').status).toBe(200);
    const put = call('PUT', `/forms/${FORM}/webhooks/formqueue`, 'Bearer tfp_read_only', JSON.stringify({ url: 'https://example.test/exec', enabled: true }));
    expect(put.status).toBe(403);
    expect(put.body.description).toContain('webhooks:write');
    expect(call('GET', `/forms/${FORM}/webhooks`, 'Bearer tfp_no_hooks').status).toBe(403);
    expect(call('GET', `/forms/${FORM}/responses`, 'Bearer tfp_no_hooks').status).toBe(200);
    expect(call('GET', `/forms/${FORM}/webhooks`, 'Bearer nope').status).toBe(401);
  });

  it('more than 2 requests in a second, reads or updates alike, get 429 with Retry-After', () => {
    const { burst } = api();
    const statuses = [0, 1, 2].map(() => burst(`/forms/${FORM}/webhooks`).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(burst(`/forms/${FORM}/webhooks`).headers).toEqual({ 'Retry-After': '1' });
  });
});
