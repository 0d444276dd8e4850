// The Typeform check's decisions with an in-memory Typeform and in-memory sheets: window, paging, pacing, matching, webhooks.
import { describe, expect, it } from 'vitest';
import { evidenceOf } from '../../../src/core/reconcile/evidence';
import { isReconciledEventId, reconciledEventId } from '../../../src/core/domain/typeform/reconciled-id';
import { reconcileTypeform, reportLines, type StoreAnswer } from '../../../src/core/reconcile/typeform-reconcile';
import { memoryTypeform, NOW } from './memory-typeform';
import { responseAsDelivery, webhookState } from '../../../src/core/reconcile/typeform-responses';
import { MIN_REQUEST_GAP_MS, nextBefore, pageQuery, rateLimitWaitMs, responseWindow, waitBeforeRequestMs } from '../../../src/core/reconcile/typeform-window';
import { checkRecordOf, readCheckRecord, TYPEFORM_CHECK_PROPERTY } from '../../../src/core/reconcile/check-record';
import { parseTypeformBody } from '../../../src/core/domain/typeform/typeform-payload';

describe('evidence', () => {
  it.each([
    [0, 'none'],
    [1, 'one'],
    [2, 'many'],
    [7, 'many'],
  ] as const)('%i matches is %s', (count, evidence) => expect(evidenceOf(count)).toBe(evidence));
});

describe('window, paging and pacing', () => {
  it('reads from 48 h to 12 h ago, to the second, in UTC', () => {
    expect(responseWindow(NOW)).toEqual({ since: '2026-11-29T06:00:00', until: '2026-11-30T18:00:00' });
  });
  it.each([
    [null, { since: 'a', until: 'b', page_size: '1000' }],
    ['tok9', { since: 'a', until: 'b', page_size: '1000', before: 'tok9' }],
  ])('the page after %s asks for the largest page', (before, query) => {
    expect(pageQuery({ since: 'a', until: 'b' }, before)).toEqual(query);
  });
  it.each([
    [0, null],
    [999, null],
    [1000, 't999'],
  ])('a page of %i responses is followed by before=%s', (n, next) => {
    expect(nextBefore(Array.from({ length: n }, (_, i) => `t${i}`))).toBe(next);
  });
  it.each([
    [null, 0, 0],
    [1000, 1000, MIN_REQUEST_GAP_MS],
    [1000, 1200, 300],
    [1000, 1600, 0],
  ])('after a request at %s, at %i, waits %i ms (2 requests a second)', (last, now, wait) => {
    expect(waitBeforeRequestMs(last, now)).toBe(wait);
  });
  it.each([
    [null, 1000],
    [0, 1000],
    [3, 3000],
    [600, 60000],
  ])('a 429 with Retry-After %s waits %i ms', (retryAfter, wait) => expect(rateLimitWaitMs(retryAfter)).toBe(wait));
});

describe('response items and webhooks', () => {
  it('a response item becomes a webhook body intake parses, with a reconciled event_id and the form fields', () => {
    const body = responseAsDelivery('F1', { token: 'tokA', submitted_at: '2026-11-30T10:00:00Z', answers: [{ type: 'email', email: 'a@example.com', field: { id: 'e1', type: 'email' } }] },
      { title: 'Form', fields: [{ id: 'e1', ref: 'email', type: 'email', title: 'Your email' }] });
    const parsed = parseTypeformBody(body);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.delivery).toMatchObject({ eventId: 'reconciled:tokA', formId: 'F1', responseToken: 'tokA', partial: false });
    expect(parsed.delivery.answers[0].field.ref).toBe('email');
    expect(isReconciledEventId(parsed.delivery.eventId)).toBe(true);
    expect(isReconciledEventId('01JQ8ZK4W6E2V1RZ5T3N8M0B7C')).toBe(false);
    expect(reconciledEventId('x')).toBe('reconciled:x');
  });
  const hook = (url: string, enabled: boolean) => ({ id: 'w', url, enabled });
  it.each([
    [[hook('https://script.google.com/macros/s/X/exec?token=t', true)], 'enabled'],
    [[hook('https://script.google.com/macros/s/X/exec?token=t', false)], 'disabled'],
    [[hook('https://script.google.com/macros/s/X/exec', false), hook('https://zapier.example/hook', true)], 'disabled'],
    [[hook('https://proxy.example/in', true)], 'enabled'],
    [[], 'none'],
  ] as const)('webhooks %j are %s for this web app', (items, state) => {
    expect(webhookState(JSON.stringify({ items }), 'https://script.google.com/macros/s/X/exec')).toBe(state);
  });
  it('an unreadable webhooks answer is unknown, not disabled', () => expect(webhookState('<html>', '')).toBe('unknown'));
});

