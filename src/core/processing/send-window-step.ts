// Which mailable rows wait for their form's send window (Config send_hours, in its time_zone): they keep their status with a
// "not before" note, are not read for (no ledger, no Suppressed sheet), wake the tick gate when the window opens, and a
// claimed row is checked again right before its mail.
import { messageOf } from '../domain/failures/errors';
import type { QueueRow } from '../domain/queue/queue-row';
import { errorSummary } from '../domain/failures/redact';
import { formClock, outsideWindowNote, parseSendHours, UTC_CLOCK, type LocalClock, type SendHours } from '../domain/mail/send-window';
import { notBefore } from '../domain/queue/not-before';
import { processingConfigFor } from './row-inputs';
import type { Run } from './run-context';
import type { SendStep } from './send-plan';

/** The form's window and the clock it is read in; throws CONFIG_INVALID for a send_hours or time_zone cell that cannot be read. */
function windowOf(run: Run, row: QueueRow): { hours: SendHours | null; clock: LocalClock } {
  const config = processingConfigFor(row.formId, run.forms);
  const hours = parseSendHours(row.formId, config.sendHours);
  return { hours, clock: hours === null ? UTC_CLOCK : formClock(row.formId, config.timeZone ?? '', run.deps.localClock ?? UTC_CLOCK) };
}

/**
 * Why the row must not be mailed now because of its window (its SEND_WINDOW note, or the CONFIG_INVALID one of a cell
 * that cannot be read, noted for the step's incident), or null when its window is open or it has none.
 */
function windowHold(run: Run, step: SendStep, row: QueueRow, now: number): string | null {
  let window: ReturnType<typeof windowOf>;
  try {
    window = windowOf(run, row);
  } catch (error) {
    if (!step.configProblems.includes(messageOf(error))) step.configProblems.push(messageOf(error));
    const note = errorSummary('CONFIG_INVALID', messageOf(error), run.secrets);
    step.configRows.set(row.rowNumber, note);
    step.windowProblemRows.add(row.rowNumber);
    return note;
  }
  const wait = notBefore(row, now, { window });
  if (wait === null || window.hours === null) return null;
  return errorSummary('SEND_WINDOW', outsideWindowNote(window.hours, window.clock.zone, wait.at), run.secrets);
}

/**
 * The rows of `waiting` whose window is open now. The others are set aside for this run with their note (written by
 * the step with its other notes); a form whose send_hours or time_zone cannot be read holds its rows as a broken template does.
 */
export function rowsInWindow(run: Run, step: SendStep, waiting: readonly QueueRow[]): QueueRow[] {
  const now = run.deps.clock.now();
  const open: QueueRow[] = [];
  for (const row of waiting) {
    const held = windowHold(run, step, row, now);
    if (held === null) {
      open.push(row);
      continue;
    }
    if (!step.configRows.has(row.rowNumber)) step.windowRows.set(row.rowNumber, held);
    run.setAside.add(row.rowNumber);
    run.summary.deferred++;
  }
  return open;
}

/**
 * A claimed row, right before its mail: the note it goes back with when its window closed since the claim (or its
 * Config cell can no longer be read), or null when it may be mailed now. Read at the moment of the mail, so a batch
 * claimed at 19:59 mails nothing after 20:00.
 */
export function windowClosedSinceClaim(run: Run, step: SendStep, claimed: QueueRow): string | null {
  return windowHold(run, step, claimed, run.deps.clock.now());
}

/** For the tick gate: when a mailable row held by its window may go, or null when nothing holds it there. */
export function windowWakeAt(run: Run, row: QueueRow, now: number): number | null {
  let window: ReturnType<typeof windowOf>;
  try {
    window = windowOf(run, row);
  } catch {
    return null; // a broken send_hours holds the row as a broken template does: looked at again after HALT_RECHECK_MS
  }
  return notBefore(row, now, { window })?.at ?? null;
}
