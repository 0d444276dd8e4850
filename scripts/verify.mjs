// `npm run verify -- --url URL --token T`: checks a live formqueue web app from the operator's machine, as Typeform
// would reach it: a test delivery (a TEST row, never mailed), the same again (duplicate), a wrong token
// (unauthorized), and the health view. One line per check, then `verify: passed=N failed=M`. An answer that makes
// the checks after it pointless (no connection, a 404, an HTML page, our token refused) stops it at once, with one
// line saying what is wrong and what to do.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { deliver, hideToken, nonJsonHint } from './replay.mjs';

export const USAGE = `Usage: npm run verify -- --url URL [--token TOKEN] [--health-token TOKEN] [--timeout SEC]

  --url URL        the web app's /exec URL (https://script.google.com/macros/s/<id>/exec, or the local runtime's)
  --token TOKEN    WEBHOOK_TOKEN (or put it in the URL as ?token=…)
  --health-token TOKEN  HEALTH_TOKEN, for the health view (doGet has its own token; the webhook token does not open it)
  --timeout SEC    give up on a request after SEC seconds (default 30)

Each run adds one TEST row (never mailed) and one Rejected row (the wrong-token check). Exit code 1 if a check fails.
What to do about a failing check: docs/self-test.md#npm-run-verify`;

const TEST_REQUEST = new URL('../test/fixtures/typeform/test-request.json', import.meta.url);

/** A Typeform "Send test request" body with a fresh id: its token equals its event_id, which marks it as a test. */
export function freshTestRequest(id = randomBytes(16).toString('hex')) {
  const body = JSON.parse(readFileSync(TEST_REQUEST, 'utf8'));
  body.event_id = id;
  body.form_response.token = id;
  return JSON.stringify(body);
}

/** @param {string[]} argv */
function parseVerifyArgs(argv) {
  const { values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: {
    url: { type: 'string' }, token: { type: 'string' }, 'health-token': { type: 'string' }, timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' },
  } });
  if (values.help) return null;
  if (!values.url) throw new Error('--url is required: the web app\'s /exec URL');
  const url = new URL(values.url);
  if (values.token !== undefined) url.searchParams.set('token', values.token);
  const token = url.searchParams.get('token') ?? '';
  if (!token) throw new Error('no token: pass --token WEBHOOK_TOKEN (from Script Properties) or put ?token=… in --url');
  const timeoutMs = values.timeout === undefined ? 30000 : Number(values.timeout) * 1000;
  if (!(timeoutMs > 0)) throw new Error(`--timeout expects seconds, got "${values.timeout}"`);
  return { url, token, healthToken: values['health-token'] ?? '', timeoutMs };
}

/** @param {{ steps: string[], text: string, answer: any, error?: string }} r */
function shown(r) {
  if (r.error) return r.error;
  return `${r.steps.join(' → ')} ${r.answer ? JSON.stringify(r.answer) : JSON.stringify(r.text.slice(0, 120))}`;
}

/** The health view is a GET with the token, following the 302 like the deliveries. @param {URL} url @param {number} timeoutMs */
async function getHealth(url, timeoutMs) {
  try {
    const response = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    let answer;
    try { answer = JSON.parse(text); } catch { answer = undefined; }
    return { steps: [`GET ${response.status}`], status: response.status, text, answer };
  } catch (err) {
    const e = /** @type {Error & { cause?: { code?: string, message?: string } }} */ (err);
    const error = e.name === 'TimeoutError' || e.name === 'AbortError'
      ? `no answer within ${timeoutMs / 1000} s`
      : `request failed: ${e.cause?.code ?? ''} ${e.cause?.message ?? e.message}`.replace(/\s+/g, ' ').trim();
    return { steps: [], status: null, text: '', answer: undefined, error };
  }
}

/** The health view's figures in one line. @param {any} h */
function healthLine(h) {
  const incidents = (h.openIncidents ?? []).map((/** @type {any} */ i) => i.code).join(', ') || 'none';
  return `ok ${h.ok}, waiting ${h.waiting}, oldest PENDING ${h.oldestPendingMinutes ?? '-'} min, open incidents ${incidents}`;
}

const TOKEN_HOME = "Script Properties (Apps Script editor → Project Settings; Set up / repair creates it)";

/**
 * One line for an answer that makes every later check pointless, saying what is wrong and the fix; null when the
 * answer is formqueue's JSON and the token was taken. `token` names the option that was refused.
 * @param {{ steps: string[], status?: number | null, text: string, answer: any, error?: string }} r
 * @param {URL} url @param {'--token' | '--health-token'} token
 * @returns {string | null}
 */
export function diagnose(r, url, token) {
  if (r.error) {
    if (/^no answer within/.test(r.error)) return `${r.error}: is ${url.origin} the web app? Raise --timeout if it is slow to start.`;
    return `cannot reach ${url.origin} (${r.error.replace(/^request failed: /, '')}): check --url (the /exec URL; for the local runtime, the one \`npm start\` prints) and that it is up.`;
  }
  if (r.answer === undefined || r.answer === null || typeof r.answer !== 'object') {
    return `${url.origin}${url.pathname} answers ${nonJsonHint(r.status ?? null, r.text)}: check --url is the web app's /exec URL (\`npm run deploy\` prints it).`;
  }
  if (r.answer.ok === false && r.answer.error === 'not_configured') {
    return `the web app has no usable ${token === '--token' ? 'WEBHOOK_TOKEN' : 'HEALTH_TOKEN'} (unset, or shorter than 32 characters): run formqueue → Set up / repair in the spreadsheet, then use the token it stores in ${TOKEN_HOME.split(' (')[0]}.`;
  }
  if (r.answer.ok === false && r.answer.error === 'unauthorized') {
    return token === '--token'
      ? `the web app refused --token: it is not this deployment's WEBHOOK_TOKEN (in ${TOKEN_HOME}).`
      : `the web app refused --health-token: it is not HEALTH_TOKEN (in ${TOKEN_HOME}; the webhook token does not open the health view).`;
  }
  return null;
}

