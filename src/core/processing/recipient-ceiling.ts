// The ceiling on new recipients: how many distinct addresses never mailed before may be mailed in a rolling hour and day.
import type { QueueRow } from '../domain/queue/queue-row';
import { DAY_MS, HOUR_MS } from '../domain/time';
import { mailboxOf } from '../domain/mail/mail-addresses';

/** A row as the ceiling reads it: who, and whether (and when) a mail to them went or may have gone. */
export type CeilingRow = Pick<QueueRow, 'recipient' | 'sentAt'> & Partial<Pick<QueueRow, 'status' | 'claimedAt' | 'mailRef' | 'updatedAt'>>;

/**
 * A mail that may have left without its sent_at: a run killed right after the send leaves the row SENDING (its claim
 * time), and the stale sweep then makes it NEEDS_REVIEW with its mail_ref kept (the time of that move, later than the
 * send). The ceiling is an abuse guard: such an address takes room, or one stranger more would be mailed in the hour.
 */
function mayHaveBeenMailedAt(row: CeilingRow): number | null {
  if (row.status === 'SENDING') return row.claimedAt ?? row.updatedAt ?? null;
  if (row.status === 'NEEDS_REVIEW' && (row.mailRef ?? '') !== '') return row.updatedAt ?? row.claimedAt ?? null;
  return null;
}

/** When each mailbox was first mailed, or may have been, as far as the Queue shows (A@x, a@x and a+tag@x are one mailbox). */
export function firstMailedAt(rows: readonly CeilingRow[]): Map<string, number> {
  const first = new Map<string, number>();
  for (const row of rows) {
    const at = row.sentAt ?? mayHaveBeenMailedAt(row);
    if (at === null) continue;
    const mailbox = mailboxOf(row.recipient);
    const known = first.get(mailbox);
    if (known === undefined || at < known) first.set(mailbox, at);
  }
  return first;
}

export interface CeilingLimits {
  perHour: number;
  perDay: number;
}

export type CeilingVerdict = 'known' | 'room' | 'hour' | 'day';

/**
 * Whether a mail to `mailbox` may go now. An address the Queue shows mailed before (or one this run already counted)
 * is not new: the per-recipient limit governs it. A new one takes room only while the distinct new addresses of the
 * rolling hour and day, with the ones this run has planned, stay under the ceilings. A flood of submissions naming
 * strangers (the public form used as a relay) stops there, whatever each one says.
 */
export function ceilingVerdict(first: ReadonlyMap<string, number>, planned: ReadonlySet<string>, mailbox: string, now: number, limits: CeilingLimits): CeilingVerdict {
  if (first.has(mailbox) || planned.has(mailbox)) return 'known';
  const newSince = (since: number) => {
    const fresh = new Set(planned);
    for (const [box, at] of first) if (at > since) fresh.add(box);
    return fresh.size;
  };
  if (newSince(now - HOUR_MS) >= limits.perHour) return 'hour';
  if (newSince(now - DAY_MS) >= limits.perDay) return 'day';
  return 'room';
}
