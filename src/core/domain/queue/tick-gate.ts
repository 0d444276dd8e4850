// Decides from Script Properties alone whether a processQueue tick has anything to do, so idle ticks cost one read.

/** Set by doPost and staff edits: something new is in the sheet. */
export const DIRTY_PROPERTY = 'FQ_DIRTY';
/** Earliest time a PENDING row's retry is due (epoch ms), written at the end of each run. */
export const NEXT_DUE_PROPERTY = 'FQ_NEXT_DUE_AT';
/**
 * Tells the next processQueue tick the Queue holds something new (a delivery, a staff move, a resume), so it is not
 * skipped as idle: the one place the marker is written.
 */
export function markQueueDirty(props: { set(key: string, value: string): void }, now: number): void {
  props.set(DIRTY_PROPERTY, String(now));
}
/** When the last full run happened (epoch ms). */
export const LAST_SWEEP_PROPERTY = 'FQ_LAST_SWEEP_AT';
/** Even with no marker, a full run every 15 minutes catches what a lost marker or a hand edit missed. */
export const SAFETY_SWEEP_MS = 15 * 60 * 1000;

/** Every Script Property of the spill starts with this: the gate sees waiting deliveries without decoding them. */
export const SPILL_KEY_PREFIX = 'FQ_SPILL_';

/** Deliveries wait in the spill: seen from the keys alone, without decoding anything. */
export function hasSpilledDeliveries(props: Readonly<Record<string, string>>): boolean {
  return Object.keys(props).some((key) => key.startsWith(SPILL_KEY_PREFIX));
}

export interface TickDecision {
  due: boolean;
  reason: string;
}

export function decideTick(props: Readonly<Record<string, string>>, now: number): TickDecision {
  if (props[DIRTY_PROPERTY] !== undefined) return { due: true, reason: 'a new delivery or a staff edit' };
  if (hasSpilledDeliveries(props)) return { due: true, reason: 'spilled deliveries wait' };
  const nextDue = Number(props[NEXT_DUE_PROPERTY]);
  // Number(undefined) is NaN, so an absent property fails isFinite; '' would read as 0, due at once, hence its own test.
  if (props[NEXT_DUE_PROPERTY] !== '' && Number.isFinite(nextDue) && nextDue <= now) {
    return { due: true, reason: 'a retry is due' };
  }
  const lastSweep = Number(props[LAST_SWEEP_PROPERTY]);
  if (!Number.isFinite(lastSweep) || now - lastSweep >= SAFETY_SWEEP_MS) {
    return { due: true, reason: 'the 15-minute safety sweep' };
  }
  return { due: false, reason: 'nothing new, no retry due' };
}
