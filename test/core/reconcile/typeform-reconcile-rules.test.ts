// The Typeform check's rules case by case: what each failing answer says, how 429s and the deadline are handled, what one form
// costs in requests, which responses are queued once, and the lines the menu shows.
import { describe, expect, it } from 'vitest';
import { reconcileTypeform, reportLines, type FormCheck, type ReconcileReport, type StoreAnswer, type TypeformAnswer } from '../../../src/core/reconcile/typeform-reconcile';
import { MAX_RATE_LIMIT_RETRIES } from '../../../src/core/reconcile/typeform-window';
import { memoryTypeform, NOW } from './memory-typeform';

const ok = (body: unknown): TypeformAnswer => ({ status: 200, text: typeof body === 'string' ? body : JSON.stringify(body), retryAfterSeconds: null });
const failing = (status: number, text = '{}'): TypeformAnswer => ({ status, text, retryAfterSeconds: null });

describe('a form Typeform will not show', () => {
  it.each([
    [401, 'Typeform refused TYPEFORM_TOKEN (401): create a personal access token with responses:read, forms:read and webhooks:read'],
    [403, 'Typeform refused TYPEFORM_TOKEN (403): create a personal access token with responses:read, forms:read and webhooks:read'],
    [404, 'Typeform does not know this form for this token (404): check the form id in Config and the account of TYPEFORM_TOKEN (EU accounts: TYPEFORM_BASE_URL)'],
    [500, 'Typeform answered 500: {"code":"AUTHENTICATION_FAILED"}'],
  ])('answering %i is not checked, with the reason and what to do', (status, error) => {
    const report = reconcileTypeform(memoryTypeform([], { status }).deps().deps);
    expect(report.forms[0]).toMatchObject({ error, seen: 0, recovered: [] });
    expect(reportLines(report)[1]).toBe(`F1: not checked — ${error}.`);
  });

  it('a long error body is cut to its first 200 characters', () => {
    const body = 'x'.repeat(250);
    const tf = memoryTypeform([], { answer: (path) => (path.endsWith('/responses') ? failing(502, body) : undefined) });
    expect(reconcileTypeform(tf.deps().deps).forms[0].error).toBe(`Typeform answered 502: ${'x'.repeat(200)}`);
  });

  it('a 200 that is not a page of responses is not taken for an empty window', () => {
    const tf = memoryTypeform([], { answer: (path) => (path.endsWith('/responses') ? ok('<html>maintenance</html>') : undefined) });
    expect(reconcileTypeform(tf.deps().deps).forms[0].error).toBe('Typeform answered a page that is not a list of responses');
  });

  it('a failing status is a failure whatever its body says: a proxy\'s error page with items is not a page of responses', () => {
    const tf = memoryTypeform([], { answer: (path) => (path.endsWith('/responses') ? failing(503, JSON.stringify({ items: [{ token: 'm1' }] })) : undefined) });
    const { deps, stored } = tf.deps();
    expect(reconcileTypeform(deps).forms[0]).toMatchObject({ error: expect.stringMatching(/^Typeform answered 503: /), recovered: [] });
    expect(stored).toEqual([]);
  });

  it('one form that cannot be checked does not stop the others', () => {
    const tf = memoryTypeform([{ token: 'm1' }], { answer: (path) => (path.startsWith('/forms/F1/') ? failing(404) : undefined) });
    const report = reconcileTypeform(tf.deps({ formIds: ['F1', 'F2'] }).deps);
    expect(report.forms.map((form) => [form.formId, form.error === '', form.recovered])).toEqual([['F1', false, []], ['F2', true, ['m1']]]);
  });
});

describe('the webhooks of a form', () => {
  it.each([
    ['read', ok({ items: [{ url: 'u', enabled: false }] }), 'disabled'],
    ['refused (403), whatever its body lists', failing(403, JSON.stringify({ items: [] })), 'unknown'],
    ['rate limited every time', { status: 429, text: JSON.stringify({ items: [] }), retryAfterSeconds: 1 }, 'unknown'],
  ] as const)('%s: the webhook is %s, and the responses are still checked', (_name, answer, webhook) => {
    const tf = memoryTypeform([{ token: 'm1' }], { answer: (path) => (path.endsWith('/webhooks') ? answer : undefined) });
    expect(reconcileTypeform(tf.deps().deps).forms[0]).toMatchObject({ webhook, recovered: ['m1'], error: '' });
  });
});

