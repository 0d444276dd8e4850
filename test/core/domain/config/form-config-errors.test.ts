// The Config sheet read by header name, a form's configuration with the `*` row's blanks filled, and error codes.
import { beforeEach, describe, expect, it } from 'vitest';
import { codedError, codeOf, messageOf } from '../../../../src/core/domain/failures/errors';
import { blankFormConfig, configFor, formConfigsFromValues } from '../../../../src/core/domain/config/form-config';
import { errorSummary, redact } from '../../../../src/core/domain/failures/redact';

describe('formConfigsFromValues', () => {
  it('reads each row by header name (any order, any case, trimmed), skipping rows without a form id', () => {
    const values = [
      [' Bcc ', 'FORM_ID', 'prompt', 'enabled', 'approval_required', 'model', 'subject', 'body', 'recipient_field', 'reply_to', 'sender_name', 'notes', 'Send_Hours'],
      ['b@x.yz', ' F1 ', ' Be kind ', 'yes', 'x', ' m ', 's', 'b', 'email', 'r@x.yz', 'Desk', 'ignored', ' 08:00-20:00 '],
      ['', '', 'no id', 'yes', '', '', '', '', '', '', '', '', ''],
      ['', 'F2', '', false, true, '', '', '', '', '', '', '', ''],
    ];
    expect(formConfigsFromValues(values)).toEqual([
      { formId: 'F1', enabled: true, prompt: 'Be kind', model: 'm', subject: 's', body: 'b', recipientField: 'email', approvalRequired: true, replyTo: 'r@x.yz', bcc: 'b@x.yz', senderName: 'Desk', sendHours: '08:00-20:00', allowedLinkDomains: '', allowPhoneNumbers: false },
      { ...blankFormConfig('F2'), enabled: false, approvalRequired: true },
    ]);
  });

  it('a yes/no cell that is neither is read the safe way and named: approval on, the form not enabled', () => {
    const [form] = formConfigsFromValues([['form_id', 'enabled', 'approval_required', 'reply_to'], ['F', 'yess', 'yes please', 'TRUE']]);
    expect(form).toMatchObject({ enabled: false, approvalRequired: true });
    expect(form.problems).toEqual([
      'Config for form "F": enabled "yess" is neither yes nor no: tick the checkbox for yes, leave it empty for no; until it is fixed the form counts as not enabled (its deliveries are kept in Rejected)',
      'Config for form "F": approval_required "yes please" is neither yes nor no: tick the checkbox for yes, leave it empty for no; until it is fixed the form\'s replies wait for approval',
      'Config for form "F": reply_to "TRUE" is not an email address; write address(es) separated by commas, or leave it empty',
    ]);
  });

  it('no sheet content is no forms; a sheet without an enabled column enables every row; missing columns read as blank', () => {
    expect(formConfigsFromValues([])).toEqual([]);
    expect(formConfigsFromValues([['form_id'], ['F1'], [null]])).toEqual([blankFormConfig('F1')]);
  });

  it.each<[unknown, boolean]>([['TRUE', true], [' y ', true], ['On', true], ['1', true], ['✓', true], [1, true], [true, true], ['', false], ['no', false], ['yess', false], ['eyes', false], [null, false], [false, false], [0, false]])(
    'an enabled cell holding %j reads as %s', (cell, enabled) => {
      expect(formConfigsFromValues([['form_id', 'enabled'], ['F', cell]])[0].enabled).toBe(enabled);
    });
});

describe('configFor', () => {
  let star: ReturnType<typeof blankFormConfig>;
  beforeEach(() => {
    star = { ...blankFormConfig('*'), prompt: 'default prompt', model: 'm1', subject: 'S', approvalRequired: true };
  });

  it('a form\'s own row, with its blank cells filled from the `*` row', () => {
    const own = { ...blankFormConfig('F1'), prompt: 'own prompt', approvalRequired: false };
    expect(configFor('F1', [star, own])).toEqual({ ...own, model: 'm1', subject: 'S' });
  });

  it('a form without a row gets the `*` row under its own id, if that is enabled', () => {
    expect(configFor('F9', [star])).toEqual({ ...star, formId: 'F9' });
    expect(configFor('F9', [{ ...star, enabled: false }])).toBeNull();
    expect(configFor('F9', [])).toBeNull();
  });

  it('a form whose own row is disabled is off, whatever `*` says; without a `*` row its own row is all', () => {
    expect(configFor('F1', [star, { ...blankFormConfig('F1'), enabled: false }])).toBeNull();
    const own = { ...blankFormConfig('F1'), prompt: 'p' };
    expect(configFor('F1', [own])).toEqual(own);
  });
});

