// In-memory ports for intake: a Queue, Archive and Rejected as arrays, a lock that can be held, a cache, props and a spill.
import type { JournalEntry } from '../../../src/core/domain/queue/journal-line';
import { blankFormConfig } from '../../../src/core/domain/config/form-config';
import type { IntakeDeps, IntakeSheetsWithConfig } from '../../../src/core/intake/intake';
import { REJECTED_TOTALS_PROPERTY } from '../../../src/core/domain/typeform/rejection-tally';
import type { FormConfig, RejectedDelivery } from '../../../src/core/domain/sheet-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { isSameSubmission } from '../../../src/core/domain/queue/submission-keys';
import { readSettings } from '../../../src/core/domain/config/settings';
import { MemoryCache, MemoryProperties, MemoryTally } from '../memory-ports';

export const TOKEN = 'current-token-0123456789abcdef-7Qz';
export const OLD_TOKEN = 'previous-token-0123456789abcdef-k4W';

export function form(formId: string, enabled = true): FormConfig {
  return { ...blankFormConfig(formId), enabled };
}

export interface MemoryIntake {
  deps: IntakeDeps;
  queue: QueueRow[];
  archive: QueueRow[];
  payloads: string[][];
  rejected: RejectedDelivery[];
  /** The Tally sheet: one row per rejection counted. */
  tally: MemoryTally;
  spilled: { id: string; receivedAt: number; body: string }[];
  logs: string[];
  props: Record<string, string>;
  forms: FormConfig[];
  lockHeld: { value: boolean };
  sheetsDown: { value: boolean };
  flushes: number;
  /** Where each findDuplicate looked: 'Queue', or 'Queue+Archive'. */
  searched: string[];
  /** How many times the Config sheet was read. */
  configReads: number;
  /** The Journal sheet's lines. */
  journal: JournalEntry[];
  /** Set: the Journal refuses appends with this message (a protection, a missing sheet). */
  journalFails: { value: string | null };
}

export function memoryIntake(options: { props?: Record<string, string>; now?: number } = {}): MemoryIntake {
  const state: MemoryIntake = {
    queue: [],
    archive: [],
    searched: [],
    payloads: [],
    rejected: [],
    tally: new MemoryTally(),
    spilled: [],
    logs: [],
    props: { WEBHOOK_TOKEN: TOKEN, ...options.props },
    forms: [form('*')],
    lockHeld: { value: false },
    sheetsDown: { value: false },
    flushes: 0,
    configReads: 0,
    journal: [],
    journalFails: { value: null },
    deps: undefined as unknown as IntakeDeps,
  };
  const cache = new MemoryCache();
  const props = new MemoryProperties();
  // The same object: tests read and seed state.props directly.
  props.values = state.props;
  // Sheets refuses a cell over 50,000 characters, and the whole write with it.
  const fits = (cells: unknown[]) => {
    const over = cells.find((cell) => typeof cell === 'string' && cell.length > 50000);
    if (over !== undefined) throw new Error('Exception: Your input contains more than the maximum of 50000 characters in a single cell.');
  };
  let spillSeq = 0;
  const sheets: IntakeSheetsWithConfig = {
    get tally() {
      return state.tally;
    },
    readForms: () => {
      state.configReads += 1;
      return state.forms;
    },
    findDuplicate(eventId, token, where) {
      state.searched.push(where.archive ? 'Queue+Archive' : 'Queue');
      const places = [['Queue', state.queue], ['Archive', state.archive]] as const;
      for (const [name, rows] of where.archive ? places : places.slice(0, 1)) {
        const row = rows.find((r) => isSameSubmission(r, { eventId, responseToken: token }));
        if (row) return { sheet: name, rowNumber: row.rowNumber };
      }
      return null;
    },
    appendQueueRow(row, chunks) {
      for (const text of chunks) fits([text]);
      fits(Object.values(row));
      for (const [i, text] of chunks.entries()) state.payloads.push([row.eventId, String(i + 1), String(chunks.length), text]);
      row.rowNumber = state.queue.length + 2;
      state.queue.push({ ...row });
      return row.rowNumber;
    },
    appendJournal(entry) {
      if (state.journalFails.value !== null) throw new Error(state.journalFails.value);
      state.journal.push({ ...entry });
    },
    appendRejected: (entry) => {
      fits(Object.values(entry));
      state.rejected.push(entry);
    },
    flush: () => void (state.flushes += 1),
  };
  state.deps = {
    settings: readSettings(state.props).settings,
    clock: { now: () => options.now ?? Date.UTC(2026, 10, 30, 12, 0, 0) },
    lock: {
      tryLock: () => !state.lockHeld.value,
      release: () => undefined,
    },
    cache,
    props,
    mirroredForms: null,
    // Read when a rejection looks, as doPost's snapshot is read when it starts: tests seed state.props at any time.
    get rejectedTotalsAtStart() {
      return state.props[REJECTED_TOTALS_PROPERTY];
    },
    spill: {
      save: (receivedAt, body) => void state.spilled.push({ id: `${receivedAt}-${++spillSeq}`, receivedAt, body }),
      list: () => [...state.spilled],
      remove: (id) => void (state.spilled = state.spilled.filter((s) => s.id !== id)),
      size: () => state.spilled.reduce((n, s) => n + s.body.length, 0),
      count: () => state.spilled.length,
    },
    openSheets: () => {
      if (state.sheetsDown.value) throw new Error('Exception: Service Spreadsheets failed while accessing document with id x.');
      return sheets;
    },
    dateKey: (now) => new Date(now).toISOString().slice(0, 10),
    log: (message) => void state.logs.push(message),
  };
  return state;
}

/** Wraps the intake's lock so a test can count how often it was taken and released. */
export function countLocks(m: MemoryIntake): { taken: number; released: number } {
  const locks = { taken: 0, released: 0 };
  const lock = m.deps.lock;
  m.deps.lock = {
    tryLock: (ms) => {
      locks.taken += 1;
      return lock.tryLock(ms);
    },
    release: () => void (locks.released += 1),
  };
  return locks;
}
