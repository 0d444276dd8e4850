// What a staff move does to a row besides its status: one function shared by the on-edit guard and the menu actions.
import { STAFF_MOVE_WORDS, staffMoveRefusal } from '../domain/queue/transitions';
import { hasBeenMailed } from '../domain/mail/mail-guard';
import type { LogEntry } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { withLedgerFacts } from '../domain/mail/send-ledger';
import { isStatus, type Status } from '../domain/queue/statuses';
import { logLineOf } from '../domain/queue/submission-identity';

export interface StaffContext {
  /** The staff member's email; Sheets leaves it empty for people outside the owner's domain. */
  user: string;
  now: number;
}

export type MoveDecision = { ok: true; row: QueueRow; log: LogEntry } | { ok: false; reason: string };

/** How staff are named in Log and notes when Sheets does not tell us who they are. */
export function staffName(user: string): string {
  const trimmed = String(user ?? '').trim();
  return trimmed === '' ? 'staff (unknown)' : trimmed;
}

/** What staff typed, as a status if it is one ("approved " → APPROVED); null for anything else. */
export function parseStatus(value: unknown): Status | null {
  const text = String(value).trim().toUpperCase();
  return isStatus(text) ? text : null;
}

/**
 * The row after staff move it from `from` to `to`, with its Log entry, or why the move is refused.
 * `from` is passed apart from `row.status` because an on-edit trigger sees the cell after the edit.
 */
export function decideStaffMove(row: QueueRow, from: string, to: string, context: StaffContext): MoveDecision {
  const target = parseStatus(to);
  if (target === null) {
    return { ok: false, reason: `"${to}" is not a formqueue status; pick one from the dropdown` };
  }
  const refusal = staffMoveRefusal(from, target);
  if (refusal !== null) return { ok: false, reason: refusal };
  if (target === 'APPROVED' && row.result.trim() === '') {
    return { ok: false, reason: 'result is empty: there is no reply to approve' };
  }
  const by = staffName(context.user);
  const next: QueueRow = { ...row, status: target, updatedAt: context.now };
  let detail = STAFF_MOVE_WORDS[target]?.log(by) ?? 'moved by staff';
  if (target === 'PENDING') {
    next.attempts = 0;
    next.nextAttemptAt = null;
    next.claimedAt = null;
    next.error = '';
    // A retry is the person's explicit decision to write and mail a new reply, even after one went out: sent_at
    // is cleared with it, and this Log line settles the earlier send claim (mail-guard.ts, standingSendClaim).
    next.sentAt = null;
    if (hasBeenMailed(row)) detail += `; a reply was already mailed at ${new Date(row.sentAt as number).toISOString()}, and a new one will be`;
    if (row.error !== '') detail += `; last error was: ${row.error}`;
  }
  if (target === 'SENT') {
    // Keep a real send time if one was recorded; otherwise the time of the check.
    next.sentAt = row.sentAt ?? context.now;
    next.claimedAt = null;
    // The ledger's record of this send (send-ledger.ts), as for one formqueue made itself.
    detail = withLedgerFacts(detail, { mailRef: row.mailRef || undefined, sentAt: next.sentAt });
  }
  // `from` is a status here: the table refuses every move from an empty or unknown one.
  const log: LogEntry = logLineOf(row, { at: context.now, from, to: target, by, detail });
  return { ok: true, row: next, log };
}
