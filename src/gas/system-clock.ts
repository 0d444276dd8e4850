// Clock and Random ports: the only place the bundle reads the time or draws random numbers.
import type { Clock, Random } from '../core/domain/ports';
import type { LocalClock } from '../core/domain/mail/send-window';

export const systemClock: Clock = { now: () => Date.now() };
export const systemRandom: Random = { next: () => Math.random() };

/** The calendar day of `now` in the script's time zone (appsscript.json), e.g. "2026-12-01": what "daily" means in formqueue. */
export function scriptDateKey(now: number): string {
  return Utilities.formatDate(new Date(now), Session.getScriptTimeZone(), 'yyyy-MM-dd');
}

/** The script's clock in its time zone, for Config send_hours: the zone asked once, each reading formatted locally (no service call). */
export function scriptLocalClock(): LocalClock {
  const zone = Session.getScriptTimeZone();
  return {
    zone,
    minuteOfDay(epochMs) {
      const [hours, minutes] = Utilities.formatDate(new Date(epochMs), zone, 'HH:mm').split(':').map(Number);
      return hours * 60 + minutes;
    },
  };
}
