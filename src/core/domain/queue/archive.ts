// Which finished Queue rows move to the Archive sheet: those untouched for longer than ARCHIVE_AFTER_DAYS.
import type { QueueRow } from './queue-row';
import { MIN_ARCHIVE_AFTER_DAYS } from '../config/settings';
import { FINISHED_STATUSES } from './statuses';
import { DAY_MS } from '../time';

/** The last time anything happened to the row; null when it carries no time at all. */
export function lastActivity(row: QueueRow): number | null {
  const times = [row.updatedAt, row.sentAt, row.receivedAt].filter((time): time is number => time !== null);
  return times.length === 0 ? null : Math.max(...times);
}

/**
 * Finished rows (SENT, SKIPPED, DUPLICATE, TEST) whose last activity is more than `archiveAfterDays` old,
 * in sheet order. A row with no time at all stays: its age cannot be told. Never fewer than MIN_ARCHIVE_AFTER_DAYS:
 * intake's archiveMayHold counts on it.
 */
export function rowsToArchive(rows: readonly QueueRow[], now: number, archiveAfterDays: number): QueueRow[] {
  const cutoff = now - Math.max(archiveAfterDays, MIN_ARCHIVE_AFTER_DAYS) * DAY_MS;
  return rows.filter((row) => {
    if (!(FINISHED_STATUSES as readonly string[]).includes(String(row.status))) return false;
    const last = lastActivity(row);
    return last !== null && last < cutoff;
  });
}

/** How far Typeform's clock may be ahead of ours (submitted_at against our received_at) for archiveMayHold to hold. */
export const SUBMISSION_CLOCK_SKEW_MS = 60 * 60 * 1000;

/**
 * Whether the Archive may hold a submission Typeform says was made at `submittedAt` (its ISO 8601 submitted_at), so
 * intake's dedupe must look there. A row moves to the Archive only after at least MIN_ARCHIVE_AFTER_DAYS without
 * activity (rowsToArchive), and its activity includes its receipt, which comes after the submission: so every
 * archived submission is older than `now` − 1 day (give or take the clocks' skew). A first delivery, and Typeform's
 * retries (which end after 10 hours), are younger: the Archive cannot hold them, and intake saves the lookup (two
 * service calls on an empty Archive, six on one with rows). Unreadable times and times from the future are looked up.
 * The processing side still collapses a row whose keys are archived (processing/duplicates.ts), whatever intake did.
 */
export function archiveMayHold(submittedAt: string, now: number): boolean {
  const at = Date.parse(submittedAt);
  if (!Number.isFinite(at) || at > now + SUBMISSION_CLOCK_SKEW_MS) return true;
  return at <= now - MIN_ARCHIVE_AFTER_DAYS * DAY_MS + SUBMISSION_CLOCK_SKEW_MS;
}
