// Test support for the emulator front: typed loaders for the plain-JS emulator modules and a fake GasHost.
import { EventEmitter } from 'node:events';

/** Imports an emulator module by path; the .mjs files are untyped JS, so each test names the shape it uses. */
export async function load<T>(relativeToRepo: string): Promise<T> {
  return (await import(/* @vite-ignore */ new URL(`../../${relativeToRepo}`, import.meta.url).pathname)) as T;
}

export interface Served { url: string; port: number; close(): Promise<void> }
export interface ServerModule {
  startServer(o: { host: unknown; port?: number; hostname?: string }): Promise<Served>;
}

export interface Exec {
  id: string; functionName: string; kind: string; status: 'ok' | 'error' | 'timeout' | 'crash';
  value?: unknown; error?: { name: string; message: string }; logs: string[]; startedAt: string; durationMs: number;
  calls: Record<string, number>; serviceCalls: number; cellsRead: number; cellsWritten: number; fetches: number;
  mailsSent: number; spreadsheetOpened: boolean;
}
export type Handler = (args: unknown[], opts: Record<string, unknown>) => Partial<Exec> | undefined;
export interface Mail { to: string; subject: string; body: string; htmlBody?: string; name?: string; replyTo?: string;
  cc?: string; bcc?: string; sentAt: string; executionId?: string; via?: string; from?: string;
  attachments?: { name: string; contentType: string; data: string }[] }

/** A stand-in with the GasHost API the front codes against (see the brief); it records what it was asked. */
export class FakeHost extends EventEmitter {
  runs: { fn: string; args: unknown[]; opts: Record<string, unknown> }[] = [];
  executions: Exec[] = [];
  triggers = [{ id: 't1', handler: 'processQueue', type: 'CLOCK', everyMinutes: 1 }, { id: 't2', handler: 'onEditInstallable', type: 'ON_EDIT' }];
  outbox: Mail[] = [];
  edits: unknown[] = [];
  sheets = new Map<string, { name: string; header: string[]; rows: unknown[][]; formulas: string[][] }>();
  private faultList: unknown[] = [];
  private props = new Map<string, string>();
  clock: number | null = null;
  saved = 0;
  properties = {
    get: (k: string) => this.props.get(k) ?? null,
    set: (k: string, v: string) => { this.props.set(k, v); },
    delete: (k: string) => { this.props.delete(k); },
    getAll: () => Object.fromEntries(this.props),
  };
  faults = {
    add: (f: { target: string; status?: unknown }) => {
      if (f.target === 'gemini' && f.status === 'nope') throw new Error('status must be a number');
      this.faultList.push(f);
    },
    clear: () => { this.faultList = []; },
    remove: (id: number) => { this.faultList = this.faultList.filter((f) => (f as { id?: number }).id !== id); },
    list: () => this.faultList.slice(),
  };

  constructor(public handlers: Record<string, Handler> = {}) {
    super();
    this.sheets.set('Queue', { name: 'Queue', header: ['status', 'event_id'], rows: [['PENDING', 'ev1']], formulas: [['', '']] });
    this.sheets.set('Log', { name: 'Log', header: ['time'], rows: [], formulas: [] });
  }

  async load() {}
  async run(fn: string, args: unknown[], opts: Record<string, unknown>): Promise<Exec> {
    this.runs.push({ fn, args, opts });
    const handler = this.handlers[fn];
    const base: Exec = { id: `x${this.executions.length + 1}`, functionName: fn, kind: String(opts.kind), status: 'ok', logs: [],
      startedAt: new Date(0).toISOString(), durationMs: 3, calls: {}, serviceCalls: 0, cellsRead: 0, cellsWritten: 0, fetches: 0,
      mailsSent: 0, spreadsheetOpened: false };
    const exec: Exec = handler ? { ...base, ...handler(args, opts) }
      : { ...base, status: 'error', error: { name: 'ReferenceError', message: `Script function not found: ${fn}` } };
    this.executions.push(exec);
    this.emit('execution', exec);
    return exec;
  }
  sheetJson(name: string) { return this.sheets.get(name) ?? null; }
  sheetNames() { return [...this.sheets.keys()]; }
  async edit(e: unknown): Promise<Exec[]> {
    this.edits.push(e);
    return [await this.run('onEditInstallable', [e], { kind: 'edit' })];
  }
  sendMail(mail: Mail) { this.outbox.push(mail); this.emit('mail', mail); }
  startClock(seconds: number) { this.clock = seconds; }
  stopClock() { this.clock = null; }
  async tick() { return []; }
  async save() { this.saved++; }
  async dispose() {}
}

/** doPost/doGet handlers that answer with the event they saw, as JSON TextOutput. */
export const echoHandlers: Record<string, Handler> = {
  doPost: ([e]) => ({ value: { kind: 'TextOutput', content: JSON.stringify({ method: 'POST', e }), mimeType: 'JSON' } }),
  doGet: ([e]) => ({ value: { kind: 'TextOutput', content: JSON.stringify({ method: 'GET', e }), mimeType: 'JSON' } }),
};
