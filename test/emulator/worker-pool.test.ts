// Warm threads: executions reuse a finished execution's thread, yet each gets a fresh realm, and a killed thread is never reused.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GasHost } from '../../emulator/host.mjs';
import { WorkerPool, sharedPool } from '../../emulator/worker-pool.mjs';
import { disposeHost, makeHost } from './helpers';

describe('execution threads', () => {
  let host: any;
  afterEach(async () => {
    await disposeHost(host);
  });

  it('no global survives an execution, though the next one runs on the same warm thread', async () => {
    host = makeHost('pool');
    await host.load();
    const first = await host.run('countGlobal', [], { kind: 'trigger' });
    const warm = sharedPool.idle.at(-1);
    expect(warm).toBeDefined();
    const second = await host.run('countGlobal', [], { kind: 'trigger' });
    expect([first.value, second.value]).toEqual([{ counted: 1, leaked: 1 }, { counted: 1, leaked: 1 }]);
    expect(sharedPool.idle).toContain(warm);
  });

  it('a thread killed at the time limit is not given back; the next execution runs on another', async () => {
    host = makeHost('pool');
    await host.load();
    await host.run('countGlobal', [], { kind: 'trigger' });
    const warm = sharedPool.idle.at(-1);
    const killed = await host.run('spin', [], { kind: 'trigger', timeoutMs: 200 });
    expect([killed.status, killed.error.message]).toEqual(['timeout', 'Exceeded maximum execution time']);
    expect(sharedPool.idle).not.toContain(warm);
    const next = await host.run('countGlobal', [], { kind: 'trigger' });
    expect([next.status, next.value]).toEqual(['ok', { counted: 1, leaked: 1 }]);
  });

  it('a rebuilt bundle runs its new code on a warm thread that compiled the old one (same size, code cache made)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fq-pool-rebuilt-'));
    const code = (n: number) => `function version() { return ${n}; }\n`;
    try {
      writeFileSync(join(dir, 'Code.js'), code(1));
      host = new GasHost({ bundleDir: dir, dataDir: null });
      await host.load();
      expect((await host.run('version', [], { kind: 'trigger' })).value).toBe(1);
      expect((await host.run('version', [], { kind: 'trigger' })).value).toBe(1); // the thread now holds version 1 compiled
      writeFileSync(join(dir, 'Code.js'), code(2));
      utimesSync(join(dir, 'Code.js'), new Date(), new Date(Date.now() + 5000)); // a later build, even on a coarse clock
      expect((await host.run('version', [], { kind: 'trigger' })).value).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps up to 32 finished threads warm, so a burst of 30 executions after another starts no new thread', async () => {
    const pool = new WorkerPool();
    // Stand-in threads: the pool's bookkeeping is under test, not thread start-up.
    pool.spawn = () => ({ ref() {}, unref() {}, terminate: async () => 0 }) as any;
    try {
      const taken = Array.from({ length: 33 }, () => pool.take());
      for (const worker of taken) pool.give(worker);
      expect(pool.idle.length).toBe(32);
      const again = Array.from({ length: 30 }, () => pool.take());
      expect(again.every((worker) => taken.includes(worker))).toBe(true);
      for (const worker of again) pool.give(worker);
    } finally {
      await pool.close();
    }
  });
});
