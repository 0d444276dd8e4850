// Who a submission is (form id + response token), whichever path it came by, and the Log line that names it.
import { describe, expect, it } from 'vitest';
import { isSubmissionIdentity, logLineOf, submissionIdentity } from '../../../../src/core/domain/queue/submission-identity';

describe('a submission’s identity', () => {
  it.each([
    // [what, formId, responseToken, identity]
    ['form id and token', 'Wr1tE5sy', 'tok1', 'tf:Wr1tE5sy:tok1'],
    ['spaces around either are not part of it (a pasted cell)', '  Wr1tE5sy ', ' tok1\t', 'tf:Wr1tE5sy:tok1'],
    ['no token: nothing to know it by but event_id', 'Wr1tE5sy', '', ''],
    ['a token of spaces is no token', 'Wr1tE5sy', '   ', ''],
    ['no form id', '', 'tok1', ''],
    ['a form id of spaces is no form id', ' ', 'tok1', ''],
  ])('%s', (_what, formId, responseToken, identity) => {
    expect(submissionIdentity({ formId, responseToken })).toBe(identity);
  });

  it('reads back as an identity; an event id, a number or a date does not', () => {
    expect(isSubmissionIdentity(submissionIdentity({ formId: 'f', responseToken: 't' }))).toBe(true);
    for (const other of ['01BEN000000000000000000001', 'reconciled:t', '42', '2026-12-02', '', ' tf:f:t']) expect(isSubmissionIdentity(other)).toBe(false);
  });
});

describe('a Log line about a row', () => {
  const line = { at: 1, from: 'PENDING', to: 'SENT', by: 'system', detail: 'sent' } as const;

  it('names the row by event_id and by identity when it has a token', () => {
    expect(logLineOf({ eventId: 'evt-1', formId: 'f', responseToken: 't' }, line)).toEqual({ ...line, eventId: 'evt-1', submission: 'tf:f:t' });
  });

  it('names it by event_id alone, with no submission field, when it has no token', () => {
    const written = logLineOf({ eventId: 'evt-1', formId: 'f', responseToken: ' ' }, line);
    expect(written).toEqual({ ...line, eventId: 'evt-1' });
    expect('submission' in written).toBe(false);
  });
});
