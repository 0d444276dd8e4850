// processQueue's first step: spilled deliveries go into Queue in arrival order, through the same rules as doPost.
import { codeOf, isSheetsOutage, messageOf } from '../domain/failures/errors';
import { INTAKE_LOCK_WAIT_MS, storeDelivery, type IntakeDeps } from './intake';
import { keepInRejected } from './rejections';
import type { SpilledDelivery } from '../domain/ports';
import { checkBodyShape } from '../domain/typeform/delivery-limits';
import { parseTypeformBody, type TypeformDelivery } from '../domain/typeform/typeform-payload';

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
    // Kept in Rejected with the reason, never dropped silently, never allowed to block the entries behind it.
    const setAside = (entry: SpilledDelivery, reason: string) => {
      keepInRejected(sheets, deps, entry.receivedAt, reason, entry.body);
      sheets.flush();
      deps.spill.remove(entry.id);
      summary.rejected += 1;
      summary.left -= 1;
    };
    for (const entry of entries) {
      const read = readEntry(entry);
      if (!read.ok) {
        setAside(entry, read.reason);
        continue;
      }
      let answer;
      try {
        answer = storeDelivery(read.delivery, entry.receivedAt, sheets, deps);
      } catch (error) {
        // A sheet that is down or not set up stops the drain (the rest stay spilled for the next run); anything
        // else is this entry's own problem.
        if (isSheetsOutage(error) || codeOf(error) === 'CONFIG_MISSING') throw error;
        setAside(entry, `spilled delivery could not be queued (${codeOf(error) ?? 'CODE_BUG'}): ${messageOf(error)}`);
        continue;
      }
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

/** A spilled entry as a delivery, or why it is not one (damage, or a body an older version spilled unchecked). */
function readEntry(entry: SpilledDelivery): { ok: true; delivery: TypeformDelivery } | { ok: false; reason: string } {
  if (entry.unreadable !== undefined) return { ok: false, reason: `spilled delivery could not be decoded (${entry.unreadable})` };
  const shape = checkBodyShape(entry.body);
  if (shape) return { ok: false, reason: `spilled delivery refused: ${shape.error}: ${shape.reason}` };
  const parsed = parseTypeformBody(entry.body);
  if (!parsed.ok) return { ok: false, reason: `spilled delivery is not a Typeform body (${parsed.reason})` };
  return { ok: true, delivery: parsed.delivery };
}
