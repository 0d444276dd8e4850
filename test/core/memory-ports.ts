// The in-memory ports every core test plugs in: a Queue with hooks between calls, a scripted Gemini, a mailer with an outbox, properties, a cache.
import { readFileSync } from 'node:fs';
import type { BounceMailbox, BounceNotice, Cache, Clock, GeminiClient, GeminiOutcome, GeminiRequest, IncidentSink, Mailer, OutgoingMail, PropertyStore, Random, SentCopy, SentMailbox } from '../../src/core/domain/ports';
import type { AuditLog, ConfigStore, FormConfig, JournalStore, LogEntry, QueueStore, CellNote, RowIdentity, SuppressionList, TallyEntry, TallyRow, TallyStore } from '../../src/core/domain/sheet-ports';
import type { IncidentCode } from '../../src/core/domain/failures/codes';
import { blankFormConfig } from '../../src/core/domain/config/form-config';
import { emptyRow, type QueueRow } from '../../src/core/domain/queue/queue-row';
import type { JournalEntry, JournalRecord } from '../../src/core/domain/queue/journal-line';
import { holdsIdentity, mergeWrite, stillHolds, unchangedSince } from '../../src/core/domain/queue/row-write';
import { readSettings, type Settings } from '../../src/core/domain/config/settings';
import type { SuppressedEntry } from '../../src/core/domain/mail/suppression';
import { newSummary, type ProcessingDeps, type Run } from '../../src/core/processing/run-context';

const FIXTURES = new URL('../fixtures/', import.meta.url);

export function geminiFixture(name: string): string {
  return readFileSync(new URL(`gemini/${name}.json`, FIXTURES), 'utf8');
}

export function typeformFixture(name: string): string {
  return JSON.stringify(JSON.parse(readFileSync(new URL(`typeform/${name}.json`, FIXTURES), 'utf8')));
}

export const T0 = Date.UTC(2026, 10, 20, 10, 0, 0);

export class FakeClock implements Clock {
  constructor(public time: number = T0) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

/** Returns the given values in turn, forever. */
export function fixedRandom(...values: number[]): Random {
  let i = 0;
  return { next: () => values[i++ % values.length] };
}

const clone = (row: QueueRow): QueueRow => ({ ...row });

export class MemoryQueue implements QueueStore {
  rows: QueueRow[];
  archived = new Set<string>();
  writes: QueueRow[][] = [];
  flushes = 0;
  /** Runs before readRows answers: another writer acting between our claim and its read-back. */
  beforeReadRows: ((numbers: readonly number[], queue: MemoryQueue) => void) | null = null;
  /** Runs before writeRows places its rows: a staff sort or insert between the run's read and its write. */
  beforeWriteRows: ((rows: readonly QueueRow[], queue: MemoryQueue) => void) | null = null;
  /** Thrown by the next call of the named method (a Sheets outage, a bug). */
  failOn: { method: 'readAll' | 'writeRows' | 'readRows' | 'archivedKeys'; error: Error } | null = null;

  constructor(rows: QueueRow[]) {
    this.rows = rows.map((row, i) => ({ ...row, rowNumber: i + 2 }));
  }

  private fail(method: 'readAll' | 'writeRows' | 'readRows' | 'archivedKeys'): void {
    if (this.failOn?.method === method) {
      const error = this.failOn.error;
      this.failOn = null;
      throw error;
    }
  }

  row(rowNumber: number): QueueRow {
    const found = this.rows.find((row) => row.rowNumber === rowNumber);
    if (!found) throw new Error(`no row ${rowNumber}`);
    return found;
  }

  edit(rowNumber: number, patch: Partial<QueueRow>): void {
    Object.assign(this.row(rowNumber), patch);
  }

  /** Where the submission `read` names stands now, if it still holds what was read (compare-and-set), else null. */
  private place(rowNumber: number, read: QueueRow | RowIdentity): number | null {
    const holds = (at: QueueRow) => ('rowNumber' in read ? stillHolds(at, read) : holdsIdentity(at, read));
    const here = this.rows.find((at) => at.rowNumber === rowNumber);
    if (here && holds(here)) return rowNumber;
    const elsewhere = this.rows.filter((at) => at.eventId === read.eventId && at.rowNumber !== rowNumber);
    return read.eventId !== '' && elsewhere.length === 1 && holds(elsewhere[0]) ? elsewhere[0].rowNumber : null;
  }

  /** Staff sort the sheet, or insert or delete rows above: every row gets the number of its new position. */
  reorder(order: (rows: QueueRow[]) => QueueRow[]): void {
    this.rows = order([...this.rows]).map((row, i) => Object.assign(row, { rowNumber: i + 2 }));
  }

