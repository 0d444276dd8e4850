// processQueue's first step: spilled deliveries go into Queue in arrival order, through the same rules as doPost.
import { messageOf } from '../errors';
import { INTAKE_LOCK_WAIT_MS, keepInRejected, storeDelivery, type IntakeDeps } from './intake';
import { parseTypeformBody } from './typeform-payload';

export interface DrainSummary {
  queued: number;
  duplicates: number;
  rejected: number;
  /** Still spilled (lock busy or nothing done yet); the next run tries again. */
  left: number;
}

/** Throws when the sheet fails (the caller raises the incident); what was drained before stays drained. */
export function drainSpill(deps: IntakeDeps): DrainSummary {
  const entries = deps.spill.list();
  const summary: DrainSummary = { queued: 0, duplicates: 0, rejected: 0, left: entries.length };
  if (entries.length === 0) return summary;
  if (!deps.lock.tryLock(INTAKE_LOCK_WAIT_MS)) return summary;
  try {
    const sheets = deps.openSheets();
    for (const entry of entries) {
      const parsed = entry.unreadable === undefined ? parseTypeformBody(entry.body) : null;
      if (!parsed || !parsed.ok) {
        // Only valid deliveries are spilled, so this is damage: kept in Rejected with the reason, never dropped
        // silently, and never allowed to block the entries behind it.
        const reason = entry.unreadable !== undefined ? `spilled delivery could not be decoded (${entry.unreadable})` : `spilled delivery is not a Typeform body (${parsed?.reason})`;
        keepInRejected(sheets, deps, entry.receivedAt, reason, entry.body);
        sheets.flush();
        deps.spill.remove(entry.id);
        summary.rejected += 1;
        summary.left -= 1;
        continue;
      }
      const answer = storeDelivery(parsed.delivery, entry.receivedAt, sheets, deps);
      // Removed only after the row is flushed: a crash in between leaves it spilled, and dedupe absorbs the repeat.
      deps.spill.remove(entry.id);
      summary.left -= 1;
      if (answer.duplicate) summary.duplicates += 1;
      else if (answer.ok) summary.queued += 1;
      else summary.rejected += 1;
    }
  } catch (error) {
    deps.log(`spill drain stopped: ${messageOf(error)}`);
    throw error;
  } finally {
    deps.lock.release();
  }
  return summary;
}
