// Executions, one at a time: a worker thread (kept warm by worker-pool.mjs) gives each a fresh vm context running the bundle; every service call blocks on the host.
import { parentPort, receiveMessageOnPort } from 'node:worker_threads';
import vm from 'node:vm';
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { format } from 'node:util';
import { formatJavaDate } from './format-date.mjs';
import { realmCore } from './realm/core.mjs';
import { realmSpreadsheet } from './realm/spreadsheet.mjs';
import { realmServices } from './realm/services.mjs';
import { realmOutput } from './realm/output.mjs';

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
// The execution running now (one at a time per thread): set by each 'run' message, read by the natives below.
let bundleDir = '';
let port = /** @type {import('node:worker_threads').MessagePort} */ (/** @type {unknown} */ (null));
let flag = new Int32Array(1);
let info = /** @type {any} */ ({});
let rtts = /** @type {number[]} */ ([]);
let seq = 0;

/** The bridge (docs/runtime.md#how-it-works): post, then bump seq (a failed post must not desync), block until the host bumps the flag. */
function hostCall(msg) {
  const t0 = process.hrtime.bigint();
  try {
    port.postMessage(msg);
  } catch (e) {
    return { e: { name: 'Exception', message: `Invalid argument: ${e.message}` } };
  }
  const expected = ++seq;
  while (Atomics.load(flag, 0) < expected) Atomics.wait(flag, 0, expected - 1);
  const m = receiveMessageOnPort(port);
  rtts.push(Number(process.hrtime.bigint() - t0) / 1000);
  return m.message;
}

const signed = (buf) => Array.from(buf, (b) => (b > 127 ? b - 256 : b));
const unsigned = (bytes) => Buffer.from(Array.from(bytes, (n) => n & 255));
const encoding = (charset) => (String(charset || 'UTF_8').toUpperCase().replace('-', '_') === 'US_ASCII' ? 'latin1' : 'utf8');
const DIGESTS = { MD5: 'md5', SHA_1: 'sha1', SHA_256: 'sha256', SHA_384: 'sha384', SHA_512: 'sha512' };
const HMACS = { HMAC_MD5: 'md5', HMAC_SHA_1: 'sha1', HMAC_SHA_256: 'sha256', HMAC_SHA_384: 'sha384', HMAC_SHA_512: 'sha512' };

function parseCsv(text, delim) {
  const rows = [];
  let row = [], cell = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (ch === '"') quoted = false; else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === delim) { row.push(cell); cell = ''; }
    else if (ch === '\n' || ch === '\r') { if (ch === '\r' && text[i + 1] === '\n') i++; row.push(cell); rows.push(row); row = []; cell = ''; }
    else cell += ch;
  }
  if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

