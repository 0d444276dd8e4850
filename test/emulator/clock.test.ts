// host.advanceClock (POST /api/clock) shifts time inside executions too, so back-offs, stale claims and throttles can expire
// without waiting; clock triggers due in a skipped span fire once.
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../emulator/server.mjs';
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

describe('the runtime clock', () => {
  // Executions read host time (Date.now, new Date()); moving it moves running executions too, at their next read.
  it('an execution already running sees the clock move at its next read of the time', async () => {
    host = makeHost('clock');
    host.faults.add({ target: 'gemini', pause: true });
    const running = host.run('acrossAdvance', [], { kind: 'api' });
    await host.faults.waitForPausedFetches(1);
    host.advanceClock(86_400_000);
    host.faults.clear();
    const [before, after, dateNow] = (await running).value;
    expect(after - before).toBeGreaterThanOrEqual(86_400_000);
    expect(Math.abs(dateNow - after)).toBeLessThan(1000);
  });

  // https://developers.google.com/apps-script/guides/triggers/installable: time-driven triggers fire on Google's
  // schedule; a span the runtime skips is not replayed minute by minute: each trigger due in it fires once.
  it('clock triggers due in a skipped span fire once on the next tick, not once per skipped minute', async () => {
    host = makeHost('clock');
    host.triggers.push(
      { id: 't1', handler: 'everyMinute', type: 'CLOCK', source: 'CLOCK', everyMinutes: 1 },
      { id: 't5', handler: 'everyFive', type: 'CLOCK', source: 'CLOCK', everyMinutes: 5 },
      { id: 'th', handler: 'hourly', type: 'CLOCK', source: 'CLOCK', everyHours: 1 },
    );
    const fired = async () => (await host.tick(false)).map((r: any) => r.functionName).sort();
    expect(await fired()).toEqual(['everyFive', 'everyMinute', 'hourly']); // minute 0: all are due
    expect(await fired()).toEqual(['everyMinute']); // minute 1
    expect(host.advanceClock(3 * 60_000)).toEqual({ skippedMinutes: 3, dueOnNextTick: ['t1', 't5'] }); // minutes 2-4; 5 is the next tick
    expect(await fired()).toEqual(['everyFive', 'everyMinute']); // minute 5: each once
    expect(host.advanceClock(6 * 3_600_000).dueOnNextTick).toEqual(['t1', 't5', 'th']);
    expect(await fired()).toEqual(['everyFive', 'everyMinute', 'hourly']);
    expect(await fired()).toEqual(['everyMinute']);
  });

  it('GET /api/clock answers the runtime\'s time; POST /api/clock {"advanceMs"} moves it and names the triggers due', async () => {
    host = makeHost('clock');
    host.triggers.push({ id: 't5', handler: 'everyFive', type: 'CLOCK', source: 'CLOCK', everyMinutes: 5 });
    await host.tick(false); // minute 0
    const server = await startServer({ host, port: 0 });
    try {
      const get = async () => (await (await fetch(`${server.url}/api/clock`)).json()) as { now: string };
      const before = Date.parse((await get()).now);
      const res = await fetch(`${server.url}/api/clock`, { method: 'POST', body: JSON.stringify({ advanceMs: 600_000 }) });
      expect(res.status).toBe(200);
      const moved = (await res.json()) as { now: string; dueOnNextTick: string[] };
      expect(moved.dueOnNextTick).toEqual(['t5']);
      expect(Date.parse(moved.now) - before).toBeGreaterThanOrEqual(600_000);
      expect(Date.parse((await get()).now)).toBeGreaterThanOrEqual(Date.parse(moved.now));
      expect((await host.run('now', [], { kind: 'api' })).value[0]).toBeGreaterThanOrEqual(Date.parse(moved.now));
      for (const bad of [{ advanceMs: -1 }, { advanceMs: 'soon' }, {}]) {
        const r = await fetch(`${server.url}/api/clock`, { method: 'POST', body: JSON.stringify(bad) });
        expect(r.status, JSON.stringify(bad)).toBe(400);
      }
    } finally {
      await server.close();
    }
  });
});

it('time moved forward stays moved after a restart on the same data folder', async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dataDir = mkdtempSync(join(tmpdir(), 'fq-clock-'));
  try {
    const first = makeHost('clock', { dataDir });
    await first.load();
    first.advanceClock(7 * 86_400_000);
    await first.save();
    await first.dispose();
    host = makeHost('clock', { dataDir });
    await host.load();
    expect(host.clockOffsetMs).toBe(7 * 86_400_000);
    expect((await host.run('now', [], { kind: 'api' })).value[0] - Date.now()).toBeGreaterThanOrEqual(7 * 86_400_000 - 1000);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
