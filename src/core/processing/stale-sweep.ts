// Rows left in flight by a run that died, treated by their side effect (docs/states.md).
import type { QueueRow } from '../queue-row';
import type { Settings } from '../settings';
import type { Status } from '../statuses';

export interface StaleFinding {
  row: QueueRow;
  to: Status;
  reason: string;
}

const MINUTE_MS = 60_000;

/**
 * GENERATING past its limit → PENDING (Gemini has no outside effect; attempts are kept so a row that kills
 * runs still reaches MAX_ATTEMPTS). SENDING past its limit → NEEDS_REVIEW: the mail may have gone, so only a
 * person may decide to send again. A claim without a time counts as stale: nobody can prove it is alive.
 */
export function findStaleRows(
  rows: readonly QueueRow[],
  now: number,
  settings: Pick<Settings, 'staleGeneratingMinutes' | 'staleSendingMinutes'>,
): StaleFinding[] {
  const findings: StaleFinding[] = [];
  for (const row of rows) {
    const claimedAt = row.claimedAt ?? -Infinity;
    if (row.status === 'GENERATING' && claimedAt <= now - settings.staleGeneratingMinutes * MINUTE_MS) {
      findings.push({ row, to: 'PENDING', reason: `generation claimed ${minutesAgo(row, now)} never finished; it will be tried again` });
    }
    if (row.status === 'SENDING' && claimedAt <= now - settings.staleSendingMinutes * MINUTE_MS) {
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
