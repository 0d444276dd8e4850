// Warm execution threads: every Apps Script execution still gets a fresh realm (its own vm context), not a new thread.
//
// Starting a worker thread and importing the realm costs about 100–250 ms of CPU, more than most executions take. A
// thread whose execution finished normally waits here for the next one; worker.mjs makes a new vm context (new
// globals, Code.js loaded again) for each, so no script state crosses executions, as on Google
// (https://developers.google.com/apps-script/guides/services/quotas: each execution starts the project afresh; globals
// do not persist). A thread killed mid-execution (time limit, crash, disposal) is never reused.
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

const WORKER_URL = new URL('./worker.mjs', import.meta.url);
/**
 * Threads kept warm at most: a burst of the 30 simultaneous executions a user may run (host.mjs), and two more, finds
 * its threads warm the next time; a bigger burst starts new ones, which end instead of piling up. An idle thread
 * holds about 15 MB.
 */
const MAX_IDLE = 32;

export class WorkerPool {
  constructor() {
    /** @type {Worker[]} */
    this.idle = [];
    this.closed = false;
    /** V8 code cache of each bundle file version (worker.mjs): key → bytes in shared memory, read by every thread. */
    this.codeCaches = new Map();
  }

  /**
   * What a job carries so a new thread need not compile the bundle again: the file version's key (path, size and
   * modification time, so a rebuilt bundle gets a new one) and its code cache once a thread has made it.
   * @param {string} file
   */
  codeCacheFor(file) {
    let codeKey = file;
    try {
      const stat = statSync(file);
      codeKey = `${file}:${stat.size}:${stat.mtimeMs}`;
    } catch { /* no bundle: the execution reports it */ }
    return { codeKey, codeCache: this.codeCaches.get(codeKey) ?? null };
  }

  /** Keeps the code cache a thread made for one bundle version (the latest wins; V8 rejects a stale one anyway). */
  keepCodeCache(key, bytes) {
    const shared = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(shared).set(bytes);
    this.codeCaches.set(key, shared);
  }

  /** A thread for one execution: a warm one, or a new one. It keeps the process alive until given back. */
  take() {
    const worker = this.idle.pop() ?? this.spawn();
    worker.ref();
    return worker;
  }

  spawn() {
    const worker = new Worker(WORKER_URL);
    // A running execution's host listens for its thread's errors; these keep an idle thread's from ending the process.
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
    });
    return worker;
  }

  /** Takes back a thread whose execution finished normally; past MAX_IDLE, or once closed, it ends. */
  give(worker) {
    if (this.closed || this.idle.length >= MAX_IDLE) {
      void worker.terminate();
      return;
    }
    worker.unref(); // an idle thread does not keep a test or the CLI from exiting
    this.idle.push(worker);
  }

  /** Ends the idle threads; later ones end when given back. */
  async close() {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((worker) => worker.terminate()));
  }
}

/**
 * The threads every host in this process shares: a test file or a chaos run starts many hosts, one after another.
 * Jobs carry their own bundle folder, so hosts of different bundles share threads too.
 */
export const sharedPool = new WorkerPool();
