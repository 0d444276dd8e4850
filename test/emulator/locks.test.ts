// Contract tests for LockService: real contention between executions in separate workers.
import { afterEach, describe, expect, it } from 'vitest';
import { makeHost, until } from './helpers';

let host: any;
afterEach(async () => { await host?.dispose(); });

describe('LockService', () => {
  // [GAS-LOCK] tryLock(0) is a non-blocking probe; the script lock is global to the project.
  it('two executions racing for the script lock: exactly one wins tryLock(0)', async () => {
    host = makeHost('locks');
    host.faults.add({ target: 'gemini', pause: true });
    const a = host.run('holdLock', ['script'], { kind: 'trigger' });
    const b = host.run('holdLock', ['script'], { kind: 'trigger' });
    await host.faults.waitForPausedFetches(1);
    const loser = await Promise.race([a, b]);
    expect(loser.value).toBe(false);
    host.faults.clear();
    const both = await Promise.all([a, b]);
    expect(both.map((e: any) => e.value).sort()).toEqual([false, true]);
  });

  // [GAS-LOCK] "The lock is automatically released when the script terminates"; the 6-minute kill included.
  it('an execution killed by the time limit releases the script lock', async () => {
    host = makeHost('locks');
    const killed = await host.run('holdAndSpin', [], { kind: 'trigger', timeoutMs: 300 });
    expect(killed.status).toBe('timeout');
    expect(killed.error).toEqual({ name: 'Exception', message: 'Exceeded maximum execution time' });
    expect(host.locks.ownerOf('script')).toBe(null);
    expect((await host.run('tryLock', ['script'])).value).toBe(true);
  });

  // [GAS-LOCK] getScriptLock and getUserLock are different locks.
  it('the user lock is independent of the script lock', async () => {
    host = makeHost('locks');
    host.faults.add({ target: 'gemini', pause: true });
    const holder = host.run('holdLock', ['script'], { kind: 'trigger' });
    await host.faults.waitForPausedFetches(1);
    expect((await host.run('tryLock', ['user'], { kind: 'menu' })).value).toBe(true);
    expect((await host.run('tryLock', ['script'], { kind: 'menu' })).value).toBe(false);
    host.faults.clear();
    expect((await holder).value).toBe(true);
  });

  // (docs/platform.md#who-runs-what) web apps execute as the deploying user, so every doPost shares that user's lock.
  it('web-app executions share the deploying user lock; another user has their own', async () => {
    host = makeHost('locks');
    host.faults.add({ target: 'gemini', pause: true });
    const holder = host.run('holdLock', ['user'], { kind: 'webapp' });
    await host.faults.waitForPausedFetches(1);
    expect((await host.run('tryLock', ['user'], { kind: 'webapp' })).value).toBe(false);
    expect((await host.run('tryLock', ['user'], { kind: 'menu', user: 'staff@example.com' })).value).toBe(true);
    host.faults.clear();
    await holder;
  });

  // [GAS-LOCK] waitLock throws "Lock timeout: another process was holding the lock for too long."
  it('waitLock times out with Apps Script\'s message while another execution holds the lock', async () => {
    host = makeHost('locks');
    host.faults.add({ target: 'gemini', pause: true });
    const holder = host.run('holdLock', ['script'], { kind: 'trigger' });
    await host.faults.waitForPausedFetches(1);
    const waited = await host.run('waitFor', [50]);
    expect(waited.value).toEqual({
      ok: false, name: 'Exception', message: 'Lock timeout: another process was holding the lock for too long.',
      text: 'Exception: Lock timeout: another process was holding the lock for too long.',
    });
    host.faults.clear();
    await holder;
  });

  // [GAS-LOCK] a waiter gets the lock as soon as the holder's execution ends.
  it('waitLock acquires the lock when the holder finishes', async () => {
    host = makeHost('locks');
    const pause = host.faults.add({ target: 'gemini', pause: true });
    const holder = host.run('holdLock', ['script'], { kind: 'trigger' });
    await host.faults.waitForPausedFetches(1);
    const waiter = host.run('waitFor', [20000]);
    await until(() => host.locks.entry('script').waiters.length === 1, 'the waiter to queue');
    host.faults.remove(pause.id);
    expect((await holder).value).toBe(true);
    expect((await waiter).value).toEqual({ ok: true, has: true });
  });

  // [GAS-LOCK, GAS-CACHE] document lock, cache and properties are null in a web app.
  it('document lock, cache and properties are null in a web app but not in a menu run', async () => {
    host = makeHost('locks');
    expect((await host.run('documentScoped', [], { kind: 'webapp' })).value).toEqual({ lock: true, cache: true, props: true });
    expect((await host.run('documentScoped', [], { kind: 'menu' })).value).toEqual({ lock: false, cache: false, props: false });
  });
});
