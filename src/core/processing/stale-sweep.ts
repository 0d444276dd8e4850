// Rows left in flight by a run that died, treated by their side effect (docs/states.md).
import { standingSendClaim } from '../domain/mail/mail-guard';
import type { LogEntry } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { ABOUT_TO_SEND, factsOf } from '../domain/mail/send-ledger';
import type { Settings } from '../domain/config/settings';
import type { Status } from '../domain/queue/statuses';
import { MINUTE_MS } from '../domain/time';

export interface StaleFinding {
  row: QueueRow;
  to: Status;
  reason: string;
}

/**
 * When the row's claim stops being trusted (epoch ms); null when the row holds no claim. A claim without a
 * time is stale at once (-Infinity): nobody can prove it is alive. The sweep and the tick gate's wake-up both use this.
 */
export function staleDeadline(row: Pick<QueueRow, 'status' | 'claimedAt'>, settings: StaleLimits): number | null {
  const limitMinutes =
    row.status === 'GENERATING' ? settings.staleGeneratingMinutes : row.status === 'SENDING' ? settings.staleSendingMinutes : null;
  if (limitMinutes === null) return null;
  return row.claimedAt === null ? -Infinity : row.claimedAt + limitMinutes * MINUTE_MS;
}

export function isStale(row: Pick<QueueRow, 'status' | 'claimedAt'>, now: number, settings: StaleLimits): boolean {
  const deadline = staleDeadline(row, settings);
  return deadline !== null && deadline <= now;
}

type StaleLimits = Pick<Settings, 'staleGeneratingMinutes' | 'staleSendingMinutes'>;

/**
 * GENERATING past its limit → PENDING (Gemini has no outside effect; attempts are kept so a row that kills
 * runs still reaches MAX_ATTEMPTS). SENDING past its limit → NEEDS_REVIEW: the mail may have gone, so only a
 * person may decide to send again. A claim without a time counts as stale: nobody can prove it is alive.
 */
export function findStaleRows(
  rows: readonly QueueRow[],
  now: number,
  settings: StaleLimits,
  /** RECONCILE_SENT_MAIL: a stale SENDING row is left to the Sent check (sent-check-step.ts), which settles it. */
  sentCheckOn = false,
): StaleFinding[] {
  const findings: StaleFinding[] = [];
  for (const row of rows) {
    if (!isStale(row, now, settings)) continue;
    if (row.status === 'GENERATING') {
      findings.push({ row, to: 'PENDING', reason: `generation claimed ${minutesAgo(row, now)} never finished; it will be tried again` });
    }
    if (row.status === 'SENDING' && !(sentCheckOn && row.mailRef !== '')) {
      findings.push({
        row,
        to: 'NEEDS_REVIEW',
        reason:
          `sending started ${minutesAgo(row, now)} and its outcome was never recorded: the mail may or may not have ` +
          'reached the person. Check, then set SENT (it arrived) or PENDING (write and send a new reply); it is never resent automatically',
      });
    }
  }
  return findings;
}

function minutesAgo(row: QueueRow, now: number): string {
  return row.claimedAt === null ? 'at an unknown time' : `${Math.round((now - row.claimedAt) / MINUTE_MS)} min ago`;
}

/**
 * Where a stale SENDING row goes back to when the Log proves it was never mailed: its standing claim was made by a run
 * that marks each mail before it goes (`marked`), and no ABOUT_TO_SEND line follows the claim. Null when the mail may
 * have gone (the mark is there, or the claim predates marking): then a person decides, as before.
 */
export function neverMailedBack(history: readonly LogEntry[]): 'READY' | 'APPROVED' | null {
  const claim = standingSendClaim(history);
  if (claim === null || !factsOf(claim.detail).marked) return null;
  if (history.some((entry) => entry.by === 'system' && entry.detail === ABOUT_TO_SEND && entry.at >= claim.at)) return null;
  return claim.from === 'READY' || claim.from === 'APPROVED' ? claim.from : null;
}
