// Config send_hours: the cell's forms, whether a minute is inside, and when the window opens next (in the script's zone).
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../../src/core/domain/failures/errors';
import { isWithin, parseSendHours, UTC_CLOCK, windowOpensAt, type LocalClock } from '../../../../src/core/domain/mail/send-window';

const at = (iso: string) => Date.parse(iso);
const hours = (cell: string) => parseSendHours('F1', cell);

describe('parseSendHours', () => {
  it.each([
    ['', null],
    ['   ', null],
    ['08:00-20:00', { open: 480, close: 1200, text: '08:00-20:00' }],
    ['8:30 – 17:45', { open: 510, close: 1065, text: '8:30 – 17:45' }],
    ['22:00-06:00', { open: 1320, close: 360, text: '22:00-06:00' }],
    ['09:00-24:00', { open: 540, close: 0, text: '09:00-24:00' }],
    ['08:59—23:59', { open: 539, close: 1439, text: '08:59—23:59' }],
    ['00:00-08:00', { open: 0, close: 480, text: '00:00-08:00' }],
  ])('%j reads as %j', (cell, expected) => {
    expect(hours(cell)).toEqual(expected);
  });

  it.each(['8-20', '08:00', '08:00-20:00-21:00', '25:00-26:00', '08:60-20:00', '08:00-08:00', '00:00-24:00', 'business hours', '108:00-20:00', '08:000-20:00', '08:00-24:01', '8:0-20:00', '24:00-08:00x'])(
    '%j is refused with CONFIG_INVALID naming the form and the format',
    (cell) => {
      let thrown: unknown;
      try {
        hours(cell);
      } catch (error) {
        thrown = error;
      }
      expect(codeOf(thrown)).toBe('CONFIG_INVALID');
      expect(String((thrown as Error).message)).toContain('Config send_hours of form F1');
    },
  );
});

describe('the window', () => {
  it('opens at its first minute and closes at its last; an overnight window wraps', () => {
    const day = hours('08:00-20:00')!;
    expect([479, 480, 1199, 1200].map((m) => isWithin(day, m))).toEqual([false, true, true, false]);
    const night = hours('22:00-06:00')!;
    expect([1319, 1320, 0, 359, 360].map((m) => isWithin(night, m))).toEqual([false, true, true, true, false]);
  });

  it('opens next at its start, in the script\'s zone: null while open, the same instant from any minute of the night', () => {
    const day = hours('08:00-20:00');
    expect(windowOpensAt(day, at('2026-12-02T10:00:00Z'), UTC_CLOCK)).toBeNull();
    expect(windowOpensAt(day, at('2026-12-02T03:17:42Z'), UTC_CLOCK)).toBe(at('2026-12-02T08:00:00Z'));
    expect(windowOpensAt(day, at('2026-12-01T21:05:00Z'), UTC_CLOCK)).toBe(at('2026-12-02T08:00:00Z'));
    expect(windowOpensAt(null, at('2026-12-02T03:00:00Z'), UTC_CLOCK)).toBeNull();
    // Berlin in winter is UTC+1: 08:00 there is 07:00 UTC.
    const berlin: LocalClock = { zone: 'Europe/Berlin', minuteOfDay: (ms) => UTC_CLOCK.minuteOfDay(ms + 3_600_000) };
    expect(windowOpensAt(day, at('2026-12-02T03:00:00Z'), berlin)).toBe(at('2026-12-02T07:00:00Z'));
  });
});