describe('requests, pacing and 429s', () => {
  it('asks for the webhooks, the responses, then the definition once, under the form id as a path segment', () => {
    const tf = memoryTypeform([{ token: 'm1' }, { token: 'm2' }]);
    reconcileTypeform(tf.deps({ formIds: ['a/b c'] }).deps);
    expect(tf.requests.map((r) => r.path)).toEqual(['/forms/a%2Fb%20c/webhooks', '/forms/a%2Fb%20c/responses', '/forms/a%2Fb%20c']);
  });

  it('a window with nothing to recover never asks for the definition', () => {
    const tf = memoryTypeform([{ token: 'known1' }, { token: 'rejected1' }]);
    reconcileTypeform(tf.deps().deps);
    expect(tf.requests.map((r) => r.path)).toEqual(['/forms/F1/webhooks', '/forms/F1/responses']);
  });

  it('the first request goes at once, each later one waits out the rest of 500 ms since the one before', () => {
    const tf = memoryTypeform([{ token: 'm1' }]);
    reconcileTypeform(tf.deps().deps);
    expect(tf.requests.map((r) => r.at - NOW)).toEqual([0, 500, 1000]);
  });

  it.each([
    [MAX_RATE_LIMIT_RETRIES, { recovered: ['m1'], error: '' }],
    [MAX_RATE_LIMIT_RETRIES + 1, { recovered: [], error: `Typeform kept answering 429 (rate limited) after ${MAX_RATE_LIMIT_RETRIES} waits` }],
  ])('a page answered 429 %i times in a row', (times, outcome) => {
    let left = times;
    const tf = memoryTypeform([{ token: 'm1' }], {
      answer: (path) => (path.endsWith('/responses') && left-- > 0 ? { status: 429, text: '{}', retryAfterSeconds: 3 } : undefined),
    });
    const report = reconcileTypeform(tf.deps().deps);
    expect(report.forms[0]).toMatchObject(outcome);
    expect(tf.requests.filter((r) => r.path.endsWith('/responses'))).toHaveLength(MAX_RATE_LIMIT_RETRIES + 1);
    expect(tf.sleeps.filter((ms) => ms === 3000)).toHaveLength(MAX_RATE_LIMIT_RETRIES);
  });

  it('the deadline reached between forms: the forms done are kept, the rest not started, the run incomplete', () => {
    const tf = memoryTypeform([{ token: 'm1' }]);
    const report = reconcileTypeform(tf.deps({ formIds: ['F1', 'F2', 'F3'], deadline: NOW + 1200 }).deps);
    expect(report.forms.map((form) => form.formId)).toEqual(['F1']);
    expect(report.complete).toBe(false);
    expect(tf.requests.some((r) => r.path.startsWith('/forms/F3'))).toBe(false);
  });

  it('an error of intake\'s store is not taken for the deadline: it reaches the caller', () => {
    const tf = memoryTypeform([{ token: 'm1' }]);
    const deps = tf.deps({ store: () => { throw new Error('Service Spreadsheets timed out'); } }).deps;
    expect(() => reconcileTypeform(deps)).toThrow('Service Spreadsheets timed out');
  });
});

