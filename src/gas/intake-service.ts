// Intake wired to Apps Script: the deps doPost, the spill drain and "Accept rejected delivery" share.
import { messageOf } from '../core/errors';
import { INTAKE_LOCK_WAIT_MS, storeDelivery, type IntakeDeps } from '../core/intake/intake';
import { parseTypeformBody } from '../core/intake/typeform-payload';
import type { PropertyStore } from '../core/ports';
import { readSettings } from '../core/settings';
import { createIntakeSheets } from './intake-sheets';
import { intakeLock } from './locks';
import { createScriptCache } from './script-cache';
import { createScriptPropertyStore } from './script-properties';
import { createSpillStore } from './spill-store';
import { openSpreadsheet } from './spreadsheet';
import { systemClock } from './system-clock';

export function intakeDeps(props: PropertyStore = createScriptPropertyStore(), snapshot: Record<string, string> = props.getAll()): IntakeDeps {
  const { settings } = readSettings(snapshot);
  return {
    settings,
    clock: systemClock,
    lock: intakeLock(),
    cache: createScriptCache(),
    props,
    spill: createSpillStore(),
    openSheets: () => createIntakeSheets(openSpreadsheet(settings)),
    log: (message) => console.warn(message),
  };
}

/**
 * Staff accept a body from the Rejected sheet (e.g. after a token rotation went wrong): it goes through
 * the same rules as a delivery, except the token check, so it is still deduped and checked against Config.
 */
export function acceptRejectedDelivery(body: string): { ok: boolean; message: string } {
  const parsed = parseTypeformBody(body);
  if (!parsed.ok) return { ok: false, message: `This body cannot be queued: ${parsed.reason}.` };
  const deps = intakeDeps();
  if (!deps.lock.tryLock(INTAKE_LOCK_WAIT_MS)) return { ok: false, message: 'The queue is busy; try again in a minute.' };
  try {
    const answer = storeDelivery(parsed.delivery, deps.clock.now(), deps.openSheets(), deps);
    if (answer.duplicate) return { ok: true, message: `Event ${parsed.delivery.eventId} is already in the queue; nothing added.` };
    if (!answer.ok) return { ok: false, message: `Not queued: ${answer.error} (check the Config sheet enables form "${parsed.delivery.formId}").` };
    return { ok: true, message: `Event ${parsed.delivery.eventId} was added to Queue as ${answer.test ? 'TEST' : 'PENDING'}.` };
  } catch (error) {
    return { ok: false, message: `Not queued: ${messageOf(error)}` };
  } finally {
    deps.lock.release();
  }
}
