// The local runtime that bench, chaos and the end-to-end tests share: the built bundle in GasHost after Set up, the offline Gemini, deliveries as doPost executions.
import { readFileSync } from 'node:fs';
import { GasHost } from '../emulator/host.mjs';
import { startOfflineGemini } from '../emulator/offline-gemini.mjs';
import { LOCAL_TYPEFORM_TOKEN } from '../emulator/offline-typeform.mjs';
import { buildEvent, startServer } from '../emulator/server.mjs';

export const TOKEN = 'bench-webhook-token-5c1e9a7d3b2f4068a1';
export const GEMINI_KEY = 'AIzaBenchOfflineKey00000000000000000000';
/** The bundle under test: dist/, or FQ_BENCH_BUNDLE (a directory holding another Code.js, to compare a change with what came before). */
export const DIST_DIR = process.env.FQ_BENCH_BUNDLE || new URL('../dist', import.meta.url).pathname;
const FIXTURE = new URL('../test/fixtures/typeform/essay-submission.json', import.meta.url);
const WEBAPP = 'http://127.0.0.1:8787/exec';

/** GasHost options every runtime here starts with: `--latency` of `npm run bench` / `npm run chaos` (see setRuntimeDefaults). */
const runtimeDefaults = { latency: 'off', latencySeed: 1, worlds: {} };

/**
 * Sets the latency (`off`, `google`, `google:0.1`), its seed and the worlds (`{ paste: 'value-only' }`: readings of
 * what Google does not document, emulator/worlds.mjs) for every runtime started after this call.
 */
export function setRuntimeDefaults({ latency = 'off', latencySeed = 1, worlds = {} } = {}) {
  Object.assign(runtimeDefaults, { latency, latencySeed, worlds });
}

let fixtureText = null;
function fixture() {
  fixtureText ??= readFileSync(FIXTURE, 'utf8');
  return JSON.parse(fixtureText);
}

/** The event id of submission n (26 characters, like Typeform's ULIDs). */
export function eventIdOf(n) {
  return `01BEN${String(n).padStart(21, '0')}`;
}

/** The respondent of submission n: one address per event, so mails map back to events by `to`. */
export function recipientOf(n) {
  return `r${n}@example.com`;
}

/**
 * A delivery of the essay fixture as a distinct submission n (its own event id, token and respondent), submitted
 * seconds before it is sent, as Typeform's webhook sends a new response (the fixture's own date is days old).
 */
