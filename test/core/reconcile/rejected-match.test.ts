// Whether a Rejected body holds a response the Typeform check must leave to staff: the whole token, in its own field, and no partial.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_CHARS, MAX_JSON_DEPTH } from '../../../src/core/domain/typeform/delivery-limits';
import { parseTypeformBody } from '../../../src/core/domain/typeform/typeform-payload';
import { rejectedBodyHolds } from '../../../src/core/reconcile/rejected-match';

const essay = JSON.parse(readFileSync(new URL('../../fixtures/typeform/essay-submission.json', import.meta.url), 'utf8'));
const TOKEN = 'k3h2j4g5f6d7s8a9q0w1e2r3t4y5u6i7';
const delivery = (patch: (body: any) => void = () => undefined) => {
  const body = structuredClone(essay);
  patch(body);
  return JSON.stringify(body);
};

describe('rejectedBodyHolds', () => {
  it.each<[string, string, boolean]>([
    ['the finished delivery of that response (refused for an unknown form, say)', delivery(), true],
    ['the same, pretty-printed as Typeform sends it', JSON.stringify(JSON.parse(delivery()), null, 2), true],
    ['its partial response: never acceptable, so the finished one is still missing', delivery((b) => (b.event_type = 'form_response_partial')), false],
    ['a delivery of another response whose token contains this one', delivery((b) => (b.form_response.token = `x${TOKEN}x`)), false],
    ['a delivery of another response naming this token in an answer', delivery((b) => { b.form_response.token = 'other-token-000000000000000000000'; b.form_response.answers[0].text = TOKEN; }), false],
    ['a delivery of another response naming it in a hidden field', delivery((b) => { b.form_response.token = 'other-token-000000000000000000000'; b.form_response.hidden = { ref: TOKEN }; }), false],
    ['junk that quotes the token', `{"junk":"${TOKEN}"}`, false],
    ['not JSON at all', `token=${TOKEN}`, false],
    ['a body nested too deep to read', `${'['.repeat(100)}"${TOKEN}"${']'.repeat(100)}`, false],
  ])('%s', (_case, body, holds) => {
    expect(rejectedBodyHolds(body, TOKEN)).toBe(holds);
  });

  it.each([
    ['an essay past the size intake refuses', delivery((b) => (b.form_response.answers[0].text = 'x'.repeat(MAX_BODY_CHARS)))],
    ['a hidden field nested past the depth intake refuses', delivery((b) => (b.form_response.hidden = { deep: JSON.parse(`${'['.repeat(MAX_JSON_DEPTH)}1${']'.repeat(MAX_JSON_DEPTH)}`) }))],
  ])('the finished delivery of that response with %s holds nothing, though it parses', (_case, body) => {
    const parsed = parseTypeformBody(body);
    expect(parsed.ok && parsed.delivery.responseToken).toBe(TOKEN);
    expect(rejectedBodyHolds(body, TOKEN)).toBe(false);
  });

  it('an empty token is held by nothing, not even a body with an empty token', () => {
    expect(rejectedBodyHolds(delivery((b) => (b.form_response.token = '')), '')).toBe(false);
  });
});
