// Which finished Queue rows move to the Archive sheet: those untouched for longer than ARCHIVE_AFTER_DAYS.
import type { QueueRow } from '../queue-row';
import { FINISHED_STATUSES } from '../statuses';
import { DAY_MS } from '../time';

/** The last time anything happened to the row; null when it carries no time at all. */
export function lastActivity(row: QueueRow): number | null {
  const times = [row.updatedAt, row.sentAt, row.receivedAt].filter((time): time is number => time !== null);
  return times.length === 0 ? null : Math.max(...times);
}

/**
 * Finished rows (SENT, SKIPPED, DUPLICATE, TEST) whose last activity is more than `archiveAfterDays` old,
 * in sheet order. A row with no time at all stays: its age cannot be told.
 */
export function rowsToArchive(rows: readonly QueueRow[], now: number, archiveAfterDays: number): QueueRow[] {
  const cutoff = now - archiveAfterDays * DAY_MS;
  return rows.filter((row) => {
    if (!(FINISHED_STATUSES as readonly string[]).includes(String(row.status))) return false;
    const last = lastActivity(row);
    return last !== null && last < cutoff;
  });
}
