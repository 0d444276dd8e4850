// Which mailable rows wait for their form's send window (Config send_hours): they keep their status with a
// "not before" note, are not read for (no ledger, no Suppressed sheet) and wake the tick gate when the window opens.
import { messageOf } from '../domain/failures/errors';
import type { QueueRow } from '../domain/queue/queue-row';
import { errorSummary } from '../domain/failures/redact';
import { outsideWindowNote, parseSendHours, UTC_CLOCK, windowOpensAt, type LocalClock } from '../domain/mail/send-window';
import { processingConfigFor } from './row-inputs';
import type { Run } from './run-context';
import type { SendStep } from './send-plan';

function clockOf(run: Run): LocalClock {
  return run.deps.localClock ?? UTC_CLOCK;
}

/** When the row's window opens (epoch ms), null when it is open now or the form has none; throws CONFIG_INVALID for a bad cell. */
export function rowWindowOpensAt(run: Run, row: QueueRow, now: number): number | null {
  const config = processingConfigFor(row.formId, run.forms);
  return windowOpensAt(parseSendHours(row.formId, config.sendHours), now, clockOf(run));
}

/**
 * The rows of `waiting` whose window is open now. The others are set aside for this run with their note (written by
 * the step with its other notes); a form whose send_hours cannot be read holds its rows as a broken template does.
 */
export function rowsInWindow(run: Run, step: SendStep, waiting: readonly QueueRow[]): QueueRow[] {
  const now = run.deps.clock.now();
  const open: QueueRow[] = [];
  for (const row of waiting) {
    let opensAt: number | null;
    try {
      opensAt = rowWindowOpensAt(run, row, now);
    } catch (error) {
      if (!step.configProblems.includes(messageOf(error))) step.configProblems.push(messageOf(error));
      step.configRows.set(row.rowNumber, errorSummary('CONFIG_INVALID', messageOf(error), run.secrets));
      run.setAside.add(row.rowNumber);
      run.summary.deferred++;
      continue;
    }
    if (opensAt === null) {
      open.push(row);
      continue;
    }
    const config = processingConfigFor(row.formId, run.forms);
    const hours = parseSendHours(row.formId, config.sendHours);
    if (hours !== null) step.windowRows.set(row.rowNumber, errorSummary('SEND_WINDOW', outsideWindowNote(hours, clockOf(run).zone, opensAt), run.secrets));
    run.setAside.add(row.rowNumber);
    run.summary.deferred++;
  }
  return open;
}

/** For the tick gate: when a mailable row held by its window may go, or null when nothing holds it there. */
export function windowWakeAt(run: Run, row: QueueRow, now: number): number | null {
  try {
    return rowWindowOpensAt(run, row, now);
  } catch {
    return null; // a broken send_hours holds the row as a broken template does: looked at again after HALT_RECHECK_MS
  }
}
