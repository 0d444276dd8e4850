import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { answerText, findRecipient, renderSubmission, templateValues } from '../../../../src/core/domain/typeform/answers';
import { parseTypeformBody, isTestDelivery, type TypeformAnswer, type TypeformDelivery } from '../../../../src/core/domain/typeform/typeform-payload';

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/typeform/${name}`, import.meta.url), 'utf8');

/** Parsed inside each test (beforeEach), not while the file is collected: a mutation-testing run activates its mutant per test. */
function parsedFixture(name: string): TypeformDelivery {
  const parsed = parseTypeformBody(fixture(name));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.delivery;
}

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
    ['ranking keeps the order, numbered', { type: 'choices', choices: { labels: ['Tone', 'Structure'] }, field: { id: 'f', ref: 'r', type: 'ranking' } } as TypeformAnswer, '1. Tone, 2. Structure'],
    ['multi_format', answer('multi_format', { transcript: 'Be blunt.', audio_url: 'https://x.example/a.webm' }), 'transcript: Be blunt.; audio url: https://x.example/a.webm'],
    ['an unknown type reads as words, not JSON', answer('ranking_v9', { first_pick: 'Tone', n: 1 }), 'first pick: Tone; n: 1'],
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

describe("Typeform's example payload: answers with only field.id", () => {
  let delivery: TypeformDelivery;
  beforeEach(() => {
    delivery = parsedFixture('example-payload.json');
  });

  it('gives every answer the ref its definition names', () => {
    expect(delivery.answers.map((a) => a.field.ref)).toEqual(delivery.fields.map((f) => f.ref));
  });

  it('renders titles, recall placeholders filled, hidden fields, variables and the score', () => {
    const text = renderSubmission(delivery);
    expect(text).toContain('What is your first name?: Laura');
    expect(text).toContain("Thanks, …! What's it like where you live? Tell us in a few sentences.: It's cold right now!");
    expect(text).not.toContain('{{');
    expect(text).toContain('Which pictures do you like? You can choose as many as you like.: London, Sydney');
    expect(text).toContain('Book a time with me: https://calendly.com/');
    expect(text.split('\n').slice(-4)).toEqual(['hidden.user_id: abc123456', 'variables.score: 4', 'variables.name: typeform', 'score: 9']);
  });

  it('offers templates each question by ref and by id, hidden.*, variables.* and the score', () => {
    expect(templateValues(delivery)).toMatchObject({
      readable_ref_short_text: 'Laura',
      JwWggjAKtOkA: 'Laura',
      readable_ref_email: 'laura@example.com',
      'hidden.user_id': 'abc123456',
      'variables.score': '4',
      'variables.name': 'typeform',
      score: '9',
      user_id: 'abc123456',
    });
  });

  it.each([
    ['a ref', 'readable_ref_email'],
    ['an id', 'SMEUb7VJz92Q'],
  ])('finds the recipient when Config names %s', (_name, field) => {
    expect(findRecipient(delivery, field)).toBe('laura@example.com');
  });

  it('finds the address Config names by ref even when answers carry only ids and another email comes first', () => {
    const body = JSON.parse(fixture('example-payload.json'));
    body.form_response.definition.fields.push({ id: 'Kd9xQw', ref: 'parent_email', type: 'email', title: 'A parent to copy' });
    body.form_response.answers.unshift({ type: 'email', email: 'parent@example.com', field: { id: 'Kd9xQw', type: 'email' } });
    const reparsed = parseTypeformBody(JSON.stringify(body));
    if (!reparsed.ok) throw new Error(reparsed.reason);
    expect(findRecipient(reparsed.delivery, 'readable_ref_email')).toBe('laura@example.com');
    expect(findRecipient(reparsed.delivery, '')).toBe('parent@example.com');
  });

  it('parses form_response_partial as a partial delivery', () => {
    const partial = parseTypeformBody(fixture('partial-response.json'));
    expect(partial.ok && partial.delivery.partial).toBe(true);
    expect(delivery.partial).toBe(false);
  });
});

describe('every documented answer type renders readably (ids only, matrix rows, recall in titles)', () => {
  let lines: string[];
  beforeEach(() => {
    lines = renderSubmission(parsedFixture('all-answer-types.json')).split('\n');
  });
  it.each([
    "Where should Mina Okafor's feedback go?: mina.okafor@example.com",
    'Phone: +40700022222',
    'Your blog: https://mina.example.com/blog',
    'Upload your draft, Technical writing student: https://api.typeform.com/responses/files/8d2f0c/draft.pdf',
    'Due date: 2026-11-21',
    'May an AI assistant draft your feedback?: Yes',
    'Word count: 1250',
    'Course: Other: Grant writing',
    'Focus: Structure, Clarity, Other: Citations',
    'Rank what matters most: 1. Tone, 2. Structure, 3. Length',
    'Rate your draft — Structure: Good',
    'Rate your draft — Clarity: Needs work',
    'Review fee: 49.00, paid, card ending 4242',
    'Anything else? (video, audio or text): transcript: Please be blunt about the conclusion.; audio url: https://api.typeform.com/responses/files/aa11/note.webm',
    'hidden.course: Technical writing',
    'variables.level: advanced',
    'score: 7',
  ])('%s', (line) => {
    expect(lines).toContain(line);
  });

  it('no line shows raw JSON or a raw placeholder', () => {
    expect(lines.filter((line) => /[{}]/.test(line))).toEqual([]);
  });
});

describe('findRecipient', () => {
  let delivery: TypeformDelivery;
  beforeEach(() => {
    delivery = parsedFixture('essay-submission.json');
  });
  it.each([
    ['the first email answer by default', '', 'mina.okafor@example.com'],
    ['the field Config names, by ref', 'name', 'Mina Okafor'],
    ['the first email answer when the named field is absent', 'nope', 'mina.okafor@example.com'],
  ])('%s', (_name, field, expected) => {
    expect(findRecipient(delivery, field)).toBe(expected);
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
    ['another event type', '{"event_id":"e","event_type":"form_deleted","form_response":{}}', 'unsupported_event_type'],
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
