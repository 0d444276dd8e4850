// Who a submission is: Typeform's response (form id + response token), the one identity every path resolves to.
import type { LogEntry } from '../sheet-ports';
import type { QueueRow } from './queue-row';

/** Every identity starts with this, so it can never be read as an event id, a number, a date or a formula. */
const IDENTITY_PREFIX = 'tf:';

/**
 * A submission's identity: `tf:<form id>:<response token>`. Typeform gives each response one token, whichever way it
 * reaches us (a webhook delivery and its retries, the Responses API, a Rejected row staff accept, a staff copy of the
 * row), while `event_id` names one delivery. '' when the row carries no token (nothing to know it by but event_id).
 */
export function submissionIdentity(row: Pick<QueueRow, 'formId' | 'responseToken'>): string {
  const formId = row.formId.trim();
  const token = row.responseToken.trim();
  return formId === '' || token === '' ? '' : `${IDENTITY_PREFIX}${formId}:${token}`;
}

/** True for a value written by submissionIdentity (a Log or Journal cell), false for an event id. */
export function isSubmissionIdentity(value: string): boolean {
  return value.startsWith(IDENTITY_PREFIX);
}

/** A Log line about `row`: its event_id, and its identity when it has one (the send ledger finds the line by either). */
export function logLineOf(row: Pick<QueueRow, 'eventId' | 'formId' | 'responseToken'>, line: Omit<LogEntry, 'eventId' | 'submission'>): LogEntry {
  const submission = submissionIdentity(row);
  return submission === '' ? { ...line, eventId: row.eventId } : { ...line, eventId: row.eventId, submission };
}
