// "Accept rejected delivery": what staff are told, from what intake answered; it says what happened, never more.
import { clip } from '../domain/typeform/delivery-limits';
import type { IntakeAnswer } from './intake';

/** What accepting one Rejected body came to, as the menu item saw it. */
export type AcceptOutcome =
  /** The body is not a delivery intake could read (too large, too deep, not Typeform's JSON). */
  | { kind: 'unreadable'; reason: string }
  /** The intake lock stayed busy. */
  | { kind: 'busy' }
  /** storeDelivery threw (Sheets failing, a missing sheet): nothing was written by it. */
  | { kind: 'failed'; message: string }
  /** Intake's own answer for the delivery. */
  | { kind: 'answered'; answer: IntakeAnswer; eventId: string; formId: string };

export interface AcceptAlert {
  /** The delivery is in Queue now (added, or already there). */
  ok: boolean;
  message: string;
}

const AGAIN = 'Not queued — rejected again';
const NEW_ROW = 'The Rejected sheet has a new row for it.';

/**
 * The alert text. Intake answers `ok` for a partial response (Typeform must not retry it) although nothing was queued,
 * so "added to Queue" is said only for an answer that queued it: every other answer says where the delivery is.
 */
export function acceptAlert(outcome: AcceptOutcome): AcceptAlert {
  switch (outcome.kind) {
    case 'unreadable':
      return { ok: false, message: `This body cannot be queued: ${outcome.reason}.` };
    case 'busy':
      return { ok: false, message: 'The queue is busy; try again in a minute.' };
    case 'failed':
      return { ok: false, message: `Not queued: ${outcome.message}` };
    case 'answered':
      return answeredAlert(outcome.answer, clip(outcome.eventId), clip(outcome.formId));
  }
}

function answeredAlert(answer: IntakeAnswer, eventId: string, formId: string): AcceptAlert {
  if (answer.queued === true) return { ok: true, message: `Event ${eventId} was added to Queue as ${answer.test ? 'TEST' : 'PENDING'}.` };
  if (answer.queued === 'deferred') return { ok: true, message: `Event ${eventId} is kept in Script Properties until the sheet takes it; the next run moves it into Queue.` };
  if (answer.duplicate) return { ok: true, message: `Nothing added: event ${eventId} is already in Queue or Archive (the same event_id or response token).` };
  if (answer.partial) {
    return {
      ok: false,
      message: `${AGAIN}: event ${eventId} is a partial response (form_response_partial): the respondent had not finished the form, so it is never answered; the finished response arrives as its own delivery. ${NEW_ROW}`,
    };
  }
  switch (answer.error) {
    case 'unknown_form':
      return { ok: false, message: `${AGAIN}: unknown form: the Config sheet does not enable form "${formId}". Enable it there, then accept this row again. ${NEW_ROW}` };
    case 'field_too_large':
      return { ok: false, message: `${AGAIN}: field too large: an id or the recipient is longer than formqueue keeps (the new row's reason names which), so it cannot be queued as it is. ${NEW_ROW}` };
    default:
      return { ok: false, message: `${AGAIN}: ${answer.error ?? 'no reason given'}. ${NEW_ROW}` };
  }
}
