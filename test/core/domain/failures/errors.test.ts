// Errors carry a stable code, and everything that classifies a thrown value reads the code or, for Apps Script's own errors, the message.
import { describe, expect, it } from 'vitest';
import { codedError, codeOf, isSheetsOutage, messageOf } from '../../../../src/core/domain/failures/errors';

describe('codedError and codeOf', () => {
  it('a coded error keeps its code, its message and a name of its own', () => {
    const error = codedError('CONFIG_INVALID', 'Config row 3 has no form_id');
    expect(error).toBeInstanceOf(Error);
    expect({ name: error.name, code: error.code, message: error.message }).toEqual({ name: 'FormqueueError', code: 'CONFIG_INVALID', message: 'Config row 3 has no form_id' });
    expect(codeOf(error)).toBe('CONFIG_INVALID');
  });

  it.each<[string, unknown]>([
    ['an Error without a code', new Error('boom')],
    ['a code that is none of ours', Object.assign(new Error('x'), { code: 'ENOENT' })],
    ['a plain object with a foreign code', { code: 42 }],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'SHEETS_UNAVAILABLE'],
  ])('%s has no code (a code bug unless a classifier says otherwise)', (_what, thrown) => {
    expect(codeOf(thrown)).toBeUndefined();
  });

  it('a code from another realm counts: classification never asks instanceof', () => {
    expect(codeOf({ name: 'Error', message: 'm', code: 'SHEETS_UNAVAILABLE' })).toBe('SHEETS_UNAVAILABLE');
  });
});

describe('messageOf', () => {
  it.each<[string, unknown, string]>([
    ['an Error', new Error('disk full'), 'disk full'],
    ['an object with a message', { message: 404 }, '404'],
    ['a string', 'plain text thrown', 'plain text thrown'],
    ['null', null, 'null'],
    ['undefined', undefined, 'undefined'],
    ['a number', 7, '7'],
  ])('%s', (_what, thrown, message) => {
    expect(messageOf(thrown)).toBe(message);
  });
});

describe('isSheetsOutage: Apps Script names a failing spreadsheet service only in the message', () => {
  it.each([
    'Service Spreadsheets failed while accessing document with id 1abc.',
    'Exception: Error code INTERNAL. Please try again later.',
    'Service error: Spreadsheets',
    'Exception: Service Spreadsheets timed out while accessing document with id 1abc.',
    'Exception: Service unavailable: Spreadsheets',
    "We're sorry, a server error occurred. Please wait a bit and try again.",
    'Exception: Service invoked too many times in a short time: spreadsheets. Try Utilities.sleep(1000) between calls.',
    'Exception: Service invoked too many times in a short time: sheets',
  ])('"%s" is an outage', (message) => {
    expect(isSheetsOutage(new Error(message))).toBe(true);
  });

  it('our own SHEETS_UNAVAILABLE is an outage whatever its message', () => {
    expect(isSheetsOutage(codedError('SHEETS_UNAVAILABLE', 'the Queue could not be read'))).toBe(true);
  });

  it.each([
    new Error("TypeError: Cannot read properties of undefined (reading 'getRange')"),
    codedError('CONFIG_INVALID', 'Config row 3 has no form_id'),
    new Error('Exception: Service invoked too many times for one day: urlfetch.'),
    'a string that names no service',
  ])('%s is no outage (a code bug or another service)', (thrown) => {
    expect(isSheetsOutage(thrown)).toBe(false);
  });
});
