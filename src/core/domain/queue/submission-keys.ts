// What makes two rows the same submission: the same event_id or the same response token, one rule for intake's dedupe, duplicate collapse and the Archive.
import type { QueueRow } from './queue-row';

/** The Queue and Archive columns that identify a submission, in the order intake looks them up. */
export const SUBMISSION_KEY_COLUMNS = ['event_id', 'response_token'] as const;

export type SubmissionKeyColumn = (typeof SUBMISSION_KEY_COLUMNS)[number];

/** A row's keys with the column each is in; a blank one identifies nothing and is left out. */
export function submissionKeys(row: Pick<QueueRow, 'eventId' | 'responseToken'>): { column: SubmissionKeyColumn; value: string }[] {
  const keys: { column: SubmissionKeyColumn; value: string }[] = [
    { column: 'event_id', value: row.eventId.trim() },
    { column: 'response_token', value: row.responseToken.trim() },
  ];
  return keys.filter((key) => key.value !== '');
}

/** One string per key, column included: an event_id never matches a response token. */
export function keyStrings(row: Pick<QueueRow, 'eventId' | 'responseToken'>): string[] {
  return submissionKeys(row).map((key) => `${key.column}:${key.value}`);
}

/** True when the two rows share a key: a redelivery of the same event, or the same response delivered again. */
export function isSameSubmission(a: Pick<QueueRow, 'eventId' | 'responseToken'>, b: Pick<QueueRow, 'eventId' | 'responseToken'>): boolean {
  const theirs = new Set(keyStrings(b));
  return keyStrings(a).some((key) => theirs.has(key));
}
