// Typeform's window bounds read back as instants: what a stored `until` means, and what is not a bound at all.
import { describe, expect, it } from 'vitest';
import { responseWindow, windowTime } from '../../../src/core/reconcile/typeform-window';

const NOW = Date.UTC(2026, 11, 1, 6, 0, 0);

describe('windowTime', () => {
  it.each([
    ['a bound in Typeform\'s time, read as UTC', '2026-11-30T18:00:00', Date.UTC(2026, 10, 30, 18, 0, 0)],
    ['a bound to the second', '2026-11-29T06:07:08', Date.UTC(2026, 10, 29, 6, 7, 8)],
    ['no bound (a record from before bounds were kept)', '', null],
    ['text that is no time', 'yesterday', null],
  ])('%s', (_label, bound, ms) => {
    expect(windowTime(bound)).toBe(ms);
  });

  it('the daily window\'s until reads back as 12 hours before the check', () => {
    expect(windowTime(responseWindow(NOW).until)).toBe(NOW - 12 * 3_600_000);
  });
});
