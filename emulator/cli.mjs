// `npm start` entry: parses the command line of docs/runtime.md, wires host + HTTP server + offline Gemini + .eml outbox, runs until Ctrl-C.
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startServer } from './server.mjs';
import { startOfflineGemini } from './offline-gemini.mjs';
import { attachEmlWriter } from './eml.mjs';
import { runDemo } from './demo.mjs';
import { parseLatencySpec } from './latency.mjs';
import { describeWorlds, parseWorldPairs, resolveWorlds, worldsUsage } from './worlds.mjs';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OFFLINE_KEY = 'offline-stand-in';
const DEFAULT_USER = 'owner@example.com';
const DEFAULT_STAFF = 'staff@example.com';

export const USAGE = `Usage: npm start -- [options]

  --port PORT                HTTP port on 127.0.0.1 (default 8787; --demo picks a free one)
  --data DIR                 where the spreadsheet, properties, triggers and outbox live
                             (default .formqueue/, kept across restarts; --demo uses a fresh temp dir)
  --prop KEY=VALUE           set a Script Property (repeatable), e.g. --prop GEMINI_MODEL=gemini-2.5-flash
  --owner EMAIL              the deployer: the web app executes as this account, and runs nobody else
                             started (Set up at start, POST /api/run without "user") too (default owner@example.com)
  --trigger-interval SECONDS how often installed clock triggers fire (default 60; 0 turns the clock off)
  --latency off|google[:SCALE] delay every service call, execution start, flush, fetch and mail as Google would
                             (emulator/latency-model.json); google:0.1 sleeps a tenth of it (default off)
  --seed N                   seed of the latency draws (default 1; the same seed draws the same delays)
  --world KEY=VALUE          pick a reading of a platform answer Google does not document (repeatable; each
                             reading's source is in docs/runtime.md#worlds), e.g. --world paste=value-only:
${worldsUsage()}
  --demo                     replay the sample Typeform deliveries, process the queue, print the result, exit
  --help                     show this help

Without GEMINI_API_KEY (as --prop or in the environment) replies come from a local offline Gemini stand-in.`;

/** A command-line mistake: printed with the usage, exit code 2. */
export class CliError extends Error {}

/**
 * @typedef {{ port: number, portGiven: boolean, dataDir: string|null, props: Record<string, string>, owner: string,
 *   triggerIntervalSeconds: number, intervalGiven: boolean, demo: boolean, help: boolean, latency: string, seed: number,
 *   worlds: Record<string, string> }} CliOptions  worlds: only the switches given (the host fills in the defaults)
 */

/** @param {string[]} argv arguments after `node cli.mjs` @returns {CliOptions} */
export function parseCliArgs(argv) {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: {
      port: { type: 'string' }, data: { type: 'string' }, prop: { type: 'string', multiple: true },
      'trigger-interval': { type: 'string' }, owner: { type: 'string' }, demo: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      latency: { type: 'string' }, seed: { type: 'string' }, world: { type: 'string', multiple: true },
    } }));
  } catch (err) {
    throw new CliError(/** @type {Error} */ (err).message);
  }
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || values.port?.trim() === '') {
    throw new CliError(`--port expects a port number 0-65535, got "${values.port}"`);
  }
  const interval = values['trigger-interval'] === undefined ? 60 : Number(values['trigger-interval']);
  if (!Number.isFinite(interval) || interval < 0 || values['trigger-interval']?.trim() === '') {
    throw new CliError(`--trigger-interval expects seconds (0 turns the clock off), got "${values['trigger-interval']}"`);
  }
  if (values.data !== undefined && values.data.trim() === '') throw new CliError('--data expects a directory');
  const latency = values.latency ?? 'off';
  try { parseLatencySpec(latency); } catch (err) { throw new CliError(/** @type {Error} */ (err).message); }
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!Number.isSafeInteger(seed) || values.seed?.trim() === '') throw new CliError(`--seed expects a whole number, got "${values.seed}"`);
  const owner = values.owner === undefined ? DEFAULT_USER : values.owner.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(owner)) throw new CliError(`--owner expects an email address, got "${values.owner}"`);
  /** @type {Record<string, string>} */
  const props = {};
  for (const pair of values.prop ?? []) {
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq).trim() : '';
    if (!key) throw new CliError(`--prop expects KEY=VALUE (for example --prop GEMINI_MODEL=gemini-2.5-flash), got "${pair}"`);
    props[key] = pair.slice(eq + 1);
  }
  let worlds;
  try { worlds = parseWorldPairs(values.world ?? []); } catch (err) { throw new CliError(/** @type {Error} */ (err).message); }
  return { port, portGiven: values.port !== undefined, dataDir: values.data ?? null, props, owner, triggerIntervalSeconds: interval,
    intervalGiven: values['trigger-interval'] !== undefined, demo: Boolean(values.demo), help: Boolean(values.help), latency, seed, worlds };
}

