// Config time_zone: the names accepted and refused (naming the value), a zone's minute of the day (daylight saving
// included), and the clock a form's window is read in.
import { describe, expect, it } from 'vitest';
import { codeOf, messageOf } from '../../../../src/core/domain/failures/errors';
import { formClock, parseTimeZone, UTC_CLOCK, windowOpensAt, parseSendHours, zoneClock } from '../../../../src/core/domain/mail/send-window';

const at = (iso: string) => Date.parse(iso);

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('parseTimeZone', () => {
  it.each([
    ['', null],
    ['  ', null],
    ['Europe/Berlin', 'Europe/Berlin'],
    [' America/Argentina/Buenos_Aires ', 'America/Argentina/Buenos_Aires'],
    ['UTC', 'UTC'],
    ['Etc/GMT-2', 'Etc/GMT-2'],
  ])('%j reads as %j', (cell, zone) => {
    expect(parseTimeZone('F1', cell)).toBe(zone);
  });

  it.each(['Mars/Olympus_Mons', '+02:00', 'UTC+2', 'GMT +1', 'Europe/Berlin, Europe/Paris', 'Berlin time', '/Europe'])(
    '%j is refused with CONFIG_INVALID naming the form and the value',
    (cell) => {
      const thrown = thrownBy(() => parseTimeZone('F1', cell));
      expect(codeOf(thrown)).toBe('CONFIG_INVALID');
      expect(messageOf(thrown)).toBe(
        `Config time_zone of form F1 is "${cell.trim()}", which is not a time zone name: write an IANA name such as Europe/Berlin or America/New_York, or leave it empty for the script's time zone`,
      );
    },
  );
});

describe('zoneClock', () => {
  it.each([
    ['Europe/Berlin', '2026-12-02T07:30:00Z', 8 * 60 + 30], // winter: UTC+1
    ['Europe/Berlin', '2026-07-02T07:30:00Z', 9 * 60 + 30], // summer: UTC+2
    ['America/New_York', '2026-12-02T03:05:00Z', 22 * 60 + 5], // the evening before, UTC-5
    ['Asia/Kolkata', '2026-12-02T00:00:00Z', 5 * 60 + 30], // a half-hour zone
    ['Pacific/Auckland', '2026-11-20T10:00:00Z', 23 * 60], // NZ daylight saving, UTC+13
    ['UTC', '2026-12-02T23:59:00Z', 23 * 60 + 59],
    ['Europe/London', '2026-12-02T00:00:00Z', 0], // midnight is minute 0, never 24:00
  ])('in %s, %s is minute %i of the day', (zone, iso, minute) => {
    expect(zoneClock(zone).minuteOfDay(at(iso))).toBe(minute);
    expect(zoneClock(zone).zone).toBe(zone);
  });

  it('refuses a zone the engine does not know with CONFIG_INVALID naming it, rather than a clock that cannot tell the time', () => {
    const thrown = thrownBy(() => zoneClock('Mars/Olympus_Mons'));
    expect(codeOf(thrown)).toBe('CONFIG_INVALID');
    expect(messageOf(thrown)).toBe('time zone "Mars/Olympus_Mons" is not known');
  });

  it('08:00-20:00 in New York opens at 13:00 UTC in winter and 12:00 UTC in summer', () => {
    const day = parseSendHours('F1', '08:00-20:00');
    expect(windowOpensAt(day, at('2026-12-02T05:00:00Z'), zoneClock('America/New_York'))).toBe(at('2026-12-02T13:00:00Z'));
    expect(windowOpensAt(day, at('2026-07-02T05:00:00Z'), zoneClock('America/New_York'))).toBe(at('2026-07-02T12:00:00Z'));
  });
});

describe('formClock', () => {
  it('an empty time_zone reads the window in the script\'s clock; a name in that zone; a bad one throws CONFIG_INVALID', () => {
    expect(formClock('F1', '', UTC_CLOCK)).toBe(UTC_CLOCK);
    expect(formClock('F1', 'Asia/Tokyo', UTC_CLOCK).minuteOfDay(at('2026-12-02T00:00:00Z'))).toBe(9 * 60);
    expect(codeOf(thrownBy(() => formClock('F1', 'Tokyo', UTC_CLOCK)))).toBe('CONFIG_INVALID');
  });
});
