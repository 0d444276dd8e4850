// Typeform's webhook body piece by piece: each refusal with its reason, and each part of a delivery exactly as parsed.
import { describe, expect, it } from 'vitest';
import { questionTitle } from '../../../../src/core/domain/typeform/answers';
import { fieldOf, isTestDelivery, parseTypeformBody, type TypeformDelivery, type TypeformField } from '../../../../src/core/domain/typeform/typeform-payload';

const body = (formResponse: unknown, top: Record<string, unknown> = {}) =>
  JSON.stringify({ event_id: 'ev-1', event_type: 'form_response', form_response: formResponse, ...top });

function delivery(formResponse: Record<string, unknown>, top: Record<string, unknown> = {}): TypeformDelivery {
  const parsed = parseTypeformBody(body(formResponse, top));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.delivery;
}

describe('bodies that are refused, with the reason', () => {
  const neither = 'is neither form_response nor form_response_partial';
  it.each<[string, string, string, string]>([
    ['JSON null', 'null', 'malformed_json', 'the body is JSON but not an object'],
    ['a JSON array', '[1]', 'malformed_json', 'the body is JSON but not an object'],
    ['an event_id of spaces', body({}, { event_id: '  ' }), 'missing_event_id', 'the body has no event_id'],
    ['an event_id that is an object', body({}, { event_id: { id: 1 } }), 'missing_event_id', 'the body has no event_id'],
    ['no event_type', body({}, { event_type: undefined }), 'unsupported_event_type', `event_type "(none)" ${neither}`],
    ['another event_type', body({}, { event_type: 'ping' }), 'unsupported_event_type', `event_type "ping" ${neither}`],
    ['no form_response', body(undefined), 'missing_form_response', 'the body has no form_response object'],
    ['a form_response that is an array', body([]), 'missing_form_response', 'the body has no form_response object'],
  ])('%s', (_, text, error, reason) => {
    expect(parseTypeformBody(text)).toEqual({ ok: false, error, reason });
  });

  it('text that is not JSON names the parser\'s complaint', () => {
    const result = parseTypeformBody('{"event_id": ');
    expect(result).toMatchObject({ ok: false, error: 'malformed_json' });
    expect(!result.ok && result.reason).toMatch(/^the body is not valid JSON \(.+\)$/);
  });
});

describe('the parts of a delivery', () => {
  it('a numeric event_id is read as text, trimmed; the form id falls back to the definition\'s', () => {
    const parsed = parseTypeformBody(body({ definition: { id: 'DEF1' }, token: 'tok', submitted_at: '2026-01-02T03:04:05Z' }, { event_id: 123 }));
    expect(parsed.ok && parsed.delivery).toMatchObject({ eventId: '123', eventType: 'form_response', partial: false, formId: 'DEF1', responseToken: 'tok', submittedAt: '2026-01-02T03:04:05Z' });
    expect(delivery({ form_id: 'F1', definition: { id: 'DEF1' } }).formId).toBe('F1');
    expect(delivery({}, { event_id: ' ev-9 ' }).eventId).toBe('ev-9');
  });

  it('hidden values as text: empty for null, yes/no, numbers, lists without empty items, objects as JSON', () => {
    expect(delivery({ hidden: { n: null, b: true, f: false, num: 0, list: ['x', null, 2, ''], obj: { k: 1 } } }).hidden).toEqual({
      n: '', b: 'yes', f: 'no', num: '0', list: 'x, 2', obj: '{"k":1}',
    });
    expect(delivery({ hidden: 'x' }).hidden).toEqual({});
  });

  it('variables by key, each read under its type; entries without a string key are skipped', () => {
    const variables = [
      { key: 'level', type: 'text', text: 'advanced' }, { key: 'points', type: 'number', number: 3 }, { key: 5, type: 'text', text: 'x' }, null, 'y',
    ];
    expect(delivery({ variables }).variables).toEqual({ level: 'advanced', points: '3' });
    expect(delivery({ variables: { key: 'level' } }).variables).toEqual({});
  });

  it.each([[undefined, ''], [null, ''], [0, '0'], [9, '9']])('a score of %j reads %j', (score, text) => {
    expect(delivery({ calculated: { score } }).score).toBe(text);
  });

  it('answers: only objects, none when answers is not a list', () => {
    expect(delivery({ answers: [null, 'x', { type: 'text', text: 'a', field: { id: 'f1' } }] }).answers).toEqual([
      { type: 'text', text: 'a', field: { id: 'f1', ref: '', type: '' } },
    ]);
    expect(delivery({ answers: { type: 'text' } }).answers).toEqual([]);
  });

  it('an answer matched by id to a question with no ref, type or title keeps them empty: its line is labelled by the id', () => {
    const parsed = delivery({ definition: { fields: [{ id: 'f1' }] }, answers: [{ type: 'text', text: 'a', field: { id: 'f1' } }] });
    expect(parsed.answers).toEqual([{ type: 'text', text: 'a', field: { id: 'f1', ref: '', type: '' } }]);
    expect(questionTitle(parsed.answers[0], parsed)).toBe('f1');
  });
});

