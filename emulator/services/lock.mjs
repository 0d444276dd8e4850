// Host-owned locks: one owner execution per key, FIFO waiters, released (and handed over) when the owner ends.
import { setTimeout, clearTimeout } from 'node:timers';
import { GasError } from '../errors.mjs';

export const LOCK_TIMEOUT_MESSAGE = 'Lock timeout: another process was holding the lock for too long.';

export class LockTable {
  constructor() { this.locks = new Map(); }

  entry(key) {
    let e = this.locks.get(key);
    if (!e) { e = { owner: null, waiters: [] }; this.locks.set(key, e); }
    return e;
  }

  /** tryLock(0) answers at once; otherwise the promise resolves true on hand-over or false at the timeout [GAS-LOCK]. */
  acquire(key, execId, ms) {
    const e = this.entry(key);
    if (e.owner === null || e.owner === execId) { e.owner = execId; return true; }
    if (!(ms > 0)) return false;
    return new Promise((resolve) => {
      const w = { execId, resolve };
      w.timer = setTimeout(() => { e.waiters = e.waiters.filter((x) => x !== w); resolve(false); }, ms);
      e.waiters.push(w);
    });
  }

  release(key, execId) {
    const e = this.locks.get(key);
    if (!e || e.owner !== execId) return;
    e.owner = null;
    const next = e.waiters.shift();
    if (next) { clearTimeout(next.timer); e.owner = next.execId; next.resolve(true); }
  }

  /** "The lock is automatically released when the script terminates" [GAS-LOCK]: drop its waits, release what it holds. */
  releaseAll(execId) {
    for (const [key, e] of this.locks) {
      for (const w of e.waiters.filter((x) => x.execId === execId)) clearTimeout(w.timer);
      e.waiters = e.waiters.filter((x) => x.execId !== execId);
      if (e.owner === execId) this.release(key, execId);
    }
  }

  ownerOf(key) { return this.locks.get(key)?.owner ?? null; }
}

/**
 * The lock key a Lock facade stands for: the script lock is global, the user lock is per user [GAS-LOCK]. Whose user
 * lock a web-app call takes is the `userLock` world (worlds.mjs): the deployer's, as it runs as the deployer
 * (per-deployer), or the caller's (per-caller), where an anonymous caller is nobody another call could share it with.
 */
function keyOf(x, h) {
  if (h.k !== 'user') return h.k; // 'script' | 'document'
  if (x.exec.kind === 'webapp' && x.host.worlds.userLock === 'per-caller') return x.st.caller ? `user:${x.st.caller}` : `user:anonymous:${x.exec.id}`;
  return `user:${x.st.userEmail}`;
}

export const lockHandlers = {
  Lock: {
    tryLock: (x, h, [ms]) => x.host.locks.acquire(keyOf(x, h), x.exec.id, Number(ms) || 0),
    waitLock: async (x, h, [ms]) => {
      const ok = await x.host.locks.acquire(keyOf(x, h), x.exec.id, Number(ms) || 0);
      if (!ok) throw new GasError(LOCK_TIMEOUT_MESSAGE);
    },
    hasLock: (x, h) => x.host.locks.ownerOf(keyOf(x, h)) === x.exec.id,
    releaseLock: (x, h) => { x.host.locks.release(keyOf(x, h), x.exec.id); },
  },
};