/**
 * @typedef {{ bundleDir?: string, GasHost?: any, fixturesDirs?: string[], quiet?: boolean }} Deps  overridable for tests
 */

/**
 * Loads the bundle into a host, fills the Script Properties the bundle needs, and serves it.
 * @param {CliOptions} opts @param {Deps} [deps]
 */
export async function startRuntime(opts, deps = {}) {
  const bundleDir = deps.bundleDir ?? join(REPO_ROOT, 'dist');
  if (!existsSync(join(bundleDir, 'Code.js'))) {
    throw new CliError(`${join(bundleDir, 'Code.js')} not found. Run \`npm run build\` first (\`npm start\` builds it for you).`);
  }
  let GasHost = deps.GasHost;
  if (!GasHost) {
    try {
      ({ GasHost } = await import('./host.mjs'));
    } catch (err) {
      throw new CliError(`cannot load the runtime core (emulator/host.mjs): ${/** @type {Error} */ (err).message}`);
    }
  }
  const dataDir = opts.dataDir ? resolve(opts.dataDir) : opts.demo ? mkdtempSync(join(tmpdir(), 'formqueue-demo-')) : resolve('.formqueue');
  mkdirSync(dataDir, { recursive: true });
  const port = opts.demo && !opts.portGiven ? 0 : opts.port;

  const host = new GasHost({
    bundleDir, dataDir, scriptProperties: opts.props, ownerEmail: opts.owner ?? DEFAULT_USER, timeZone: manifestTimeZone(bundleDir),
    spreadsheetId: opts.props.SPREADSHEET_ID, webAppUrl: port ? `http://127.0.0.1:${port}/exec` : undefined,
    latency: opts.latency, latencySeed: opts.seed, worlds: opts.worlds,
  });
  await host.load();
  // --prop wins over what the data dir remembers; the token is generated once and then remembered there.
  for (const [k, v] of Object.entries(opts.props)) host.properties.set(k, v);
  // 27 and 24 random bytes are 36 and 32 base64url characters: the bundle refuses tokens under 32.
  if (!host.properties.get('WEBHOOK_TOKEN')) host.properties.set('WEBHOOK_TOKEN', randomBytes(27).toString('base64url'));
  if (!host.properties.get('HEALTH_TOKEN')) host.properties.set('HEALTH_TOKEN', randomBytes(24).toString('base64url'));
  const spreadsheetId = host.spreadsheetId ?? host.properties.get('SPREADSHEET_ID');
  if (!host.properties.get('SPREADSHEET_ID') && spreadsheetId) host.properties.set('SPREADSHEET_ID', spreadsheetId);
  if (!host.properties.get('STAFF_EMAILS')) host.properties.set('STAFF_EMAILS', DEFAULT_STAFF);
  const gemini = await chooseGemini(host, opts.props);

  /** @type {{ url: string, close: () => Promise<void> }} */
  let server;
  try {
    server = await startServer({ host, port, hostname: '127.0.0.1' });
  } catch (err) {
    await gemini.offline?.close();
    await host.dispose();
    const e = /** @type {NodeJS.ErrnoException} */ (err);
    throw new CliError(e.code === 'EADDRINUSE'
      ? `port ${port} on 127.0.0.1 is already in use (another npm start?). Choose another with --port ${port + 1}.`
      : `cannot listen on 127.0.0.1:${port}: ${e.message}`);
  }
  // With --port 0 the URL is known only now; ScriptApp.getService().getUrl() should still name it.
  if (!port && host.opts) host.opts.webAppUrl = `${server.url}/exec`;
  const eml = attachEmlWriter(host, { dataDir, from: host.owner ?? opts.owner ?? DEFAULT_USER });
  // The demo reports its own runs; it only adds failures it would not see (web app, triggers).
  host.on('execution', (/** @type {any} */ exec) => { if (!deps.quiet || (exec.status !== 'ok' && exec.kind !== 'api')) printExecution(exec); });

  // Set up makes every sheet, protection and trigger: with modeled latency that is Google's pace (tens of seconds), so say so first.
  if (!deps.quiet) console.log(`formqueue: running Set up / repair on the local spreadsheet${opts.latency && opts.latency !== 'off' ? ` at modeled Google speed (--latency ${opts.latency}): this takes a while` : ''}…`);
  await runSetup(host, bundleDir);
  const intervalSeconds = opts.demo && !opts.intervalGiven ? 0 : opts.triggerIntervalSeconds;
  if (intervalSeconds > 0) host.startClock(intervalSeconds);

  const shutdown = async () => {
    host.stopClock();
    await server.close();
    await eml.flush();
    await host.save();
    await host.dispose();
    await gemini.offline?.close();
  };
  return { host, server, gemini, eml, dataDir, intervalSeconds, token: String(host.properties.get('WEBHOOK_TOKEN')),
    healthToken: String(host.properties.get('HEALTH_TOKEN')), shutdown };
}

