import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { answerText, findRecipient, renderSubmission } from '../../../src/core/intake/answers';
import { parseTypeformBody, isTestDelivery, type TypeformAnswer } from '../../../src/core/intake/typeform-payload';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/typeform/${name}`, import.meta.url), 'utf8');

const answer = (type: string, value: unknown): TypeformAnswer => ({ type, [type]: value, field: { id: 'f', ref: 'r', type: 'x' } });

describe('answerText renders every Typeform answer type', () => {
  it.each([
    ['text', answer('text', 'Hello'), 'Hello'],
    ['email', answer('email', 'a@example.com'), 'a@example.com'],
    ['url', answer('url', 'https://example.com/x'), 'https://example.com/x'],
    ['file_url', answer('file_url', 'https://api.typeform.com/responses/files/1/cv.pdf'), 'https://api.typeform.com/responses/files/1/cv.pdf'],
    ['phone_number', answer('phone_number', '+40700022222'), '+40700022222'],
    ['date', answer('date', '2026-11-21'), '2026-11-21'],
    ['number', answer('number', 7), '7'],
    ['number zero', answer('number', 0), '0'],
    ['boolean true', answer('boolean', true), 'Yes'],
    ['boolean false', answer('boolean', false), 'No'],
    ['choice', answer('choice', { id: 'c1', label: 'Barcelona' }), 'Barcelona'],
    ['choice with other', answer('choice', { other: 'Lisbon' }), 'Other: Lisbon'],
    ['choices', answer('choices', { ids: ['a', 'b'], labels: ['Structure', 'Clarity'] }), 'Structure, Clarity'],
    ['choices with other', answer('choices', { labels: ['Tone'], other: 'Grammar' }), 'Tone, Other: Grammar'],
    ['payment', answer('payment', { amount: '49.00', last4: '4242', name: 'M O', success: true }), '49.00, paid, card ending 4242'],
    ['unknown type keeps its value', answer('ranking_v9', { a: 1 }), '{"a":1}'],
    ['missing value', { type: 'text', field: { id: 'f' } } as TypeformAnswer, ''],
  ])('%s', (_name, given, expected) => {
    expect(answerText(given)).toBe(expected);
  });
});

describe('renderSubmission', () => {
  it('matches answers to questions by field id, not by position', () => {
    const parsed = parseTypeformBody(
      JSON.stringify({
        event_id: 'e1',
        event_type: 'form_response',
        form_response: {
          form_id: 'F',
          token: 't1',
          definition: { fields: [ { id: 'a', ref: 'first', title: 'First question' }, { id: 'b', ref: 'second', title: 'Second question' } ] },
          answers: [ { type: 'text', text: 'two', field: { id: 'b', ref: 'second' } } ],
        },
      }),
    );
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(renderSubmission(parsed.delivery)).toBe('Second question: two');
  });

  it('renders the essay fixture as readable lines, multi-line answers indented', () => {
    const parsed = parseTypeformBody(fixture('essay-submission.json'));
    if (!parsed.ok) throw new Error(parsed.reason);
    const text = renderSubmission(parsed.delivery);
    expect(text).toContain('Your name: Mina Okafor');
    expect(text).toContain('Course: Technical writing');
    expect(text).toContain('What should the feedback focus on?: Structure, Clarity');
    expect(text).toContain('May we use an AI assistant to draft your feedback?: Yes');
    expect(text).toContain('Due date: 2026-11-21');
    expect(text).toContain('\n  \n  In our service');
  });
});

describe('findRecipient', () => {
  const parsed = parseTypeformBody(fixture('essay-submission.json'));
  if (!parsed.ok) throw new Error(parsed.reason);
  it.each([
    ['the first email answer by default', '', 'mina.okafor@example.com'],
    ['the field Config names, by ref', 'name', 'Mina Okafor'],
    ['the first email answer when the named field is absent', 'nope', 'mina.okafor@example.com'],
  ])('%s', (_name, field, expected) => {
    expect(findRecipient(parsed.delivery, field)).toBe(expected);
  });

  it('is empty for a submission without an email answer', () => {
    const noEmail = parseTypeformBody(fixture('no-email.json'));
    if (!noEmail.ok) throw new Error(noEmail.reason);
    expect(findRecipient(noEmail.delivery, '')).toBe('');
  });
});

describe('parseTypeformBody', () => {
  it.each([
    ['not JSON', '{"event_id": ', 'malformed_json'],
    ['a JSON array', '[1,2]', 'malformed_json'],
    ['no event_id', '{"event_type":"form_response","form_response":{}}', 'missing_event_id'],
    ['another event type', '{"event_id":"e","event_type":"form_response_partial","form_response":{}}', 'unsupported_event_type'],
    ['no form_response', '{"event_id":"e","event_type":"form_response"}', 'missing_form_response'],
    ['an empty body', '', 'malformed_json'],
  ])('rejects %s', (_name, body, error) => {
    const parsed = parseTypeformBody(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toBe(error);
  });

  it('keeps the compact JSON byte for byte equal to a re-serialisation of the body', () => {
    const body = fixture('essay-submission.json');
    const parsed = parseTypeformBody(body);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.delivery.compactJson).toBe(JSON.stringify(JSON.parse(body)));
  });

  it.each([
    ['test-request.json', true],
    ['essay-submission.json', false],
    ['no-email.json', false],
  ])("detects Typeform's test request (%s → %s)", (name, expected) => {
    const parsed = parseTypeformBody(fixture(name));
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(isTestDelivery(parsed.delivery)).toBe(expected);
  });
});