describe('questions, nested ones included, and the question of each answer', () => {
  const definition = {
    fields: [
      null,
      { id: 'g', ref: 'grp', type: 'group', title: 'Group', properties: { fields: [{ id: 'i1', ref: 'r1', type: 'short_text', title: 'Inner' }, { id: 'i2', type: 'x', title: '' }] } },
      { id: 't', type: 'short_text' },
      { id: 'm', title: 'Matrix', properties: {} },
    ],
  };

  it('flattens group and matrix questions, titling inner ones "Parent — Question" (or the parent\'s title alone)', () => {
    expect(delivery({ definition }).fields).toEqual([
      { id: 'g', ref: 'grp', type: 'group', title: 'Group' },
      { id: 'i1', ref: 'r1', type: 'short_text', title: 'Group — Inner' },
      { id: 'i2', ref: '', type: 'x', title: 'Group' },
      { id: 't', ref: '', type: 'short_text', title: '' },
      { id: 'm', ref: '', type: '', title: 'Matrix' },
    ]);
    expect(delivery({ definition: { fields: 'x' } }).fields).toEqual([]);
  });

  it('fills each answer\'s id, ref and type from its question; keeps what the answer itself says', () => {
    const answers = [
      { type: 'text', field: { id: 'i1' } },
      { type: 'text', field: { ref: 'grp' } },
      { type: 'email', field: { id: 'i1', type: 'email' } },
      { type: 'text', field: { id: 'zz', ref: 'nope', type: 'text' } },
      { type: 'text' },
    ];
    expect(delivery({ definition, answers }).answers.map((a) => a.field)).toEqual([
      { id: 'i1', ref: 'r1', type: 'short_text' },
      { id: 'g', ref: 'grp', type: 'group' },
      { id: 'i1', ref: 'r1', type: 'email' },
      { id: 'zz', ref: 'nope', type: 'text' },
      { id: '', ref: '', type: '' },
    ]);
  });

  const fields: TypeformField[] = [{ id: '', ref: '', title: 'no id, no ref' }, { id: 'a', ref: 'x', title: 'A' }];
  it.each<[string, { id?: string; ref?: string }, string | undefined]>([
    ['by id', { id: 'a' }, 'A'],
    ['by ref when no id is given', { ref: 'x' }, 'A'],
    ['by ref when the id is unknown', { id: 'nope', ref: 'x' }, 'A'],
    ['none when neither is given (an empty id is no id)', {}, undefined],
    ['none when both are empty', { id: '', ref: '' }, undefined],
  ])('fieldOf: %s', (_, answerField, title) => {
    expect(fieldOf(answerField, fields)?.title).toBe(title);
  });
});

describe("Typeform's test request", () => {
  it.each([['ev-1', true], ['', false], ['other', false]])('token %j for event ev-1: %s', (token, test) => {
    expect(isTestDelivery(delivery({ token }))).toBe(test);
  });
});