  readAll(): QueueRow[] {
    this.fail('readAll');
    return this.rows.map(clone);
  }
  readRows(rowNumbers: readonly number[]): QueueRow[] {
    this.fail('readRows');
    this.beforeReadRows?.(rowNumbers, this);
    return this.rows.filter((row) => rowNumbers.includes(row.rowNumber)).map(clone);
  }
  writeRows(rows: readonly QueueRow[], read: readonly QueueRow[]): (QueueRow | null)[] {
    this.fail('writeRows');
    this.beforeWriteRows?.(rows, this);
    const taken = new Set<number>();
    const placed = rows.map((row, i) => {
      const at = this.place(row.rowNumber, read[i]);
      if (at === null || taken.has(at)) return null;
      taken.add(at);
      return { ...clone(row), rowNumber: at };
    });
    // What lands is what the Sheets adapter writes: the writer's changes merged into the row as it is now.
    const landed = placed.flatMap((row, i) => (row === null ? [] : [mergeWrite(read[i], row, this.row(row.rowNumber))]));
    this.writes.push(landed.map(clone));
    for (const row of landed) Object.assign(this.row(row.rowNumber), clone(row));
    return placed;
  }
  /** Edited rows, at the numbers they were read at: all or nothing (QueueStore.writeEditedRows). */
  writeEditedRows(rows: readonly QueueRow[], read: readonly QueueRow[]): boolean {
    if (!read.every((seen) => this.rows.some((at) => at.rowNumber === seen.rowNumber && unchangedSince(at, seen)))) return false;
    rows.forEach((row, i) => Object.assign(this.row(read[i].rowNumber), mergeWrite(read[i], row, this.row(read[i].rowNumber))));
    this.writes.push(rows.map(clone));
    return true;
  }
  appendRows(rows: readonly QueueRow[]): void {
    for (const row of rows) this.rows.push({ ...row, rowNumber: this.rows.length + 2 });
  }
  archiveRows(rows: readonly QueueRow[]): QueueRow[] {
    const placed = rows.map((row) => this.place(row.rowNumber, row)).filter((at): at is number => at !== null);
    const archived = this.rows.filter((row) => placed.includes(row.rowNumber)).map(clone);
    this.rows = this.rows.filter((row) => !placed.includes(row.rowNumber)).map((row, i) => Object.assign(row, { rowNumber: i + 2 }));
    return archived;
  }
  /** Cell notes by "row:header" (noteCells). */
  notes = new Map<string, string>();
  noteCells(notes: readonly CellNote[]): void {
    for (const n of notes) {
      const at = this.place(n.rowNumber, n.expected);
      if (at !== null) this.notes.set(`${at}:${n.header}`, n.note);
    }
  }
  archivedKeys(): Set<string> {
    this.fail('archivedKeys');
    return new Set(this.archived);
  }
  flush(): void {
    this.flushes++;
  }
}

export class MemoryConfig implements ConfigStore {
  constructor(public forms: FormConfig[] = []) {}
  readForms(): FormConfig[] {
    return this.forms.map((form) => ({ ...form }));
  }
}

export function formConfig(patch: Partial<FormConfig> = {}): FormConfig {
  return { ...blankFormConfig('*'), ...patch };
}

export const okOutcome = (text = 'Dear Mina, thank you.'): GeminiOutcome => ({
  kind: 'http',
  status: 200,
  body: JSON.stringify({ candidates: [{ content: { parts: [{ text }] }, finishReason: 'STOP' }] }),
});

export const fixtureOutcome = (status: number, name: string): GeminiOutcome => ({ kind: 'http', status, body: geminiFixture(name) });

export class MemoryGemini implements GeminiClient {
  calls: GeminiRequest[][] = [];
  /** Answers each request; the default writes a good reply. */
  respond: (request: GeminiRequest, callIndex: number) => GeminiOutcome = () => okOutcome();
  /** Runs once per generateAll call (e.g. the clock moving on by Gemini's latency). */
  onCall: (() => void) | null = null;

