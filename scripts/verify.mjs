// `npm run verify -- --url URL --token T`: checks a live formqueue web app from the operator's machine, as Typeform
// would reach it: a test delivery (a TEST row, never mailed), the same again (duplicate), a wrong token
// (unauthorized), and the health view. One line per check, then `verify: passed=N failed=M`.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { deliver, hideToken } from './replay.mjs';

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
    return { steps: [`GET ${response.status}`], text, answer };
  } catch (err) {
    return { steps: [], text: '', answer: undefined, error: `request failed: ${/** @type {Error} */ (err).message}` };
  }
}

/** The health view's figures in one line. @param {any} h */
function healthLine(h) {
  const incidents = (h.openIncidents ?? []).map((/** @type {any} */ i) => i.code).join(', ') || 'none';
  return `ok ${h.ok}, waiting ${h.waiting}, oldest PENDING ${h.oldestPendingMinutes ?? '-'} min, open incidents ${incidents}`;
}

/**
 * The four checks, in order, each as [passed, name, detail].
 * @param {URL} url @param {string} healthToken @param {number} timeoutMs @returns {Promise<[boolean, string, string][]>}
 */
async function runChecks(url, healthToken, timeoutMs) {
  const wrong = new URL(url);
  wrong.searchParams.set('token', `wrong-${randomBytes(8).toString('hex')}`);
  const body = freshTestRequest();
  const first = await deliver(url.toString(), body, timeoutMs);
  const again = await deliver(url.toString(), body, timeoutMs);
  const refused = await deliver(wrong.toString(), freshTestRequest(), timeoutMs);
  const healthUrl = new URL(url);
  healthUrl.searchParams.set('token', healthToken);
  const health = healthToken === ''
    ? { steps: [], text: '', answer: undefined, error: 'not asked: pass --health-token HEALTH_TOKEN (from Script Properties; Set up / repair generates it)' }
    : await getHealth(healthUrl, timeoutMs);
  const h = health.answer;
  const healthy = Boolean(h && typeof h.ok === 'boolean' && h.counts && typeof h.counts === 'object');
  return [
    [first.answer?.ok === true && first.answer?.test === true && first.answer?.queued === true, 'test delivery (a TEST row, never mailed)', shown(first)],
    [again.answer?.ok === true && again.answer?.duplicate === true, 'the same delivery again (duplicate)', shown(again)],
    [refused.answer?.ok === false && refused.answer?.error === 'unauthorized', 'a wrong token (unauthorized)', shown(refused)],
    [healthy, 'health view', healthy ? healthLine(h) : shown(health)],
  ];
}

/**
 * @param {string[]} argv @param {{ log?: (line: string) => void }} [io]
 * @returns {Promise<number>} exit code
 */
export async function main(argv, io = {}) {
  const log = io.log ?? ((line) => console.log(line));
  let options;
  try {
    options = parseVerifyArgs(argv);
  } catch (err) {
    console.error(`error: ${/** @type {Error} */ (err).message}\n\n${USAGE}`);
    return 2;
  }
  if (!options) { log(USAGE); return 0; }
  log(`verify: ${hideToken(options.url.toString())}`);
  const results = await runChecks(options.url, options.healthToken, options.timeoutMs);
  for (const [ok, name, detail] of results) log(`${ok ? 'PASS' : 'FAIL'} ${name}: ${hideToken(detail)}`);
  const passed = results.filter(([ok]) => ok).length;
  const failed = results.length - passed;
  log(`verify: passed=${passed} failed=${failed}`);
  if (failed > 0) log('What each failing check means: docs/self-test.md#npm-run-verify');
  return failed > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  void main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
