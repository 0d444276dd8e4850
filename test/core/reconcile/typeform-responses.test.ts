// Typeform's Responses, Forms and Webhooks answers read defensively: what a page, a definition and a webhook list yield, malformed or not.
import { describe, expect, it } from 'vitest';
import { parseFormDefinition, parseResponsesPage, responseAsDelivery, webhookState } from '../../../src/core/reconcile/typeform-responses';

describe('a responses page', () => {
  it.each([
    ['not JSON', '<html>502</html>'],
    ['a JSON list, not a page', '[{"token":"a"}]'],
    ['null', 'null'],
    ['a page without items', '{"total_items":0}'],
    ['items that are not a list', '{"items":{"token":"a"}}'],
  ])('%s is unreadable (null), not an empty page', (_name, text) => {
    expect(parseResponsesPage(text)).toBeNull();
  });

  it('keeps every item with a token, in order, and leaves out those that cannot be matched', () => {
    const items = [{ token: 'a', answers: [] }, null, 'b', ['c'], { token: '' }, { token: 7 }, {}, { token: 'd' }];
    expect(parseResponsesPage(JSON.stringify({ items }))).toEqual([{ token: 'a', answers: [] }, { token: 'd' }]);
  });

  it('an empty page is an empty list (the window had no responses)', () => {
    expect(parseResponsesPage('{"items":[]}')).toEqual([]);
  });
});

describe('a form definition', () => {
  const fields = [{ id: 'e1', ref: 'email', type: 'email', title: 'Your email' }];
  it.each([
    ['a readable definition', JSON.stringify({ title: 'Feedback', fields }), { title: 'Feedback', fields }],
    ['a title that is not text', JSON.stringify({ title: 5, fields }), { title: '', fields }],
    ['fields that are not a list', JSON.stringify({ title: 'Feedback', fields: { id: 'e1' } }), { title: 'Feedback', fields: [] }],
    ['not JSON', '<html>', { title: '', fields: [] }],
    ['a JSON list', JSON.stringify([{ title: 'Feedback', fields }]), { title: '', fields: [] }],
    ['JSON null', 'null', { title: '', fields: [] }],
  ])('%s gives %j (answers still show without titles)', (_name, text, definition) => {
    expect(parseFormDefinition(text)).toEqual(definition);
  });
});

describe('a response as the webhook body intake knows', () => {
  const definition = { title: 'Feedback', fields: [{ id: 'e1', type: 'email' }] };

  it('carries every part of the response, the form and its definition, under a reconciled event_id', () => {
    const item = {
      token: 'tokA', landed_at: '2026-11-30T09:58:00Z', submitted_at: '2026-11-30T10:00:00Z',
      hidden: { school: 'North' }, calculated: { score: 4 }, variables: [{ key: 'v', type: 'number', number: 1 }],
      answers: [{ type: 'email', email: 'a@example.com', field: { id: 'e1', type: 'email' } }],
    };
    expect(JSON.parse(responseAsDelivery('F1', item, definition))).toEqual({
      event_id: 'reconciled:tokA',
      event_type: 'form_response',
      form_response: {
        form_id: 'F1', token: 'tokA', landed_at: '2026-11-30T09:58:00Z', submitted_at: '2026-11-30T10:00:00Z',
        hidden: { school: 'North' }, calculated: { score: 4 }, variables: [{ key: 'v', type: 'number', number: 1 }],
        definition: { id: 'F1', title: 'Feedback', fields: [{ id: 'e1', type: 'email' }] },
        answers: [{ type: 'email', email: 'a@example.com', field: { id: 'e1', type: 'email' } }],
      },
    });
  });

  it('a response with only a token still gives the objects and lists intake expects, and no variables', () => {
    expect(JSON.parse(responseAsDelivery('F1', { token: 'tokB' }, definition)).form_response).toEqual({
      form_id: 'F1', token: 'tokB', hidden: {}, calculated: {}, definition: { id: 'F1', title: 'Feedback', fields: [{ id: 'e1', type: 'email' }] }, answers: [],
    });
  });
});

describe('the state of a form\'s webhooks', () => {
  const APP = 'https://script.google.com/macros/s/X/exec';
  const page = (items: unknown) => JSON.stringify({ items });
  it.each([
    ['not JSON', '<html>', APP, 'unknown'],
    ['a JSON list, not a page', JSON.stringify([{ url: APP, enabled: true }]), APP, 'unknown'],
    ['JSON null', 'null', APP, 'unknown'],
    ['items that are not a list', JSON.stringify({ items: { url: APP, enabled: true } }), APP, 'unknown'],
    ['no webhook', page([]), APP, 'none'],
    ['only entries that are not webhooks', page([null, 'x', [1]]), APP, 'none'],
    ['ours disabled, an entry that is no webhook beside it', page(['x', { url: APP, enabled: false }]), APP, 'disabled'],
    ['enabled written as text is not enabled', page([{ url: APP, enabled: 'true' }]), APP, 'disabled'],
    ['ours enabled with its token query', page([{ url: `${APP}?token=t`, enabled: true }]), APP, 'enabled'],
    ['a webhook whose url only ends like ours is another\'s', page([{ url: `${APP}?token=t`, enabled: false }, { url: `https://proxy.example/?to=${APP}`, enabled: true }]), APP, 'disabled'],
    ['a webhook without a url is not ours when one points here', page([{ url: APP, enabled: false }, { enabled: true }]), APP, 'disabled'],
    ['with no web app url known, any enabled webhook counts', page([{ url: 'https://proxy.example/in', enabled: false }, { enabled: true }]), '', 'enabled'],
    ['with no web app url known, all disabled is disabled', page([{ url: APP, enabled: false }, { url: '', enabled: false }]), '', 'disabled'],
  ])('%s → %s', (_name, text, url, state) => {
    expect(webhookState(text, url)).toBe(state);
  });
});