/** Outer-realm helpers the in-realm code calls; results are rebuilt in the realm by rt.toRealm. */
const natives = {
  hostCall,
  log: (level, text) => port.postMessage({ t: 'log', level, text }),
  sleep: (ms) => { Atomics.wait(sleepCell, 0, 0, Math.max(0, ms)); }, // local, no round trip
  format: (...a) => format(...a),
  utf8Bytes: (s) => signed(Buffer.from(s, 'utf8')),
  stringToBytes: (s, charset) => signed(Buffer.from(s, encoding(charset))),
  bytesToString: (bytes, charset) => unsigned(bytes).toString(encoding(charset)),
  base64Encode: (bytes, webSafe) => { const s = unsigned(bytes).toString('base64'); return webSafe ? s.replace(/\+/g, '-').replace(/\//g, '_') : s; },
  base64Decode: (s) => signed(Buffer.from(s, 'base64')),
  decodeBase64: (b64, charset) => Buffer.from(b64, 'base64').toString(encoding(charset)),
  base64ToBytes: (b64) => signed(Buffer.from(b64, 'base64')),
  digest: (alg, bytes) => {
    if (!DIGESTS[alg]) throw new Error(`not emulated: Utilities.DigestAlgorithm.${alg}`);
    return signed(createHash(DIGESTS[alg]).update(unsigned(bytes)).digest());
  },
  hmac: (alg, bytes, key) => signed(createHmac(HMACS[alg] || 'sha256', unsigned(key)).update(unsigned(bytes)).digest()),
  gzip: (bytes) => signed(gzipSync(unsigned(bytes))),
  gunzip: (bytes) => signed(gunzipSync(unsigned(bytes))),
  uuid: () => randomUUID(),
  digestHex: (s) => createHash('sha256').update(s).digest('hex').slice(0, 32),
  formatDate: (ms, tz, pattern) => formatJavaDate(ms, tz, pattern),
  parseCsv,
  readBundleFile: (name) => {
    for (const f of [join(bundleDir, `${name}.html`), join(bundleDir, name)]) if (existsSync(f)) return readFileSync(f, 'utf8');
    return null;
  },
};

function errorOf(e) {
  if (e && typeof e === 'object') return { name: String(e.name ?? 'Error'), message: String(e.message ?? e), stack: e.stack ? String(e.stack) : undefined };
  return { name: 'Error', message: String(e) };
}

/**
 * The bundle as a compiled script: one per thread and file version, run in every execution's new context (a vm.Script
 * is not bound to a context). A new thread starts from the V8 code cache the host keeps (info.codeCache) instead of
 * parsing the 400 KB bundle again; V8 checks the cache against the source and compiles afresh when it does not match
 * (https://nodejs.org/api/vm.html#new-vmscriptcode-options, cachedData / cachedDataRejected). Only compilation is
 * skipped: the script runs as before, in a fresh context, so no state crosses executions.
 */
const scripts = new Map();
let produceCache = null;
function bundleScript(file) {
  const key = info.codeKey ?? file;
  let entry = scripts.get(key);
  if (!entry) {
    const cachedData = info.codeCache ? new Uint8Array(info.codeCache) : undefined;
    const script = new vm.Script(readFileSync(file, 'utf8'), { filename: file, cachedData });
    entry = { script };
    scripts.clear(); // a rebuilt bundle replaces the one before
    scripts.set(key, entry);
    // No cache yet, or one V8 refused: after this execution (its functions compiled), the host gets a new one.
    if (!cachedData || script.cachedDataRejected) produceCache = { key, script };
  }
  return entry;
}

function finish(result) {
  const msg = { t: 'done', ...result, rtts };
  if (produceCache) {
    msg.codeCache = { key: produceCache.key, data: produceCache.script.createCachedData() };
    produceCache = null;
  }
  try {
    port.postMessage(msg);
  } catch {
    port.postMessage({ ...msg, value: JSON.parse(JSON.stringify(result.value ?? null)) });
  }
  port.close();
}

/** Replaces the realm's Date with one whose "now" is offset by offset[0] (shared with the host, so it can move while
 * the execution runs); dates it makes are still real Dates (instanceof holds). */
const SHIFT_DATE = `(function (offset) {
  const RealDate = Date;
  const realNow = RealDate.now;
  function ShiftedDate(...args) {
    if (!new.target) return new RealDate(realNow() + offset[0]).toString();
    return args.length === 0 ? new RealDate(realNow() + offset[0]) : new RealDate(...args);
  }
  ShiftedDate.prototype = RealDate.prototype;
  ShiftedDate.now = () => realNow() + offset[0];
  ShiftedDate.UTC = RealDate.UTC;
  ShiftedDate.parse = RealDate.parse;
  globalThis.Date = ShiftedDate;
})`;

/** The realm's installers, compiled once per thread and run in each execution's new context (as the bundle is). */
const realmInstalls = [realmCore, realmSpreadsheet, realmServices, realmOutput].map((install) => new vm.Script(`(${install.toString()})`));

async function main(fn, args) {
  // --latency: the execution starts as late as Google would start it (modeled by the host, see latency.mjs).
  if (info.startDelayMs > 0) Atomics.wait(sleepCell, 0, 0, info.startDelayMs);
  const ctx = vm.createContext({});
  // host.advanceClock(ms) moves script time too, so tests can let back-offs, stale claims and throttles expire.
  vm.runInContext(SHIFT_DATE, ctx)(info.clockBuffer ? new Float64Array(info.clockBuffer) : [info.clockOffsetMs || 0]);
  const rt = vm.runInContext('({})', ctx);
  rt.natives = natives;
  rt.info = info;
  for (const install of realmInstalls) install.runInContext(ctx)(rt);
  // Only Code.js (docs/platform.md#the-local-runtimes-libraries), compiled once per thread and run in each new context.
  const bundle = bundleScript(join(bundleDir, 'Code.js'));
  bundle.script.runInContext(ctx);
  const entry = ctx[fn];
  if (typeof entry !== 'function') return finish({ status: 'error', error: { name: 'Exception', message: `Script function not found: ${fn}` } });
  try {
    let value = entry.apply(undefined, rt.toRealm(args));
    if (value && typeof value.then === 'function' && !value.__cls) value = await value;
    finish({ status: 'ok', value: rt.toHost(value) });
  } catch (e) {
    finish({ status: 'error', error: errorOf(e) });
  }
}

// One 'run' message per execution, never two at once: the host gives a thread back only after its 'done'.
parentPort.on('message', (msg) => {
  if (msg?.t !== 'run') return;
  ({ bundleDir, port, info } = msg.job);
  flag = new Int32Array(msg.job.sab);
  rtts = [];
  seq = 0;
  main(msg.job.fn, msg.job.args).catch((e) => finish({ status: 'error', error: errorOf(e) }));
});