/** @param {string[]} argv @param {Deps} [deps] @returns {Promise<number>} the exit code; -1 while serving (Ctrl-C exits) */
export async function main(argv, deps = {}) {
  /** @type {CliOptions} */
  let opts;
  try {
    opts = parseCliArgs(argv);
  } catch (err) {
    console.error(`error: ${/** @type {Error} */ (err).message}\n\n${USAGE}`);
    return 2;
  }
  if (opts.help) { console.log(USAGE); return 0; }
  let rt;
  try {
    rt = await startRuntime(opts, { quiet: opts.demo, ...deps });
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    console.error(`error: ${err.message}`);
    return 1;
  }

  if (opts.demo) {
    const candidates = deps.fixturesDirs ?? [join(REPO_ROOT, 'emulator', 'demo-fixtures')];
    console.log(`formqueue demo: runtime at ${rt.server.url}, data in ${rt.dataDir}`);
    try {
      const code = await runDemo({ url: rt.server.url, token: rt.token, fixturesDir: candidates.find(existsSync) ?? '', print: (line) => console.log(line) });
      await rt.eml.flush();
      console.log(`\n.eml files: ${rt.eml.dir}`);
      return code;
    } finally {
      await rt.shutdown();
    }
  }

  printBanner({ url: rt.server.url, token: rt.token, healthToken: rt.healthToken, dataDir: rt.dataDir, gemini: rt.gemini, intervalSeconds: rt.intervalSeconds,
    latency: opts.latency ?? 'off', seed: opts.seed ?? 1, worlds: resolveWorlds(opts.worlds ?? {}) });
  let stopping = false;
  const onSignal = () => {
    if (stopping) process.exit(1); // a second Ctrl-C gives up waiting
    stopping = true;
    console.log('\nstopping: saving state…');
    rt.shutdown().then(() => { console.log(`saved to ${rt.dataDir}. Bye.`); process.exit(0); },
      (err) => { console.error(`error while stopping: ${err.message}`); process.exit(1); });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return -1;
}

/**
 * The real Gemini when a key is given (--prop, environment, or remembered in the data dir); else the offline stand-in.
 * @param {any} host @param {Record<string, string>} props
 */
async function chooseGemini(host, props) {
  const stored = host.properties.get('GEMINI_API_KEY');
  const key = props.GEMINI_API_KEY ?? process.env.GEMINI_API_KEY ?? (stored && stored !== OFFLINE_KEY ? stored : undefined);
  if (key) {
    host.properties.set('GEMINI_API_KEY', key);
    // A base URL left by an earlier offline session must not capture the real key's traffic.
    if (!props.GEMINI_BASE_URL && /^http:\/\/127\.0\.0\.1:\d+\/?$/.test(host.properties.get('GEMINI_BASE_URL') ?? '')) host.properties.delete('GEMINI_BASE_URL');
    return { offline: null, label: `real Gemini API${host.properties.get('GEMINI_BASE_URL') ? ` at ${host.properties.get('GEMINI_BASE_URL')}` : ''}` };
  }
  const offline = await startOfflineGemini({ port: 0 });
  host.properties.set('GEMINI_BASE_URL', offline.baseUrl);
  host.properties.set('GEMINI_API_KEY', OFFLINE_KEY);
  return { offline, label: `offline stand-in at ${offline.baseUrl} (set GEMINI_API_KEY to use the real API)` };
}

/** Runs the bundle's setup() once, if it has one; its failure is printed, not fatal. @param {any} host @param {string} bundleDir */
async function runSetup(host, bundleDir) {
  // Apps Script entry points are top-level function declarations (scripts/build.mjs writes one stub per export).
  if (!/^function setup\s*\(/m.test(readFileSync(join(bundleDir, 'Code.js'), 'utf8'))) {
    console.log('setup(): not in the bundle, skipped');
    return;
  }
  const exec = await host.run('setup', [], { kind: 'api' });
  if (exec.status === 'ok') console.log('setup(): ok');
  else console.error(`setup() failed: ${exec.error?.message ?? exec.status}`);
}

/** @param {string} bundleDir */
function manifestTimeZone(bundleDir) {
  try { return JSON.parse(readFileSync(join(bundleDir, 'appsscript.json'), 'utf8')).timeZone; } catch { return undefined; }
}

/** @param {any} exec */
function printExecution(exec) {
  // An idle clock tick is noise; a trigger run that mailed or failed is not.
  if (exec.kind === 'trigger' && exec.status === 'ok' && !exec.mailsSent) return;
  const time = new Date().toTimeString().slice(0, 8);
  const extra = exec.status === 'ok' ? (exec.mailsSent ? `, ${exec.mailsSent} mail(s)` : '') : `: ${exec.error?.message ?? ''}`;
  const modeled = exec.modeledMs !== undefined ? ` (modeled on Google: ${Math.round(exec.modeledMs)} ms)` : '';
  console.log(`[${time}] ${exec.functionName} (${exec.kind}) ${exec.status} in ${Math.round(exec.durationMs)} ms${modeled}${extra}`);
}

/**
 * What the webhook URL is for. Typeform's servers cannot reach this machine's loopback address, so for one the banner
 * says how to deliver by hand and where the real URL comes from, not "give this URL to Typeform".
 * @param {string} url
 */
export function webhookHint(url) {
  const { hostname } = new URL(url);
  const loopback = hostname === 'localhost' || hostname === '::1' || hostname === '[::1]' || /^127\./.test(hostname);
  return loopback
    ? "(Typeform cannot reach this machine: deliver with npm run replay -- --url '<URL>' <file>, or curl -sL -H 'Content-Type: application/json' -d @payload.json '<URL>'; the URL for Typeform is the one npm run deploy prints)"
    : "(give this URL to Typeform, or: curl -sL -H 'Content-Type: application/json' -d @payload.json '<URL>')";
}

/**
 * @param {{ url: string, token: string, healthToken: string, dataDir: string, gemini: { label: string }, intervalSeconds: number, latency: string,
 *   seed: number, worlds: Record<string, string> }} info
 */
function printBanner({ url, token, healthToken, dataDir, gemini, intervalSeconds, latency, seed, worlds }) {
  console.log(`
formqueue: dist/Code.js is running as a local Apps Script web app.

  console   ${url}/   (open it in a browser: the sheets, the formqueue menu, outbox, executions, faults)
  webhook   ${url}/exec?token=${token}
            ${webhookHint(url)}
  health    ${url}/exec?token=${healthToken}   (doGet, for an uptime checker: its own token)
  queue     GET  ${url}/api/sheets/Queue          outbox  GET ${url}/api/outbox
  run       POST ${url}/api/run/processQueue      also: /api/executions /api/triggers /api/edit /api/faults /api/clock /api/health
  gemini    ${gemini.label}
  clock     ${intervalSeconds > 0 ? `installed clock triggers fire every ${intervalSeconds} s` : 'off (--trigger-interval 0)'}
  latency   ${latency === 'off' ? 'off (calls answer at local speed; --latency google models Google\'s)' : `${latency}, seed ${seed}: modeled times in /api/executions (modeledMs beside durationMs)`}
  worlds    ${describeWorlds(worlds)} (--world KEY=VALUE picks another reading of what Google does not document)
  data      ${dataDir} (kept across restarts; mails also as .eml in outbox/)

Press Ctrl-C to stop (state is saved).`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then((code) => { if (code >= 0) process.exit(code); },
    (err) => { console.error(`error: ${err?.stack ?? err}`); process.exit(1); });
}