describe('error codes', () => {
  it('codedError carries its code and a stable name; codeOf reads it back', () => {
    const error = codedError('TEMPLATE_INVALID', 'bad');
    expect(error).toMatchObject({ name: 'FormqueueError', code: 'TEMPLATE_INVALID', message: 'bad' });
    expect(codeOf(error)).toBe('TEMPLATE_INVALID');
  });

  it.each<[string, unknown]>([['null', null], ['undefined', undefined], ['a string', 'TEMPLATE_INVALID'], ['an unknown code', { code: 'NOPE' }], ['a numeric code', { code: 500 }]])(
    'codeOf(%s) is no code', (_what, thrown) => expect(codeOf(thrown)).toBeUndefined());

  it('messageOf: an error\'s message, an object\'s message field, or the value as text', () => {
    expect(messageOf(new Error('boom'))).toBe('boom');
    expect(messageOf({ message: 42 })).toBe('42');
    expect(messageOf('plain')).toBe('plain');
    expect(messageOf(null)).toBe('null');
    expect(messageOf({ other: 1 })).toBe('[object Object]');
  });
});

describe('redact, at its edges', () => {
  it('a known secret of 6 characters is removed even inside a word; a shorter one inside a word is left (it would mangle text)', () => {
    expect(redact('key abcdef here', ['abcdef'])).toBe('key [redacted] here');
    expect(redact('keyabcdefhere', ['abcdef'])).toBe('key[redacted]here');
    expect(redact('keyabcdehere', ['abcde'])).toBe('keyabcdehere');
    expect(redact('x', ['', 'abcdef'])).toBe('x');
  });

  it('a kept value survives, unless it contains a known secret', () => {
    const url = 'https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF/edit';
    expect(redact(`see ${url} and ${url}`, [], [url])).toBe(`see ${url} and ${url}`);
    expect(redact(`see ${url}`, ['1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF'], [url])).toBe('see https://docs.google.com/spreadsheets/d/[redacted]/edit');
    expect(redact('nothing kept here', [], ['', 'absent'])).toBe('nothing kept here');
  });

  it('an opaque run: 32+ letters and digits in both cases is a secret; one case only needs 40', () => {
    const mixed = 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3'; // 33, both cases
    expect(redact(`t ${mixed}`)).toBe('t [redacted]');
    const lower39 = 'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t';
    const lower40 = `${lower39}u`;
    expect(redact(lower39)).toBe(lower39);
    expect(redact(lower40)).toBe('[redacted]');
  });

  it('letters only, short path segments or many separators are text, not secrets', () => {
    const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ';
    const path = 'aB3dE5fG7hJ9kL1mN3pQ5rS/tU9vW1xY3zA5bC7dE9';
    const kebab = 'aB3-dE5-fG7-hJ9-kL1-mN3-pQ5-rS7-tU9-vW1';
    expect(redact(letters)).toBe(letters);
    expect(redact(path)).toBe(path);
    expect(redact(kebab)).toBe(kebab);
  });

  it('errorSummary: CODE: message on one line, redacted, cut to the length with an ellipsis', () => {
    expect(errorSummary('CODE_BUG', ' line one\n\tline  two ', ['secret1'])).toBe('CODE_BUG: line one line two');
    expect(errorSummary('CODE_BUG', 'leaks secret1', ['secret1'])).toBe('CODE_BUG: leaks [redacted]');
    expect(errorSummary('CODE_BUG', 'x'.repeat(50), [], 20)).toBe(`CODE_BUG: ${'x'.repeat(9)}…`);
    expect(errorSummary('CODE_BUG', 'x'.repeat(10), [], 20)).toBe(`CODE_BUG: ${'x'.repeat(10)}`);
  });
});
