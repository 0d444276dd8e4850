// Clock and Random ports: the only place the bundle reads the time or draws random numbers.
import type { Clock, Random } from '../core/ports';

export const systemClock: Clock = { now: () => Date.now() };
export const systemRandom: Random = { next: () => Math.random() };

/** The calendar day of `now` in the script's time zone (appsscript.json), e.g. "2026-12-01": what "daily" means in formqueue. */
export function scriptDateKey(now: number): string {
  return Utilities.formatDate(new Date(now), Session.getScriptTimeZone(), 'yyyy-MM-dd');
}
