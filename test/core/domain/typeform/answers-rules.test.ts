// Recall placeholders, question titles, template values and the recipient, table-driven on small deliveries:
// exact outputs for each rule in src/core/domain/typeform/answers.ts beyond answerText (which answer-text.test.ts covers).
import { describe, expect, it } from 'vitest';
import { answerText, fillRecall, findRecipient, questionTitle, renderSubmission, templateValues } from '../../../../src/core/domain/typeform/answers';
import type { TypeformAnswer, TypeformDelivery, TypeformField } from '../../../../src/core/domain/typeform/typeform-payload';

const text = (id: string, ref: string, value: string): TypeformAnswer => ({ type: 'text', text: value, field: { id, ref, type: 'short_text' } });
const email = (id: string, ref: string, value: string): TypeformAnswer => ({ type: 'email', email: value, field: { id, ref, type: 'email' } });

function delivery(patch: Partial<TypeformDelivery> = {}): TypeformDelivery {
  return {
    eventId: 'e1',
    eventType: 'form_response',
    partial: false,
    formId: 'F',
    responseToken: 't1',
    submittedAt: '2026-12-01T10:00:00Z',
    fields: [],
    answers: [],
    hidden: {},
    variables: {},
    score: '',
    compactJson: '{}',
    ...patch,
  };
}

const recallSource = delivery({
  answers: [text('idName', 'name', 'Mina'), text('idCity', 'city', '  Leeds\n  North '), text('idBlank', 'blank', '')],
  hidden: { src: 'ads', empty: '' },
  variables: { level: 'advanced' },
});

describe('fillRecall', () => {
  it.each([
    ['an answer by ref', 'Hi {{field:name}}!', 'Hi Mina!'],
    ['an answer by id', 'Hi {{field:idName}}!', 'Hi Mina!'],
    ['the answer_<id> form', 'Hi {{answer_idName}}!', 'Hi Mina!'],
    ['a hidden field', 'From {{hidden:src}}', 'From ads'],
    ['a hidden field, the kind in capitals', 'From {{HIDDEN:src}}', 'From ads'],
    ['a variable (var)', 'Level {{var:level}}', 'Level advanced'],
    ['a variable (variable)', 'Level {{variable:level}}', 'Level advanced'],
    ['spaces inside the braces', 'Hi {{ field:name }} from {{  hidden:src }}', 'Hi Mina from ads'],
    ['an answer whose whitespace runs collapse to one space, trimmed', 'In {{field:city}}?', 'In Leeds North?'],
    ['an unanswered question', 'Hi {{field:nobody}}!', 'Hi …!'],
    ['an empty answer', 'Hi {{field:blank}}!', 'Hi …!'],
    ['an empty hidden field', 'From {{hidden:empty}}', 'From …'],
    ['a hidden name that is no hidden field (not looked up among answers)', 'From {{hidden:name}}', 'From …'],
    ['a variable name that is no variable (not looked up among answers)', 'Is {{var:name}}', 'Is …'],
    ['a hidden name read as a variable', 'Is {{var:src}}', 'Is …'],
    ['text without placeholders', 'Plain {title}', 'Plain {title}'],
  ])('%s', (_what, title, expected) => {
    expect(fillRecall(title, recallSource)).toBe(expected);
  });
});

describe('questionTitle', () => {
  const fields: TypeformField[] = [{ id: 'idName', ref: 'name', title: '  What is   your\nname?  ' }, { id: 'idNoTitle', ref: 'noTitle' }];
  it.each<[string, TypeformAnswer, string]>([
    ["the definition's title, whitespace collapsed and trimmed", text('idName', 'name', 'x'), 'What is your name?'],
    ['the ref when the definition has no title', text('idNoTitle', 'noTitle', 'x'), 'noTitle'],
    ['the ref when the question is not in the definition', text('idGone', 'gone', 'x'), 'gone'],
    ['the id when there is no ref either', { type: 'text', text: 'x', field: { id: 'idGone' } }, 'idGone'],
    ['the answer type when the answer names no field', { type: 'text', text: 'x', field: {} }, 'text'],
  ])('%s', (_what, answer, expected) => {
    expect(questionTitle(answer, delivery({ fields }))).toBe(expected);
  });
});

describe('renderSubmission', () => {
  it.each([
    ['LF', 'one\ntwo', 'Q: one\n  two'],
    ['CRLF', 'one\r\ntwo', 'Q: one\n  two'],
    ['a lone CR', 'one\rtwo', 'Q: one\n  two'],
    ['a blank line', 'one\n\ntwo', 'Q: one\n  \n  two'],
  ])('indents a multi-line answer under its question (%s)', (_what, value, expected) => {
    expect(renderSubmission(delivery({ fields: [{ id: 'q', ref: 'q', title: 'Q' }], answers: [text('q', 'q', value)] }))).toBe(expected);
  });

  it('lists answers, then hidden fields, variables and the score, each multi-line value indented', () => {
    const given = delivery({ answers: [text('a', 'a', 'x')], hidden: { h: 'one\ntwo' }, variables: { v: '3' }, score: '9' });
    expect(renderSubmission(given)).toBe('a: x\nhidden.h: one\n  two\nvariables.v: 3\nscore: 9');
  });

  it('leaves the score out when the form has none', () => {
    expect(renderSubmission(delivery({ answers: [text('a', 'a', 'x')] }))).toBe('a: x');
  });
});

