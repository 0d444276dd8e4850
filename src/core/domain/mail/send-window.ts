// Send windows (Config `send_hours`): the hours of the day a form's replies may be mailed, in the form's time zone (Config `time_zone`, else the script's).
import { codedError } from '../failures/errors';

const DAY_MINUTES = 24 * 60;
const MINUTE_MS = 60_000;

/** Minutes after local midnight: mailing may start at `open` and stops at `close` (close < open: overnight). */
export interface SendHours {
  open: number;
  close: number;
  /** As written, for the row's note ("08:00-20:00"). */
  text: string;
}

/** A clock in one time zone: the script's (appsscript.json timeZone, given by src/gas) or a form's own (zoneClock). */
export interface LocalClock {
  /** The IANA name, for what staff read ("Europe/Berlin"). */
  zone: string;
  /** Minutes after local midnight at that instant (0–1439). */
  minuteOfDay(epochMs: number): number;
}

/** UTC, for runs given no local clock (tests, and a script whose time zone is UTC). */
export const UTC_CLOCK: LocalClock = { zone: 'Etc/UTC', minuteOfDay: (ms) => Math.floor((((ms / MINUTE_MS) % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES) };

function minutesOf(hhmm: string): number | null {
  const match = /^(\d{1,2}):(\d{2})$/.exec(hhmm);
  if (!match) return null;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  if (minutes > 59 || hours > 24 || (hours === 24 && minutes > 0)) return null;
  return hours * 60 + minutes;
}

/**
 * The form's `send_hours` cell: empty means any time; "08:00-20:00" (also "8:00 – 20:00", "24:00" for midnight at the
 * end); a window past midnight ("22:00-06:00") wraps. Throws CONFIG_INVALID naming the form for anything else, so
 * its rows wait for the fix rather than go at a time staff did not mean.
 */
export function parseSendHours(formId: string, cell: string): SendHours | null {
  const text = cell.trim();
  if (text === '') return null;
  const parts = text.split(/\s*[-–—]\s*/);
  const [open, close] = parts.length === 2 ? parts.map(minutesOf) : [null, null];
  if (open === null || close === null || open === close % DAY_MINUTES) {
    throw codedError(
      'CONFIG_INVALID',
      `Config send_hours of form ${formId} is "${text}": write the hours replies may go out as HH:MM-HH:MM (e.g. 08:00-20:00), or leave it empty for any time`,
    );
  }
  return { open, close: close % DAY_MINUTES, text };
}

export function isWithin(hours: SendHours, minuteOfDay: number): boolean {
  return hours.open < hours.close ? minuteOfDay >= hours.open && minuteOfDay < hours.close : minuteOfDay >= hours.open || minuteOfDay < hours.close;
}

/**
 * When the window next opens (epoch ms), or null when it is open now. Counted in whole minutes from `now`'s local
 * minute: a daylight-saving change in between makes it an hour early or late; a row woken early waits again, so none
 * goes outside the window (at most an hour late, twice a year).
 */
export function windowOpensAt(hours: SendHours | null, now: number, clock: LocalClock): number | null {
  if (hours === null) return null;
  const minute = clock.minuteOfDay(now);
  if (isWithin(hours, minute)) return null;
  const wait = (hours.open - minute + DAY_MINUTES) % DAY_MINUTES;
  return Math.floor(now / MINUTE_MS) * MINUTE_MS + wait * MINUTE_MS;
}

/** The row's note while it waits: the window, the zone, and the time it may go. */
export function outsideWindowNote(hours: SendHours, zone: string, opensAt: number): string {
  return `outside the form's send_hours ${hours.text} (${zone}); not mailed before ${new Date(opensAt).toISOString()}`;
}

/** An IANA zone name as written in the tz database ("Europe/Berlin", "America/Argentina/Buenos_Aires", "UTC"). */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * The formatter of a zone, or null when this JavaScript engine does not know the zone. ECMA-402 makes
 * Intl.DateTimeFormat throw a RangeError for a time zone it does not support
 * (https://tc39.es/ecma402/#sec-createdatetimeformat); Apps Script's V8 runtime and Node both carry the tz database.
 * Either reading is safe: a zone the engine refuses is a Config error, and the form's rows wait for the fix.
 */
function formatOf(zone: string): Intl.DateTimeFormat | null {
  const known = zoneFormats.get(zone);
  if (known !== undefined) return known;
  try {
    const format = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    zoneFormats.set(zone, format);
    return format;
  } catch {
    return null;
  }
}

/**
 * The form's `time_zone` cell: empty means the script's time zone; otherwise an IANA name the engine knows. Throws
 * CONFIG_INVALID naming the form and the value for anything else (an offset like "+02:00", a typo, "CET-ish"), so
 * its rows wait for the fix rather than go at hours staff did not mean.
 */
export function parseTimeZone(formId: string, cell: string): string | null {
  const zone = cell.trim();
  if (zone === '') return null;
  if (!ZONE_NAME.test(zone) || formatOf(zone) === null) {
    throw codedError(
      'CONFIG_INVALID',
      `Config time_zone of form ${formId} is "${zone}", which is not a time zone name: write an IANA name such as Europe/Berlin or America/New_York, or leave it empty for the script's time zone`,
    );
  }
  return zone;
}

/** A clock in `zone` (a name parseTimeZone accepted): the minute of the day there, daylight saving included. */
export function zoneClock(zone: string): LocalClock {
  const format = formatOf(zone);
  if (format === null) throw codedError('CONFIG_INVALID', `time zone "${zone}" is not known`);
  return {
    zone,
    minuteOfDay(epochMs) {
      const parts = format.formatToParts(new Date(epochMs));
      const value = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
      return (value('hour') % 24) * 60 + value('minute');
    },
  };
}

/** The clock a form's send window is read in: its Config `time_zone`, or `scriptClock` when that is empty. */
export function formClock(formId: string, timeZoneCell: string, scriptClock: LocalClock): LocalClock {
  const zone = parseTimeZone(formId, timeZoneCell);
  return zone === null ? scriptClock : zoneClock(zone);
}
