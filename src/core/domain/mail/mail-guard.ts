// Whether a Queue row may be mailed: the one rule every step that sends, collapses, retries or wakes for a send asks.
import type { LogEntry } from '../sheet-ports';
import type { QueueRow } from '../queue/queue-row';
import { inTimeOrder } from './send-ledger';
import type { Status } from '../queue/statuses';
import { suppressedDetail, suppressionOf, type SuppressedEntry } from './suppression';

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

/**
 * Moves out of SENDING that say nothing left: the mail quota refused the send, the platform refused the address,
 * or the template broke after the claim. Any other end of a claim (SENT, NEEDS_REVIEW) may have mailed.
 */
const NOTHING_LEFT_FROM_SENDING: readonly string[] = ['READY', 'APPROVED', 'FAILED'];

/**
 * The record independent of the row's cells: a SENDING claim in the Log that no later line settles. A claim is
 * settled by the system saying nothing left (SENDING → READY, APPROVED or FAILED, or NEEDS_REVIEW → READY or APPROVED
 * after the Sent check found no copy twice) or by a person asking for a new
 * reply (their move to PENDING). While a claim stands the submission is never mailed again, whatever its
 * `status` and `sent_at` cells say now (a paste, a cleared sent_at). Lines are taken in time order, as staff may
 * sort the Log.
 */
export function standingSendClaim(history: readonly LogEntry[]): LogEntry | null {
  let claim: LogEntry | null = null;
  for (const entry of inTimeOrder(history)) {
    const bySystem = entry.by === 'system';
    if (bySystem && entry.to === 'SENDING' && entry.from !== 'SENDING') claim = entry;
    else if (bySystem && entry.from === 'SENDING' && NOTHING_LEFT_FROM_SENDING.includes(entry.to)) claim = null;
    // The system moves NEEDS_REVIEW back to READY/APPROVED only when two looks found no copy in Sent (RECONCILE_RESEND).
    else if (bySystem && entry.from === 'NEEDS_REVIEW' && asksToBeMailed({ status: entry.to })) claim = null;
    else if (!bySystem && entry.to === 'PENDING' && entry.from !== 'PENDING') claim = null;
  }
  return claim;
}

/**
 * The standing claim whose mail outcome nobody recorded: no system line after it says SENT. Null when no claim
 * stands or when the Log says the claim was mailed (a row then pasted back to NEEDS_REVIEW is not unknown).
 */
export function unrecordedSendClaim(history: readonly LogEntry[]): LogEntry | null {
  const claim = standingSendClaim(history);
  if (claim === null) return null;
  const mailed = history.some((entry) => entry.by === 'system' && entry.to === 'SENT' && entry.at >= claim.at);
  return mailed ? null : claim;
}

/**
 * Why the row must not be mailed to its recipient even though it may be mailed otherwise: the address is on the
 * suppression list (a bounce, or a person who asked us to stop). Null when the list allows it. Every send asks this
 * right before its claim and again right before its mail, so no path mails a suppressed address.
 */
export function suppressedReason(row: Pick<QueueRow, 'recipient'>, suppressed: ReadonlyMap<string, SuppressedEntry>): string | null {
  const entry = suppressionOf(row.recipient, suppressed);
  return entry === null ? null : suppressedDetail(row.recipient.trim(), entry);
}
