// Lock ports: the script lock guards processQueue runs; the user lock guards intake's check-and-append.
import type { Lock } from '../core/domain/ports';

function wrap(lock: GoogleAppsScript.Lock.Lock, flushOnRelease = true): Lock {
  // Whether this execution took the lock, known here without asking hasLock (a service call each time).
  let held = false;
  return {
    tryLock: (timeoutMs) => (held = lock.tryLock(timeoutMs)),
    release: () => {
      if (!held) return;
      held = false;
      try {
        if (!flushOnRelease) return;
        // Pending sheet writes are committed while the lock is still ours (https://developers.google.com/apps-script/reference/lock/lock).
        SpreadsheetApp.flush();
      } catch {
        // Sheets is failing: callers that needed their writes flushed did so themselves and saw the error.
      } finally {
        lock.releaseLock();
      }
    },
  };
}

export function scriptLock(): Lock {
  return wrap(LockService.getScriptLock());
}

/**
 * The lock every append to Queue takes. doPost runs as the deploying user (USER_DEPLOYING), and so do
 * the triggers that user installed, so the user lock serialises them without waiting on processQueue's
 * script lock, which a run holds for minutes.
 */
export function intakeLock(): Lock {
  return wrap(LockService.getUserLock());
}

/**
 * The intake lock for intake's own steps (doPost, the spill drain, Accept rejected), which flush every write before
 * they release it (storeDelivery, recordRejection's callers): no second flush, one service call saved per delivery.
 */
export function intakeLockFlushedByCaller(): Lock {
  return wrap(LockService.getUserLock(), false);
}

/**
 * The intake lock for doPost, which ends right after it answers: "The lock is automatically released when the script
 * terminates" (https://developers.google.com/apps-script/reference/lock/lock#releaseLock()), so it is left to that, one
 * service call saved per delivery. Everything doPost writes under it is flushed first (storeDelivery and the Rejected
 * path flush before they return), as the lock's documentation asks; a spill is in Script Properties, which need no flush.
 */
export function intakeLockReleasedAtExit(): Lock {
  const lock = LockService.getUserLock();
  return { tryLock: (timeoutMs) => lock.tryLock(timeoutMs), release: () => undefined };
}
