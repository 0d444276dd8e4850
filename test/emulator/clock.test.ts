// host.advanceClock shifts time inside executions too, so back-offs, stale claims and throttles can expire in tests.
import { afterEach, expect, it } from 'vitest';
import { makeHost } from './helpers';

let host: any;
afterEach(async () => {
  await host?.dispose();
});

it('advanceClock moves Date.now and new Date() inside script executions, and dates stay real Dates', async () => {
  host = makeHost('clock');
  await host.load();
  const before = (await host.run('now', [], { kind: 'api' })).value;
  host.advanceClock(3_600_000);
  const after = (await host.run('now', [], { kind: 'api' })).value;
  expect(after[0] - before[0]).toBeGreaterThanOrEqual(3_600_000);
  expect(after[1]).toBe(true);
  expect(Math.abs(after[2] - after[0])).toBeLessThan(1000);
  expect(after[3]).toBe(0);
});