describe('reconcileTypeform', () => {
  it('queues only the responses no sheet holds: Queue/Archive/spill and Rejected matches are left alone', () => {
    const tf = memoryTypeform([{ token: 'known1' }, { token: 'missing1' }, { token: 'rejected1' }, { token: 'missing2' }]);
    const { deps, stored } = tf.deps();
    const report = reconcileTypeform(deps);
    expect(stored.map((body) => JSON.parse(body).event_id)).toEqual(['reconciled:missing1', 'reconciled:missing2']);
    expect(report.forms[0]).toMatchObject({ seen: 4, alreadyHere: 1, inRejected: 1, recovered: ['missing1', 'missing2'], webhook: 'enabled', error: '' });
    expect(reportLines(report)).toContain('F1: 4 in Typeform, 1 already here, 1 in Rejected (accept them there), 2 recovered, waiting for approval in Queue.');
  });

  it('pages with before= the last token until a short page, never two requests within 500 ms', () => {
    const responses = Array.from({ length: 2500 }, (_, i) => ({ token: `t${i}` }));
    const tf = memoryTypeform(responses);
    const { deps, stored } = tf.deps({ store: () => ({ ok: true, duplicate: true }) });
    const report = reconcileTypeform(deps);
    const pages = tf.requests.filter((r) => r.path.endsWith('/responses'));
    expect(pages.map((r) => r.query.before ?? null)).toEqual([null, 't999', 't1999']);
    expect(report.forms[0]).toMatchObject({ seen: 2500, alreadyHere: 2500 });
    expect(stored).toEqual([]);
    for (let i = 1; i < tf.requests.length; i += 1) expect(tf.requests[i].at - tf.requests[i - 1].at).toBeGreaterThanOrEqual(MIN_REQUEST_GAP_MS);
  });

  it('waits out a 429 and carries on; three in a row give the form up with the reason', () => {
    const once = memoryTypeform([{ token: 'missing1' }], { rateLimited: 1 });
    expect(reconcileTypeform(once.deps().deps).forms[0]).toMatchObject({ recovered: ['missing1'], error: '' });
    const always = memoryTypeform([{ token: 'missing1' }], { rateLimited: 100 });
    expect(reconcileTypeform(always.deps().deps).forms[0].error).toMatch(/kept answering 429/);
  });

  it('a refused token is named with the scopes to give it', () => {
    const tf = memoryTypeform([], { status: 401 });
    const report = reconcileTypeform(tf.deps().deps);
    expect(report.forms[0].error).toMatch(/TYPEFORM_TOKEN.*responses:read, forms:read and webhooks:read/);
  });

  it('a disabled webhook is reported and kept for the triage', () => {
    const tf = memoryTypeform([], { hooks: [{ url: 'u', enabled: false }] });
    const report = reconcileTypeform(tf.deps().deps);
    const record = checkRecordOf(report);
    expect(record).toMatchObject({ disabled: ['F1'], recovered: 0, complete: true });
    expect(readCheckRecord({ [TYPEFORM_CHECK_PROPERTY]: JSON.stringify(record) })).toEqual(record);
    expect(readCheckRecord({ [TYPEFORM_CHECK_PROPERTY]: 'not json' })).toBeNull();
  });

  it('a webhook that arrived meanwhile is counted as already here, and a refused store is named', () => {
    const answers: StoreAnswer[] = [{ ok: true, duplicate: true }, { ok: false, error: 'unknown_form' }];
    const tf = memoryTypeform([{ token: 'm1' }, { token: 'm2' }]);
    const report = reconcileTypeform(tf.deps({ store: () => answers.shift() ?? { ok: false } }).deps);
    expect(report.forms[0]).toMatchObject({ alreadyHere: 1, recovered: [], failed: ['m2 (unknown_form)'] });
  });

  it('sleeps only to keep requests 500 ms apart: never before the first, and each time just the rest of the gap', () => {
    const tf = memoryTypeform([{ token: 'm1' }]);
    reconcileTypeform(tf.deps().deps);
    // each request takes 10 ms: the webhooks at once, then the responses and the definition 490 ms after each one ends
    expect(tf.sleeps).toEqual([MIN_REQUEST_GAP_MS - 10, MIN_REQUEST_GAP_MS - 10]);
  });

  it('without a window given, reads from where the last complete check ended when that is more than 48 h ago', () => {
    const lastCompleteUntil = NOW - 60 * 3_600_000;
    const tf = memoryTypeform([]);
    const report = reconcileTypeform(tf.deps({ lastCompleteUntil }).deps);
    const window = { since: '2026-11-28T18:00:00', until: '2026-11-30T18:00:00' };
    expect(report.window).toEqual(window);
    expect(tf.requests.find((r) => r.path.endsWith('/responses'))?.query).toEqual({ ...window, page_size: '1000' });
  });

  it('stops starting requests at the deadline and says the run is incomplete', () => {
    const tf = memoryTypeform([{ token: 'm1' }]);
    const report = reconcileTypeform(tf.deps({ deadline: NOW, formIds: ['F1', 'F2'] }).deps);
    expect(report.complete).toBe(false);
    expect(tf.requests).toEqual([]);
    expect(reportLines(report).at(-1)).toMatch(/run "Check Typeform for missed submissions" again/);
  });
});
