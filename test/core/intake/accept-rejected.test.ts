// "Accept rejected delivery" tells what happened: queued, already there, or rejected again and why; never "added" when it was not.
import { describe, expect, it } from 'vitest';
import type { IntakeAnswer } from '../../../src/core/intake/intake';
import { acceptAlert, type AcceptOutcome } from '../../../src/core/intake/accept-rejected';

const EVENT = '01JQ8ZK4W6E2V1RZ5T3N8M0B7C';
const answered = (answer: IntakeAnswer): AcceptOutcome => ({ kind: 'answered', answer, eventId: EVENT, formId: 'Wr1tE5sy' });
const NEW_ROW = 'The Rejected sheet has a new row for it.';

describe('acceptAlert', () => {
  it.each<[string, AcceptOutcome, boolean, string]>([
    ['queued', answered({ ok: true, queued: true, event_id: EVENT }), true, `Event ${EVENT} was added to Queue as PENDING.`],
    ['queued as a test delivery', answered({ ok: true, queued: true, test: true, event_id: EVENT }), true, `Event ${EVENT} was added to Queue as TEST.`],
    ['kept in the spill', answered({ ok: true, queued: 'deferred', event_id: EVENT }), true, `Event ${EVENT} is kept in Script Properties until the sheet takes it; the next run moves it into Queue.`],
    ['already in Queue or Archive', answered({ ok: true, duplicate: true, event_id: EVENT }), true, `Nothing added: event ${EVENT} is already in Queue or Archive (the same event_id or response token).`],
    [
      'a partial response: intake answers ok, yet nothing was queued',
      answered({ ok: true, partial: true, event_id: EVENT }),
      false,
      `Not queued — rejected again: event ${EVENT} is a partial response (form_response_partial): the respondent had not finished the form, so it is never answered; the finished response arrives as its own delivery. ${NEW_ROW}`,
    ],
    [
      'an unknown form',
      answered({ ok: false, error: 'unknown_form', event_id: EVENT }),
      false,
      `Not queued — rejected again: unknown form: the Config sheet does not enable form "Wr1tE5sy". Enable it there, then accept this row again. ${NEW_ROW}`,
    ],
    [
      'a field too large',
      answered({ ok: false, error: 'field_too_large', event_id: EVENT }),
      false,
      `Not queued — rejected again: field too large: an id or the recipient is longer than formqueue keeps (the new row's reason names which), so it cannot be queued as it is. ${NEW_ROW}`,
    ],
    ['another error intake names', answered({ ok: false, error: 'internal_error', event_id: EVENT }), false, `Not queued — rejected again: internal_error. ${NEW_ROW}`],
    ['a refusal intake gave no reason for', answered({ ok: false, event_id: EVENT }), false, `Not queued — rejected again: no reason given. ${NEW_ROW}`],
    ['a body intake cannot read', { kind: 'unreadable', reason: 'the body has no event_id' }, false, 'This body cannot be queued: the body has no event_id.'],
    ['the intake lock busy', { kind: 'busy' }, false, 'The queue is busy; try again in a minute.'],
    ['storing failed', { kind: 'failed', message: 'Service Spreadsheets failed' }, false, 'Not queued: Service Spreadsheets failed'],
  ])('%s', (_case, outcome, ok, message) => {
    expect(acceptAlert(outcome)).toEqual({ ok, message });
  });

  it('an event id or form id a hostile body made huge is cut in the alert', () => {
    const { message } = acceptAlert({ kind: 'answered', answer: { ok: false, error: 'unknown_form' }, eventId: 'e', formId: 'f'.repeat(5000) });
    expect(message.length).toBeLessThan(400);
    expect(message).toContain('… (5,000 characters)');
  });
});
