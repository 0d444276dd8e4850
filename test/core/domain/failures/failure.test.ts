// What a run that ended in an error raises: which incident, and the detail the triage mail carries (redacted, a bug's stack cut).
import { describe, expect, it } from 'vitest';
import { codedError } from '../../../../src/core/domain/failures/errors';
import { failureIncident } from '../../../../src/core/domain/failures/failure';

const SECRET = 'AIzaSyTESTKEY0123456789abcdefghij';
const withStack = (message: string, stack: unknown) => Object.assign(new TypeError(message), { stack });

describe('failureIncident', () => {
  it.each<[string, unknown, ReturnType<typeof failureIncident>]>([
    ['a Sheets outage, by its message', new Error(`Service Spreadsheets failed while accessing document with id ${SECRET}`),
      { failure: 'sheets-unavailable', code: 'SHEETS_UNAVAILABLE', detail: 'Service Spreadsheets failed while accessing document with id [redacted]' }],
    ['a Sheets outage, by its code', codedError('SHEETS_UNAVAILABLE', 'the Queue could not be read'),
      { failure: 'sheets-unavailable', code: 'SHEETS_UNAVAILABLE', detail: 'the Queue could not be read' }],
    ['a missing sheet: setup staff can repair, with the message and no stack', codedError('CONFIG_MISSING', `the Queue sheet is missing (key ${SECRET})`),
      { failure: 'config-missing', code: 'CONFIG_MISSING', detail: 'the Queue sheet is missing (key [redacted])' }],
    ['a bug: its stack, redacted', withStack('x is undefined', `TypeError: x is undefined\n    at sendOne (Code:12:3) ${SECRET}`),
      { failure: 'code-bug', code: 'CODE_BUG', detail: 'processQueue: TypeError: x is undefined\n    at sendOne (Code:12:3) [redacted]' }],
    ['a bug with an empty stack: its message', withStack('x is undefined', ''), { failure: 'code-bug', code: 'CODE_BUG', detail: 'processQueue: x is undefined' }],
    ['a bug whose stack is no text: its message', withStack('x is undefined', 42), { failure: 'code-bug', code: 'CODE_BUG', detail: 'processQueue: x is undefined' }],
    ['a thrown string', 'boom', { failure: 'code-bug', code: 'CODE_BUG', detail: 'processQueue: boom' }],
    ['a thrown null', null, { failure: 'code-bug', code: 'CODE_BUG', detail: 'processQueue: null' }],
    ['an error with a code that is not one of ours', Object.assign(new Error('nope'), { code: 'CONFIG_MISSINGX', stack: '' }), { failure: 'code-bug', code: 'CODE_BUG', detail: 'processQueue: nope' }],
  ])('%s', (_name, error, expected) => {
    expect(failureIncident(error, [SECRET])).toEqual(expected);
  });

  it('a bug\'s stack is cut at 2,000 characters, an outage\'s message is not', () => {
    const long = 'x'.repeat(2500);
    expect(failureIncident(withStack('long', long), []).detail).toBe(`processQueue: ${'x'.repeat(2000)}`);
    expect(failureIncident(withStack('long', 'y'.repeat(2000)), []).detail).toBe(`processQueue: ${'y'.repeat(2000)}`);
    expect(failureIncident(new Error(`Service Spreadsheets timed out ${long}`), []).detail).toHaveLength(31 + 2500);
  });
});
