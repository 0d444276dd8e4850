// The Google-cost bench's own arithmetic (fast, no runtime): Poisson arrivals, percentiles and the day assembled from measured ticks.
import { describe, expect, it } from 'vitest';
import { poissonArrivals } from '../../bench/burst-bench.mjs';
import { assembleDay } from '../../bench/google-bench.mjs';
import { percentile } from '../../bench/modeled.mjs';
import { breakdownOf, stepsOf } from '../../bench/run-breakdown.mjs';

describe('the Google-cost bench', () => {
  it('draws the burst\'s arrivals sorted inside the window, the same for the same seed and different for another', () => {
    const a = poissonArrivals(300, 60000, 1);
    expect(a).toHaveLength(300);
    expect(a.every((t, i) => t > 0 && t < 60000 && (i === 0 || t >= a[i - 1]))).toBe(true);
    expect(poissonArrivals(300, 60000, 1)).toEqual(a);
    expect(poissonArrivals(300, 60000, 2)).not.toEqual(a);
    // Poisson: gaps are exponential, so about e^-1 of them are longer than the mean gap (200 ms).
    const longer = a.slice(1).filter((t, i) => t - a[i] > 200).length / 299;
    expect(longer).toBeGreaterThan(0.25);
    expect(longer).toBeLessThan(0.5);
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 0.99)).toBe(5);
    expect(percentile([], 0.5)).toBe(null);
  });

  it('assembles a day of minute ticks: with no submissions only the 96 sweeps and idle ticks; with many nearly every tick is busy', () => {
    const ticks = { idleMs: 1000, sweepMs: 2000, oneMs: 10000, twoMs: 12000 };
    const none = assembleDay(0, ticks);
    expect(none.busyTicks).toBe(0);
    expect(none.sweeps).toBe(96);
    expect(none.minutes).toBeCloseTo((96 * 2000 + 1344 * 1000) / 60000, 9);
    const busy = assembleDay(1440 * 20, ticks);
    expect(busy.busyTicks).toBeCloseTo(1440, 3);
    expect(busy.minutes).toBeCloseTo((1440 * 10000 + (1440 * 20 - 1440) * 2000) / 60000, 0);
  });

  it("gives each traced call to the step it serves: a batch's reads, writes and flushes to the Log line or mail they lead to", () => {
    const line = (to: string) => ({ call: 'Sheet.appendRow', sheet: 'Log', args: [[0, 'ev', 'READY', to, 'system', '']] });
    const q = (call: string, args: unknown[] = []) => ({ call, sheet: 'Queue', args });
    const trace = [
      { call: 'Properties.getProperties', sheet: null, args: [] },
      q('Sheet.getRange', ['1:1']), q('Range.getValues'), q('Sheet.getLastRow'), q('Sheet.getRange', [2, 1, 4, 16]), q('Range.getValues'),
      q('Range.getValues'), q('Range.setValues'), { call: 'SpreadsheetApp.flush', sheet: null, args: [] }, line('SENDING'),
      q('Range.getValues'), { call: 'MailApp.sendEmail', sheet: null, args: [] },
      q('Range.getValues'), q('Range.setValues'), { call: 'SpreadsheetApp.flush', sheet: null, args: [] }, line('SENT'),
      { call: 'SpreadsheetApp.flush', sheet: null, args: [] },
    ];
    expect(stepsOf(trace)).toEqual([
      'Script Properties and lock',
      'run start and end', 'run start and end', 'run start and end', 'run start and end', 'run start and end',
      'send claim', 'send claim', 'send claim', 'send claim',
      'mail', 'mail',
      'SENT write', 'SENT write', 'SENT write', 'SENT write',
      'run start and end',
    ]);
    const steps = breakdownOf([{ trace }]);
    expect(steps.mail).toEqual({ calls: 2, byMethod: { 'Range.getValues': 1, 'MailApp.sendEmail': 1 } });
    expect(Object.values(steps).reduce((n, s) => n + s.calls, 0)).toBe(trace.length);
  });
});
