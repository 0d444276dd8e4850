// Warm threads: executions reuse a finished execution's thread, yet each gets a fresh realm, and a killed thread is never reused.
import { afterEach, describe, expect, it } from 'vitest';
import { sharedPool } from '../../emulator/worker-pool.mjs';
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
});