describe('which responses are queued', () => {
  it('a response shown on two pages (submitted while paging) is seen and queued once', () => {
    const responses = Array.from({ length: 1500 }, (_, i) => ({ token: i === 1000 ? 't999' : `t${i}` }));
    const tf = memoryTypeform(responses);
    const { deps, stored } = tf.deps();
    const report = reconcileTypeform(deps);
    expect(report.forms[0].seen).toBe(1499);
    expect(stored.filter((body) => JSON.parse(body).event_id === 'reconciled:t999')).toHaveLength(1);
  });

  it('the Rejected sheet is asked only about tokens found nowhere else', () => {
    const asked: string[] = [];
    const tf = memoryTypeform([{ token: 'known1' }, { token: 'm1' }]);
    reconcileTypeform(tf.deps({ places: { knownTokens: () => new Set(['known1']), inRejected: (token) => (asked.push(token), false) } }).deps);
    expect(asked).toEqual(['m1']);
  });

  it('a recovered body carries the form\'s title and fields; an unreadable definition gives none', () => {
    const definition = { title: 'Essay feedback', fields: [{ id: 'e1', type: 'email', title: 'Your email' }] };
    const read = memoryTypeform([{ token: 'm1' }], { answer: (path) => (path === '/forms/F1' ? ok(definition) : undefined) });
    const first = read.deps();
    reconcileTypeform(first.deps);
    expect(JSON.parse(first.stored[0]).form_response.definition).toEqual({ id: 'F1', ...definition });
    const refused = memoryTypeform([{ token: 'm1' }], { answer: (path) => (path === '/forms/F1' ? failing(500, JSON.stringify(definition)) : undefined) });
    const second = refused.deps();
    reconcileTypeform(second.deps);
    expect(JSON.parse(second.stored[0]).form_response.definition).toEqual({ id: 'F1', title: '', fields: [] });
  });

  it('a store that queues nothing and says no error is named "not queued"', () => {
    const tf = memoryTypeform([{ token: 'm1' }]);
    const report = reconcileTypeform(tf.deps({ store: (): StoreAnswer => ({ ok: false }) }).deps);
    expect(report.forms[0].failed).toEqual(['m1 (not queued)']);
  });
});

describe('the lines the menu shows and the run logs', () => {
  const form = (formId: string, patch: Partial<FormCheck> = {}): FormCheck => ({
    formId, seen: 3, alreadyHere: 3, inRejected: 0, recovered: [], failed: [], webhook: 'enabled', error: '', ...patch,
  });
  const lines = (forms: FormCheck[], complete = true) =>
    reportLines({ at: NOW, window: { since: '2026-11-29T06:00:00', until: '2026-11-30T18:00:00' }, forms, complete } satisfies ReconcileReport);
  const HEAD = 'Typeform check of responses submitted 2026-11-29T06:00:00 to 2026-11-30T18:00:00 UTC:';

  it('no form named: says so', () => {
    expect(lines([])).toEqual([HEAD, 'No form is named in Config (the * row names none): nothing to check.']);
  });

  it('each form in one line; Rejected and not-queued parts only when there are some; a disabled or missing webhook on its own line', () => {
    expect(lines([
      form('F1'),
      form('F2', { seen: 4, alreadyHere: 0, inRejected: 1, recovered: ['m1'], failed: ['m2 (unknown_form)', 'm3 (not queued)'], webhook: 'disabled' }),
      form('F3', { webhook: 'none' }),
      form('F4', { error: 'Typeform answered 500: x', webhook: 'none' }),
      form('F5', { webhook: 'unknown' }),
    ])).toEqual([
      HEAD,
      'F1: 3 in Typeform, 3 already here, 0 recovered, waiting for approval in Queue.',
      'F2: 4 in Typeform, 0 already here, 1 in Rejected (accept them there), 1 recovered, waiting for approval in Queue, 2 not queued: m2 (unknown_form), m3 (not queued).',
      'F2: its Typeform webhook is disabled — new submissions do not reach formqueue.',
      'F3: 3 in Typeform, 3 already here, 0 recovered, waiting for approval in Queue.',
      'F3: its Typeform webhook is missing — new submissions do not reach formqueue.',
      'F4: not checked — Typeform answered 500: x.',
      'F5: 3 in Typeform, 3 already here, 0 recovered, waiting for approval in Queue.',
    ]);
  });

  it('a run cut short ends by saying how to finish it', () => {
    expect(lines([form('F1')], false)).toEqual([
      HEAD,
      'F1: 3 in Typeform, 3 already here, 0 recovered, waiting for approval in Queue.',
      'The run stopped before the time limit; run "Check Typeform for missed submissions" again to finish.',
    ]);
  });
});