  generateAll(requests: readonly GeminiRequest[]): GeminiOutcome[] {
    const callIndex = this.calls.length;
    this.calls.push([...requests]);
    this.onCall?.();
    return requests.map((request) => this.respond(request, callIndex));
  }
  requestCount(): number {
    return this.calls.reduce((sum, call) => sum + call.length, 0);
  }
}

export class MemoryMailer implements Mailer {
  outbox: OutgoingMail[] = [];
  quotaChecks = 0;
  /** A platform error message for this mail, or undefined to send it. */
  failWith: (mail: OutgoingMail) => string | undefined = () => undefined;
  constructor(public quota = 100) {}
  remainingDailyQuota(): number {
    this.quotaChecks++;
    return this.quota;
  }
  send(mail: OutgoingMail): void {
    const message = this.failWith(mail);
    if (message !== undefined) throw new Error(message);
    this.quota--;
    this.outbox.push(mail);
  }
}

export class MemoryAudit implements AuditLog {
  batches: LogEntry[][] = [];
  /** The event ids of each historiesOf call, in order: how often the Log was looked up. */
  lookups: string[][] = [];
  /** Runs after each historiesOf answer: another writer adding a line between the lookup and its use. */
  afterLookup: ((audit: MemoryAudit) => void) | null = null;
  append(entries: readonly LogEntry[]): void {
    this.batches.push([...entries]);
  }
  get entries(): LogEntry[] {
    return this.batches.flat();
  }
  historiesOf(keys: readonly string[]): Map<string, LogEntry[]> {
    this.lookups.push([...keys]);
    // As the Sheets Log: a key is an event_id or a submission identity, and a line answers either.
    const found = new Map(keys.map((key): [string, LogEntry[]] => [key, this.entries.filter((entry) => entry.eventId === key || entry.submission === key)]));
    this.afterLookup?.(this);
    return found;
  }
}

/** The Sent folder: copies carrying a reference are found by a query naming it; every query is kept. */
export class MemorySentMailbox implements SentMailbox {
  copies: SentCopy[] = [];
  queries: string[] = [];
  failWith: string | null = null;
  search(query: string): SentCopy[] {
    this.queries.push(query);
    if (this.failWith !== null) throw new Error(this.failWith);
    const ref = /"([^"]+)"/.exec(query)?.[1] ?? '';
    return this.copies.filter((copy) => copy.body.includes(ref) || copy.subject.includes(ref));
  }
}

export class MemoryIncidents implements IncidentSink {
  raised: { code: IncidentCode; detail: string; rows: readonly number[] }[] = [];
  cleared: IncidentCode[] = [];
  raise(code: IncidentCode, detail: string, rowNumbers: readonly number[] = []): void {
    this.raised.push({ code, detail, rows: rowNumbers });
  }
  clear(code: IncidentCode): void {
    this.cleared.push(code);
  }
  /** Incidents an earlier execution left open (a test sets them). */
  prior = new Map<IncidentCode, { runs: number; rowCount: number }>();
  priorOpen(code: IncidentCode): { runs: number; rowCount: number } | null {
    return this.prior.get(code) ?? null;
  }
  codes(): IncidentCode[] {
    return this.raised.map((incident) => incident.code);
  }
}

export function settingsWith(props: Record<string, string> = {}): Settings {
  return readSettings({ GEMINI_API_KEY: 'AIzaSyTESTKEY0123456789abcdefghij', ...props }).settings;
}

/** A PENDING row for the essay fixture (recipient and payload filled as intake would). */
export function pendingRow(patch: Partial<QueueRow> = {}): QueueRow {
  return {
    ...emptyRow(),
    status: 'PENDING',
    eventId: `evt-${Math.abs(hash(JSON.stringify(patch)))}`,
    receivedAt: T0 - 60_000,
    formId: 'Wr1tE5sy',
    responseToken: `tok-${Math.abs(hash(JSON.stringify(patch)))}`,
    recipient: 'mina.okafor@example.com',
    submission: 'Your name: Mina Okafor\nPaste your essay: Caching is the art of remembering answers.',
    payload: typeformFixture('essay-submission'),
    updatedAt: T0 - 60_000,
    ...patch,
  };
}

function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  return h;
}

export interface World {
  deps: ProcessingDeps;
  queue: MemoryQueue;
  config: MemoryConfig;
  gemini: MemoryGemini;
  mailer: MemoryMailer;
  audit: MemoryAudit;
  incidents: MemoryIncidents;
  clock: FakeClock;
  drains: number;
}

export function world(rows: QueueRow[], props: Record<string, string> = {}, forms: FormConfig[] = [formConfig()]): World {
  const w = {
    queue: new MemoryQueue(rows),
    config: new MemoryConfig(forms),
    gemini: new MemoryGemini(),
    mailer: new MemoryMailer(),
    audit: new MemoryAudit(),
    incidents: new MemoryIncidents(),
    clock: new FakeClock(),
    drains: 0,
  } as World;
  w.deps = {
    queue: w.queue,
    config: w.config,
    gemini: w.gemini,
    mailer: w.mailer,
    audit: w.audit,
    incidents: w.incidents,
    clock: w.clock,
    random: fixedRandom(0.5),
    settings: settingsWith(props),
    drainSpill: () => {
      w.drains++;
    },
  };
  return w;
}

/** A processing run over the world's ports as runProcessing starts one: its rows and forms read, nothing raised or held yet. */
export function runOf(w: World, deadline = T0 + w.deps.settings.runBudgetSeconds * 1000): Run {
  return {
    deps: w.deps,
    settings: w.deps.settings,
    deadline,
    rows: w.queue.readAll(),
    forms: w.config.readForms(),
    summary: newSummary(),
    raised: new Set(),
    setAside: new Set(),
    secrets: [],
    gone: new Set(),
    ledger: new Map(),
    held: null,
  };
}