/** @typedef {{ results: [boolean, string, string][], stopped: boolean }} Checks */

/**
 * One check: a failure `diagnose` explains stops the run there; otherwise `passed` judges the answer.
 * @param {Checks} checks @param {string} name @param {any} r @param {string | null} why @param {(answer: any) => boolean} passed
 */
function record(checks, name, r, why, passed) {
  if (why) {
    checks.results.push([false, name, why]);
    checks.stopped = true;
  } else {
    checks.results.push([passed(r.answer), name, shown(r)]);
  }
}

/**
 * The three deliveries, in order, until one is answered so that the rest would fail the same way (`stopped`).
 * @param {URL} url @param {number} timeoutMs @returns {Promise<Checks>}
 */
async function deliveryChecks(url, timeoutMs) {
  /** @type {Checks} */
  const checks = { results: [], stopped: false };
  const body = freshTestRequest();
  const first = await deliver(url.toString(), body, timeoutMs);
  record(checks, 'test delivery (a TEST row, never mailed)', first, diagnose(first, url, '--token'), (a) => a?.ok === true && a?.test === true && a?.queued === true);
  if (checks.stopped) return checks;
  const again = await deliver(url.toString(), body, timeoutMs);
  record(checks, 'the same delivery again (duplicate)', again, diagnose(again, url, '--token'), (a) => a?.ok === true && a?.duplicate === true);
  if (checks.stopped) return checks;
  const wrong = new URL(url);
  wrong.searchParams.set('token', `wrong-${randomBytes(8).toString('hex')}`);
  const refused = await deliver(wrong.toString(), freshTestRequest(), timeoutMs);
  // Here "unauthorized" is the right answer: only no answer or a page that is not formqueue's stops the checks.
  const why = refused.answer?.error === 'unauthorized' ? null : diagnose(refused, url, '--token');
  record(checks, 'a wrong token (unauthorized)', refused, why, (a) => a?.ok === false && a?.error === 'unauthorized');
  return checks;
}

/** The health view with HEALTH_TOKEN, into `checks`. @param {Checks} checks @param {URL} url @param {string} healthToken @param {number} timeoutMs */
async function healthCheck(checks, url, healthToken, timeoutMs) {
  if (healthToken === '') {
    checks.results.push([false, 'health view', 'not asked: pass --health-token HEALTH_TOKEN (from Script Properties; Set up / repair generates it)']);
    return;
  }
  const healthUrl = new URL(url);
  healthUrl.searchParams.set('token', healthToken);
  const health = await getHealth(healthUrl, timeoutMs);
  // The last check: its diagnosis is its line; nothing follows it to stop.
  const why = diagnose(health, url, '--health-token');
  if (why) {
    checks.results.push([false, 'health view', why]);
    return;
  }
  const h = health.answer;
  const healthy = Boolean(h && typeof h.ok === 'boolean' && h.counts && typeof h.counts === 'object');
  checks.results.push([healthy, 'health view', healthy ? healthLine(h) : shown(health)]);
}

/**
 * The four checks, in order, each as [passed, name, detail]; stops after a check whose answer `diagnose` explains
 * (the checks after it would fail the same way), with `stopped` true.
 * @param {URL} url @param {string} healthToken @param {number} timeoutMs @returns {Promise<Checks>}
 */
async function runChecks(url, healthToken, timeoutMs) {
  const checks = await deliveryChecks(url, timeoutMs);
  if (!checks.stopped) await healthCheck(checks, url, healthToken, timeoutMs);
  return checks;
}

/**
 * `io` replaces the program's output (console.log, console.error): test/scripts/verify.test.ts calls main in-process.
 * @param {string[]} argv @param {{ log?: (line: string) => void, error?: (line: string) => void }} [io]
 * @returns {Promise<number>} exit code
 */
export async function main(argv, io = {}) {
  const log = io.log ?? ((line) => console.log(line));
  const error = io.error ?? ((line) => console.error(line));
  let options;
  try {
    options = parseVerifyArgs(argv);
  } catch (err) {
    error(`error: ${/** @type {Error} */ (err).message}\n\n${USAGE}`);
    return 2;
  }
  if (!options) { log(USAGE); return 0; }
  log(`verify: ${hideToken(options.url.toString())}`);
  const { results, stopped } = await runChecks(options.url, options.healthToken, options.timeoutMs);
  for (const [ok, name, detail] of results) log(`${ok ? 'PASS' : 'FAIL'} ${name}: ${hideToken(detail)}`);
  if (stopped) log('verify: stopped there: the checks after it would fail the same way.');
  const passed = results.filter(([ok]) => ok).length;
  const failed = results.length - passed;
  log(`verify: passed=${passed} failed=${failed}`);
  if (failed > 0) log('What each failing check means: docs/self-test.md#npm-run-verify');
  return failed > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  void main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
