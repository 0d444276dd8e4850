// Whether a Queue row may be mailed: the one rule every step that sends, collapses, retries or wakes for a send asks.
import type { QueueRow } from './queue-row';
import type { Status } from './statuses';

/** The states in which a row asks to be mailed. */
export const SENDABLE_STATUSES: readonly Status[] = ['READY', 'APPROVED'];

/**
 * A filled `sent_at` cannot lie: the row was mailed once, and nothing mails it again, whatever its status says.
 * Only a person clearing `sent_at` by hand undoes it.
 */
export function hasBeenMailed(row: Pick<QueueRow, 'sentAt'>): boolean {
  return row.sentAt !== null;
}

/** The status asks for a send (READY or APPROVED), whether or not `sent_at` allows it. */
export function asksToBeMailed(row: Pick<QueueRow, 'status'>): boolean {
  return (SENDABLE_STATUSES as readonly string[]).includes(row.status);
}

/** The row may be mailed now: its status asks for it and it was never mailed. */
export function isMailable(row: Pick<QueueRow, 'status' | 'sentAt'>): boolean {
  return asksToBeMailed(row) && !hasBeenMailed(row);
}

/** The status asks for a send, but `sent_at` says it already went: a person must look (ALREADY_SENT). */
export function isMailedButUnsent(row: Pick<QueueRow, 'status' | 'sentAt'>): boolean {
  return asksToBeMailed(row) && hasBeenMailed(row);
}