export class MemoryProperties implements PropertyStore {
  values: Record<string, string> = {};
  calls = { getAll: 0, get: 0, set: 0, setMany: 0, delete: 0 };
  getAll(): Record<string, string> {
    this.calls.getAll++;
    return { ...this.values };
  }
  get(key: string): string | undefined {
    this.calls.get++;
    return this.values[key];
  }
  set(key: string, value: string): void {
    this.calls.set++;
    this.values[key] = value;
  }
  setMany(values: Record<string, string>): void {
    this.calls.setMany++;
    Object.assign(this.values, values);
  }
  delete(key: string): void {
    this.calls.delete++;
    delete this.values[key];
  }
}

/** The script cache: a map, with no expiry (tests that need one advance nothing and assert on the key). */
export class MemoryCache implements Cache {
  values = new Map<string, string>();
  get(key: string): string | null {
    return this.values.get(key) ?? null;
  }
  put(key: string, value: string): void {
    this.values.set(key, value);
  }
}

/** The Tally sheet in memory; `before` runs ahead of every call, where a test lets other executions in. */
export class MemoryTally implements TallyStore {
  rows: TallyRow[] = [];
  reads = 0;
  failDelete = false;
  private seq = 0;
  before: (call: 'append' | 'read' | 'deleteFirst') => void = () => undefined;
  append(entry: TallyEntry): void {
    this.before('append');
    this.rows.push({ ...entry, id: `tally-${++this.seq}` });
  }
  read(): TallyRow[] {
    this.before('read');
    this.reads += 1;
    return this.rows.map((row) => ({ ...row }));
  }
  deleteFirst(count: number): void {
    this.before('deleteFirst');
    if (this.failDelete) throw new Error('Exception: Service Spreadsheets timed out');
    this.rows.splice(0, count);
  }
}

/** The Journal sheet: lines from row 2, appended only (unless a test edits `lines` as a person with access would). */
export class MemoryJournal implements JournalStore {
  lines: JournalEntry[] = [];
  /** How many times each method was called: the Journal's cost. */
  reads = { linesFrom: 0, recordsOf: 0, allKeys: 0 };
  /** Thrown by every call (no Journal sheet yet: Set up makes it). */
  missing: Error | null = null;
  private check(): void {
    if (this.missing) throw this.missing;
  }
  linesFrom(from: number): { lines: { rowNumber: number; key: string; eventId: string }[]; next: number } {
    this.check();
    this.reads.linesFrom++;
    const last = this.lines.length + 1;
    const lines = this.lines.slice(Math.max(0, from - 2)).map((line, i) => ({ rowNumber: Math.max(2, from) + i, key: line.key, eventId: line.eventId }));
    return { lines, next: Math.max(from, last + 1) };
  }
  recordsOf(keys: readonly string[]): JournalRecord[] {
    this.check();
    this.reads.recordsOf++;
    return this.lines.flatMap((line, i) => (keys.includes(line.key) ? [{ ...line, rowNumber: i + 2 }] : []));
  }
  allKeys(): Set<string> {
    this.check();
    this.reads.allKeys++;
    return new Set(this.lines.map((line) => line.key));
  }
  append(entries: readonly JournalEntry[]): void {
    this.check();
    this.lines.push(...entries.map((entry) => ({ ...entry })));
  }
}

/** The Suppressed sheet: its lines, the reads made and the lines added. */
export class MemorySuppression implements SuppressionList {
  reads = 0;
  constructor(public entries: SuppressedEntry[] = []) {}
  read(): SuppressedEntry[] {
    this.reads++;
    return this.entries.map((entry) => ({ ...entry }));
  }
  add(entries: readonly SuppressedEntry[]): void {
    this.entries.push(...entries);
  }
}

/** The inbox: notices found by any query arriving after its `after:` seconds; every list and read is kept. */
export class MemoryBounceMailbox implements BounceMailbox {
  notices: BounceNotice[] = [];
  queries: string[] = [];
  reads: string[] = [];
  failWith: string | null = null;
  list(query: string): string[] {
    this.queries.push(query);
    if (this.failWith !== null) throw new Error(this.failWith);
    const after = Number(/after:(\d+)/.exec(query)?.[1] ?? 0) * 1000;
    return this.notices.filter((notice) => notice.receivedAt >= after).map((notice) => notice.id).reverse();
  }
  read(id: string): BounceNotice {
    this.reads.push(id);
    const notice = this.notices.find((n) => n.id === id);
    if (!notice) throw new Error('Requested entity was not found.');
    return notice;
  }
}