describe('templateValues', () => {
  it.each<[string, Partial<TypeformDelivery>, Record<string, string>]>([
    [
      'each question by ref and by id, unanswered ones empty',
      { fields: [{ id: 'i1', ref: 'r1' }, { id: 'i2', ref: 'r2' }], answers: [text('i1', 'r1', 'A')] },
      { r1: 'A', i1: 'A', r2: '', i2: '' },
    ],
    ['a question without a ref by its id only', { fields: [{ id: 'i1' }], answers: [{ type: 'text', text: 'A', field: { id: 'i1' } }] }, { i1: 'A' }],
    ['a question without an id by its ref only', { fields: [{ ref: 'r1' }], answers: [{ type: 'text', text: 'A', field: { ref: 'r1' } }] }, { r1: 'A' }],
    [
      "a ref wins over another question's id of the same name",
      { fields: [{ id: 'i1', ref: 'shared' }, { id: 'shared', ref: 'r2' }], answers: [text('i1', 'shared', 'by ref'), text('shared', 'r2', 'by id')] },
      { shared: 'by ref', i1: 'by ref', r2: 'by id' },
    ],
    [
      "an id fills a ref's empty value when the question with that ref was not answered",
      { fields: [{ id: 'i1', ref: 'shared' }, { id: 'shared', ref: 'r2' }], answers: [text('shared', 'r2', 'by id')] },
      { shared: 'by id', i1: '', r2: 'by id' },
    ],
    [
      'hidden.*, variables.*, the score, and bare names no question uses',
      { fields: [{ id: 'i1', ref: 'name' }], answers: [text('i1', 'name', 'Mina')], hidden: { name: 'hidden name', src: 'ads' }, variables: { level: 'x' }, score: '7' },
      { name: 'Mina', i1: 'Mina', 'hidden.name': 'hidden name', 'hidden.src': 'ads', src: 'ads', 'variables.level': 'x', level: 'x', score: '7' },
    ],
    ['the score variable when calculated.score is absent', { variables: { score: '4' } }, { 'variables.score': '4', score: '4' }],
    ['calculated.score over the score variable', { variables: { score: '4' }, score: '9' }, { 'variables.score': '4', score: '9' }],
    ['no score at all', {}, {}],
    ['a hidden field named score when the form has none: {{score}} is that field', { hidden: { score: 'gold' } }, { 'hidden.score': 'gold', score: 'gold' }],
  ])('%s', (_what, patch, expected) => {
    expect(templateValues(delivery(patch))).toEqual(expected);
  });
});

describe('findRecipient', () => {
  const answers = [text('', '', 'no field named'), text('idName', 'name', 'Mina'), email('idMail', 'mail', '  mina@example.com  '), email('idAlt', 'alt', 'alt@example.com')];
  it.each([
    ['the first email answer, trimmed, when Config names none', '', 'mina@example.com'],
    ['the answer Config names by ref', 'alt', 'alt@example.com'],
    ['the answer Config names by id', 'idAlt', 'alt@example.com'],
    ['the name Config gives, trimmed', '  alt  ', 'alt@example.com'],
    ['the first email answer when the named field was not answered', 'nobody', 'mina@example.com'],
    ['a named non-email answer as it is', 'name', 'Mina'],
  ])('%s', (_what, recipientField, expected) => {
    expect(findRecipient(delivery({ answers }), recipientField)).toBe(expected);
  });

  it('is empty with no email answer and nothing named', () => {
    expect(findRecipient(delivery({ answers: [text('idName', 'name', 'Mina')] }), '')).toBe('');
  });
});

describe('answerText for the string answer types given the wrong shape', () => {
  it.each<[string, unknown, string]>([
    ['an object', { line_1: '1 Main St' }, 'line 1: 1 Main St'],
    ['a list', ['a', 'b'], 'a, b'],
    ['true', true, 'true'],
  ])('a text answer holding %s reads as words, never "[object Object]"', (_what, value, expected) => {
    for (const type of ['text', 'email', 'url', 'file_url', 'phone_number', 'date']) {
      expect(answerText({ type, [type]: value, field: { id: 'f' } })).toBe(expected);
    }
  });

  it.each([['choice'], ['choices'], ['payment']])('a %s answer holding null reads as nothing', (type) => {
    expect(answerText({ type, [type]: null, field: { id: 'f' } })).toBe('');
  });

  it('a choice with its own label and other text shows both', () => {
    expect(answerText({ type: 'choice', choice: { label: 'Something else', other: 'Teal' }, field: { id: 'f' } })).toBe('Something else: Teal');
  });
});
