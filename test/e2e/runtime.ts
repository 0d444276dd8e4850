// The local runtime of the e2e tests: harness/runtime.mjs's harness (the bundle in GasHost after Set up, the offline Gemini) behind the HTTP front; one per file, reset before each test.
import { readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';
import { resetHost, startHost } from '../../harness/runtime.mjs';
import { startServer } from '../../emulator/server.mjs';
import { QUEUE_HEADERS, type QueueHeader } from '../../src/core/domain/queue/queue-row';

export const TOKEN = 'e2e-webhook-token-7f3a9c1d2b4e6f80';
export const GEMINI_KEY = 'AIzaOfflineTestKey000000000000000000000';
export const HEALTH_TOKEN = 'e2e-health-token-3b8d0f1a6c2e4957aa';
export const BUNDLE_DIR = new URL('../../dist', import.meta.url).pathname;

export function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/typeform/${name}`, import.meta.url), 'utf8');
}

/** A delivery of the essay fixture with its ids replaced, so each call is a distinct submission. */
export function submission(n: number | string, patch: (body: any) => void = () => undefined): string {
  const body = JSON.parse(fixture('essay-submission.json'));
  body.event_id = `01E2E${String(n).padStart(21, '0')}`;
  body.form_response.token = `tok${String(n).padStart(29, '0')}`;
  patch(body);
  return JSON.stringify(body);
}

export type QueueObject = Record<QueueHeader, unknown>;

/** A mail in the runtime's outbox, as the tests read it. */
export interface Mail {
  to: string;
  subject: string;
  body: string;
}

export interface Runtime {
  host: any;
  url: string;
  gemini: { baseUrl: string; close(): Promise<void>; requests: unknown[] };
  /** The offline Typeform API (TYPEFORM_BASE_URL = url + '/typeform'): every /exec POST is recorded there as a response. */
  typeform: any;
  /** POSTs to /exec as Typeform does and follows the 302 with a GET; returns the parsed answer. */
  deliver(body: string, token?: string | null): Promise<any>;
  run(fn: string, opts?: Record<string, unknown>): Promise<any>;
  queue(): QueueObject[];
  sheet(name: string): { header: unknown[]; rows: unknown[][]; formulas: unknown[][] };
  /**
   * Makes this runtime what `startRuntime(options)` would start (options may differ from the first start's): the host,
   * its offline Gemini and the HTTP front made anew, then Set up. Nothing of an earlier test is left
   * (test/emulator/runtime-reset.test.ts checks each piece of state).
   */
  reset(options?: RuntimeOptions): Promise<Runtime>;
  close(): Promise<void>;
}

/**
 * `props` go on top of the harness's Script Properties, `host` are GasHost options, and `worlds` pick the readings of
 * what Google does not document (emulator/worlds.mjs, e.g. { paste: 'value-only' }; a switch not named keeps its default).
 */
export interface RuntimeOptions {
  props?: Record<string, string>;
  host?: Record<string, unknown>;
  worlds?: Record<string, string>;
}

const harnessOptions = (options: RuntimeOptions) => ({
  bundleDir: BUNDLE_DIR, token: TOKEN, geminiKey: GEMINI_KEY, props: { HEALTH_TOKEN, ...options.props }, host: options.host, worlds: options.worlds,
});

/** A runtime for one test file: start it in beforeAll, reset() it before each test, close() it in afterAll. */
export async function startRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const started: { host: any; gemini: Runtime['gemini'] & { reset(): void } } = await startHost(harnessOptions(options));
  const { host, gemini } = started;
  const server = await startServer({ host, port: 0 });
  const runtime: Runtime = {
    host,
    url: server.url,
    gemini,
    get typeform() {
      return server.typeform;
    },
    async deliver(body, token = TOKEN) {
      const query = token === null ? '' : `?token=${encodeURIComponent(token)}`;
      // fetch follows the 302 with a GET, as Typeform would (docs/platform.md#web-apps).
      const response = await fetch(`${server.url}/exec${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await response.text();
      try {
        return JSON.parse(text);
      } catch {
        return { unparsed: text, status: response.status };
      }
    },
    run: (fn, opts = {}) => host.run(fn, [], { kind: 'trigger', ...opts }),
    queue() {
      const sheet = host.sheetJson('Queue');
      return sheet.rows.map((cells: unknown[]) => Object.fromEntries(QUEUE_HEADERS.map((name) => [name, cells[sheet.header.indexOf(name)]])) as QueueObject);
    },
    sheet: (name) => host.sheetJson(name),
    async reset(next = {}) {
      // The order of a fresh start: the host after Set up, then the front (which points the web-app URL at itself).
      await resetHost(host, gemini, harnessOptions(next));
      server.reset();
      return runtime;
    },
    async close() {
      await server.close();
      await host.dispose();
      await gemini.close();
    },
  };
  return runtime;
}

