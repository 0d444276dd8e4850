// Intake wired to Apps Script: the deps doPost, the spill drain and "Accept rejected delivery" share.
import { messageOf } from '../core/domain/failures/errors';
import { checkBodyShape, MAX_BODY_CHARS } from '../core/domain/typeform/delivery-limits';
import { checkWebhookToken } from '../core/intake/token-check';
import { redact } from '../core/domain/failures/redact';
import { INTAKE_LOCK_WAIT_MS, storeDelivery, type IntakeDeps } from '../core/intake/intake';
import { mirroredForms } from '../core/domain/config/forms-mirror';
import { REJECTED_TOTALS_PROPERTY } from '../core/domain/typeform/rejection-tally';
import { parseTypeformBody } from '../core/domain/typeform/typeform-payload';
import type { Clock, Lock, PropertyStore, SpillStore } from '../core/domain/ports';
import { readSettings, type Settings } from '../core/domain/config/settings';
import { acceptAlert, type AcceptAlert } from '../core/intake/accept-rejected';
import { createIntakeSheets } from './intake-sheets';
import { intakeLockFlushedByCaller } from './locks';
import { createScriptCache } from './script-cache';
import { createScriptPropertyStore } from './script-properties';
import { createSpillStore } from './spill-store';
import { openSpreadsheet } from './spreadsheet';
import { scriptDateKey, systemClock } from './system-clock';

/** `lock` is the intake lock with an explicit release, except for doPost, which leaves it to the end of its execution. */
export function intakeDeps(
  props: PropertyStore = createScriptPropertyStore(),
  snapshot: Record<string, string> = props.getAll(),
  lock: Lock = intakeLockFlushedByCaller(),
): IntakeDeps {
  const { settings } = readSettings(snapshot);
  return {
    settings,
    clock: systemClock,
    lock,
    cache: createScriptCache(),
    props,
    mirroredForms: mirroredForms(snapshot, systemClock.now()),
    rejectedTotalsAtStart: snapshot[REJECTED_TOTALS_PROPERTY],
    spill: createSpillStore(),
    openSheets: () => createIntakeSheets(openSpreadsheet(settings)),
    dateKey: scriptDateKey,
    log: (message) => console.warn(message),
  };
}

/**
 * Staff accept a body from the Rejected sheet (e.g. after a token rotation went wrong): it goes through
 * the same rules as a delivery, except the token check, so it is still deduped and checked against Config.
 */
export function acceptRejectedDelivery(services: { intake(): IntakeDeps }, body: string): AcceptAlert {
  const shape = checkBodyShape(body);
  if (shape) return acceptAlert({ kind: 'unreadable', reason: shape.reason });
  const parsed = parseTypeformBody(body);
  if (!parsed.ok) return acceptAlert({ kind: 'unreadable', reason: parsed.reason });
  const deps = services.intake();
  if (!deps.lock.tryLock(INTAKE_LOCK_WAIT_MS)) return acceptAlert({ kind: 'busy' });
  try {
    const answer = storeDelivery(parsed.delivery, deps.clock.now(), deps.openSheets(), deps);
    return acceptAlert({ kind: 'answered', answer, eventId: parsed.delivery.eventId, formId: parsed.delivery.formId });
  } catch (error) {
    return acceptAlert({ kind: 'failed', message: messageOf(error) });
  } finally {
    deps.lock.release();
  }
}

/**
 * An internal_error still leaves the body where staff can recover it: in the spill, which the next run drains
 * through the same rules (queued if it is a delivery, else kept in Rejected with the reason). Only an
 * authenticated body is kept, within the size intake accepts, so this cannot be used to fill the spill.
 */
export function keepUnhandledBody(services: { settings(): Settings; spill(): SpillStore; clock: Clock }, body: string, token: string | undefined): void {
  try {
    if (body === '' || body.length > MAX_BODY_CHARS) return;
    const settings = services.settings();
    const verdict = checkWebhookToken(token, settings.webhookToken, settings.webhookTokenPrevious);
    if (verdict !== 'current' && verdict !== 'previous') return;
    services.spill().save(services.clock.now(), body);
  } catch (error) {
    try {
      console.error(`doPost could not keep the body of an internal_error: ${redact(messageOf(error))}`);
    } catch {
      // Nothing left to report to.
    }
  }
}
