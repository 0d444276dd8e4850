// The one "not before" rule: the earliest time a waiting row may take its next step (a retry's back-off, its form's send window).
import { windowOpensAt, type LocalClock, type SendHours } from '../mail/send-window';
import type { QueueRow } from './queue-row';
import type { Status } from './statuses';

/** What a row may wait for besides its own back-off: its form's send window, read in the form's clock. */
export interface RowWaits {
  window?: { hours: SendHours | null; clock: LocalClock };
}

/** Until when a row waits, and why (the outcome table's `waits` column names the same). */
export interface NotBefore {
  at: number;
  reason: 'back-off' | 'send window';
}

/**
 * The states a send window holds: the two that ask for a mail, and SENDING, whose claim is checked again right before
 * its mail (a window may close between the claim and the mail: send-step.ts).
 */
const WINDOWED: readonly Status[] = ['READY', 'APPROVED', 'SENDING'];

/**
 * When the row may take its next step, or null when it may now. PENDING waits for `next_attempt_at` (back-off after
 * a retryable failure); a row about to be mailed waits for its form's send window to open. Generation never waits
 * for the window: a reply written at night is ready when the window opens.
 */
export function notBefore(row: Pick<QueueRow, 'status' | 'nextAttemptAt'>, now: number, waits: RowWaits = {}): NotBefore | null {
  if (row.status === 'PENDING') {
    const until = row.nextAttemptAt ?? now; // never failed: due now
    return until > now ? { at: until, reason: 'back-off' } : null;
  }
  if (waits.window !== undefined && (WINDOWED as readonly string[]).includes(row.status)) {
    const at = windowOpensAt(waits.window.hours, now, waits.window.clock);
    return at === null ? null : { at, reason: 'send window' };
  }
  return null;
}