/**
 * One runtime for a test file, reset for each test: `const fresh = runtimePerFile();` at the top of the file, then
 * `rt = await fresh(options)` where a test used to start its own. The first call starts the runtime, each later one
 * resets it to what `startRuntime(options)` would start (Runtime.reset: nothing of the test before is left, and a run
 * still going is ended); it is closed after the file's last test. Starting once saves the offline Gemini's and the HTTP
 * front's start and stop for every test.
 */
export function runtimePerFile(): (options?: RuntimeOptions) => Promise<Runtime> {
  let shared: Runtime | null = null;
  afterAll(async () => {
    await shared?.close();
    shared = null;
  });
  return async (options = {}) => {
    shared = shared ? await shared.reset(options) : await startRuntime(options);
    return shared;
  };
}

/**
 * Lets `ms` pass for formqueue's stored clock readings only, moving no clock: every time formqueue keeps in Script
 * Properties (incidents and their history, the tick gate, the health snapshot) is moved `ms` into the past, so to
 * the next execution exactly `ms` has passed since they were written. Sheet cells, cache TTLs, the mail-quota day
 * and clock triggers stay where they are. `host.advanceClock(ms)` is the other way: it moves the runtime's time for
 * the host and every execution (Date.now() and new Date() inside scripts too, running ones included), and owes a
 * run to each clock trigger due in the skipped minutes (emulator/runtime-clock.mjs).
 */
export function letTimePass(host: any, ms: number): void {
  const all: Record<string, string> = host.properties.getAll();
  const back = (value: unknown) => (typeof value === 'number' ? value - ms : value);
  for (const [key, value] of Object.entries(all)) {
    if (key.startsWith('FQ_INCIDENT_') && key !== 'FQ_INCIDENT_HISTORY') {
      const incident = JSON.parse(value);
      for (const field of ['firstSeen', 'lastSeen', 'lastMailedAt', 'clearedAt']) incident[field] = back(incident[field]);
      host.properties.set(key, JSON.stringify(incident));
    } else if (key === 'FQ_INCIDENT_HISTORY') {
      const history = JSON.parse(value).map((entry: any) => ({ ...entry, firstSeen: back(entry.firstSeen), clearedAt: back(entry.clearedAt) }));
      host.properties.set(key, JSON.stringify(history));
    } else if (key === 'FQ_INTAKE_FORMS') {
      const copy = JSON.parse(value);
      host.properties.set(key, JSON.stringify({ ...copy, readAt: back(copy.readAt) }));
    } else if ((key === 'FQ_LAST_SWEEP_AT' || key === 'FQ_NEXT_DUE_AT' || key === 'FQ_CONFIG_EDITED_AT') && value !== '') {
      host.properties.set(key, String(Number(value) - ms));
    } else if (key === 'FQ_HEALTH') {
      const snapshot = JSON.parse(value);
      for (const field of ['at', 'p', 'w']) snapshot[field] = back(snapshot[field]);
      host.properties.set(key, JSON.stringify(snapshot));
    }
  }
}

/** GET /exec (doGet) as an uptime checker calls it, following the 302; the parsed answer. */
export async function getHealth(rt: Runtime, token: string | null = HEALTH_TOKEN): Promise<any> {
  const query = token === null ? '' : `?token=${encodeURIComponent(token)}`;
  const response = await fetch(`${rt.url}/exec${query}`);
  return JSON.parse(await response.text());
}

/** The A1 column letter of a Queue header, for a staff edit of that cell. */
export function queueColumn(header: QueueHeader): string {
  return String.fromCharCode(65 + QUEUE_HEADERS.indexOf(header));
}

/** A full processQueue run (FQ_DIRTY set, so the tick gate does not skip it), which must end ok. */
export async function fullRun(rt: Runtime): Promise<any> {
  rt.host.properties.set('FQ_DIRTY', String(Date.now()));
  const exec = await rt.run('processQueue');
  expect(exec.status, JSON.stringify(exec.error)).toBe('ok');
  return exec;
}