export function submission(n, patch = () => undefined) {
  const body = fixture();
  body.event_id = eventIdOf(n);
  body.form_response.landed_at = new Date(Date.now() - 20_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  body.form_response.submitted_at = new Date(Date.now() - 5_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  body.form_response.token = `tok${String(n).padStart(29, '0')}`;
  const email = body.form_response.answers.find((a) => a.type === 'email');
  if (email) email.email = recipientOf(n);
  patch(body);
  return JSON.stringify(body);
}

/**
 * The harness bench, chaos and the e2e tests share: the built bundle in a GasHost with the offline Gemini,
 * after Set up. `props` go on top of the Script Properties every runtime starts with; `host` are GasHost options;
 * `worlds` the readings of what Google does not document (emulator/worlds.mjs), e.g. { paste: 'value-only' }.
 */
export async function startHost({ bundleDir = DIST_DIR, token = TOKEN, geminiKey = GEMINI_KEY, props = {}, host: hostOptions = {}, gemini = null, worlds = /** @type {Record<string, string> | undefined} */ (undefined) } = {}) {
  const offline = gemini ?? (await startOfflineGemini({ port: 0 }));
  const host = new GasHost(gasHostOptions({ bundleDir, token, geminiKey, props, hostOptions, geminiBaseUrl: offline.baseUrl, worlds }));
  await setUp(host);
  return { host, gemini: offline };
}

/**
 * Returns a host startHost started (and its offline Gemini) to what startHost({ same options }) starts: the host made
 * anew (GasHost.reset), the Gemini's request log emptied, then Set up again. The options may differ from the first
 * start's (other Script Properties, worlds, host options): the result is the runtime a fresh start with them gives.
 */
export async function resetHost(host, gemini, { bundleDir = DIST_DIR, token = TOKEN, geminiKey = GEMINI_KEY, props = {}, host: hostOptions = {}, worlds = /** @type {Record<string, string> | undefined} */ (undefined) } = {}) {
  await host.reset(gasHostOptions({ bundleDir, token, geminiKey, props, hostOptions, geminiBaseUrl: gemini.baseUrl, worlds }));
  gemini.reset();
  await setUp(host);
  return { host, gemini };
}

/** The GasHost options startHost and resetHost build: the Script Properties every runtime starts with, `props` on top. */
function gasHostOptions({ bundleDir, token, geminiKey, props, hostOptions, geminiBaseUrl, worlds }) {
  return {
    bundleDir,
    dataDir: null,
    executionTimeoutMs: 60000,
    scriptProperties: {
      WEBHOOK_TOKEN: token,
      GEMINI_API_KEY: geminiKey,
      GEMINI_BASE_URL: geminiBaseUrl,
      STAFF_EMAILS: 'staff@example.com',
      SPREADSHEET_ID: 'local-spreadsheet',
      ...props,
    },
    spreadsheetId: 'local-spreadsheet',
    ...hostOptions,
    ...(worlds ? { worlds } : {}),
  };
}

/** Loads the host and runs Set up as staff do first (a fresh runtime's last step). */
async function setUp(host) {
  await host.load();
  const setup = await host.run('setup', [], { kind: 'menu' });
  if (setup.status !== 'ok') throw new Error(`setup failed: ${JSON.stringify(setup.error)}`);
}

/**
 * Starts a fresh runtime for bench and chaos (daily quotas out of the way, the latency chosen by --latency).
 * `typeform: true` also serves the offline Typeform API (TYPEFORM_TOKEN and TYPEFORM_BASE_URL set), where every
 * delivery is recorded, refused or not, as Typeform stores every submission.
 * Returns helpers around the host; `close()` disposes of everything it started.
 */
export async function startRuntime({ props = {}, host: hostOptions = {}, gemini: sharedGemini = null, typeform = false, worlds = /** @type {Record<string, string> | undefined} */ (undefined) } = {}) {
  // The daily quotas (mail, triggers' total runtime, URL Fetch) are out of the way here: bench and chaos measure and
  // shake the product, not a day's budget; the e2e tests run with the consumer figures (docs/runtime.md#limits).
  const quotasOff = { mailDailyQuota: 100000, triggerRuntimeDailyMs: 1000 * 24 * 60 * 60 * 1000, urlFetchDailyQuota: 10000000 };
  const { host, gemini } = await startHost({ props, host: { ...quotasOff, ...runtimeDefaults, ...hostOptions }, gemini: sharedGemini, worlds });
  const server = typeform ? await startServer({ host, port: 0 }) : null;
  if (server) {
    host.properties.set('TYPEFORM_TOKEN', LOCAL_TYPEFORM_TOKEN);
    host.properties.set('TYPEFORM_BASE_URL', `${server.url}/typeform`);
  }
  return {
    host,
    gemini,
    /** The HTTP front when `typeform` is on: its url, the offline Typeform store and Typeform's webhook sender. */
    server,
    /**
     * One Typeform delivery as a doPost execution; resolves with { answer, exec }. `typeform: false` is a post that did
     * not come from Typeform (an outsider's), so the offline Typeform does not store it as a response.
     */
    async deliver(body, token = TOKEN, { typeform: fromTypeform = true } = {}) {
      const url = new URL(token === null ? WEBAPP : `${WEBAPP}?token=${encodeURIComponent(token)}`);
      if (fromTypeform) server?.typeform.recordDelivery(body);
      const exec = await host.run('doPost', [buildEvent(url, Buffer.from(body, 'utf8'), 'application/json')], { kind: 'webapp' });
      let answer = null;
      try {
        answer = JSON.parse(String(exec.value?.content ?? ''));
      } catch {
        answer = { unparsed: exec.value ?? null, status: exec.status };
      }
      return { answer, exec };
    },
    run: (fn, opts = {}) => host.run(fn, [], { kind: 'trigger', ...opts }),
    /** Queue rows as objects keyed by header. */
    queue() {
      const sheet = host.sheetJson('Queue');
      return sheet.rows.map((cells) => Object.fromEntries(sheet.header.map((name, i) => [name, cells[i]])));
    },
    async close() {
      await server?.close();
      await host.dispose();
      if (!sharedGemini) await gemini.close();
    },
  };
}

/** Fills Queue with `count` PENDING rows cloned from one real delivery (ids, token and respondent made distinct). */
export async function pendingQueue(rt, count) {
  const first = await rt.deliver(submission(1));
  if (first.answer?.queued !== true) throw new Error(`bench: the seed delivery was not queued: ${JSON.stringify(first.answer)}`);
  const sheet = rt.host.ss.byName('Queue');
  const header = sheet.v[0];
  const seed = sheet.v[1];
  const at = (name) => header.indexOf(name);
  const rows = [];
  for (let n = 1; n <= count; n++) {
    const row = seed.slice();
    const swap = (text) => String(text).split(eventIdOf(1)).join(eventIdOf(n)).split(recipientOf(1)).join(recipientOf(n))
      .split(`tok${String(1).padStart(29, '0')}`).join(`tok${String(n).padStart(29, '0')}`);
    for (const name of ['event_id', 'response_token', 'recipient', 'submission', 'payload']) row[at(name)] = swap(seed[at(name)]);
    rows.push(row);
  }
  rt.host.loadSheet('Queue', header, rows);
  rt.host.properties.set('FQ_DIRTY', '1');
}

export function median(values) {
  const s = values.filter((v) => v !== null && v !== undefined).slice().sort((a, b) => a - b);
  if (s.length === 0) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
