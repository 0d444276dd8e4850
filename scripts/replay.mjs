// `npm run replay -- --url URL FILE…`: sends Typeform-shaped payload files to a formqueue /exec URL (the local
// runtime's or a deployment's) the way Typeform does — POST application/json, then a GET of the 302's Location
// (Apps Script answers every POST with a 302 to a one-time echo URL, docs/platform.md#web-apps) — and prints each answer.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export const USAGE = `Usage: npm run replay -- --url URL [options] FILE…

Sends each FILE (a Typeform webhook body) to URL as Typeform does: POST with Content-Type
application/json, then GET of the 302's Location. Prints one line per delivery: the HTTP steps
and formqueue's JSON answer.

  --url URL        the web app's /exec URL, with ?token=… (or give the token with --token)
                   e.g. http://127.0.0.1:8787/exec?token=…  or  https://script.google.com/macros/s/<id>/exec?token=…
  --token TOKEN    the webhook token, added to URL as ?token= (replaces one already there)
  --times N        deliver every file N times in a row, as Typeform's retries would (default 1)
  --timeout SEC    give up on a delivery after SEC seconds (default 30, Typeform's own limit)
  --help           show this help

A file that is not JSON is still sent as it is (formqueue should answer malformed_json and list it
in the Rejected sheet), with a warning. A file that cannot be read stops everything before anything is sent.
Exit code: 0 when every answer is JSON with "ok": true; 1 when any is not (or a request failed); 2 for usage errors.`;

/** A command-line mistake or an unreadable file: nothing was sent. */
export class ReplayError extends Error {}

/** Hides the token in everything printed: the URL would otherwise put the secret in terminal scrollback. @param {string} text */
export function hideToken(text) {
  return text.replace(/([?&]token=)[^&\s#"']+/g, '$1…');
}

/** @param {string[]} argv */
export function parseReplayArgs(argv) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, strict: true, allowPositionals: true, options: {
      url: { type: 'string' }, token: { type: 'string' }, times: { type: 'string' }, timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    } });
  } catch (err) {
    throw new ReplayError(/** @type {Error} */ (err).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true, url: '', files: [], times: 1, timeoutMs: 30000 };
  if (!values.url) throw new ReplayError('--url is required: the /exec URL to send to, e.g. --url "http://127.0.0.1:8787/exec?token=…"');
  let url;
  try {
    url = new URL(values.url);
  } catch {
    throw new ReplayError(`--url is not a URL: "${hideToken(values.url)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ReplayError(`--url must be http(s), got "${url.protocol}"`);
  if (values.token !== undefined) url.searchParams.set('token', values.token);
  if (!url.searchParams.get('token')) {
    throw new ReplayError('the URL has no ?token=…: formqueue would answer "unauthorized". Add it to --url or pass --token (WEBHOOK_TOKEN from Script Properties).');
  }
  const times = values.times === undefined ? 1 : Number(values.times);
  if (!Number.isInteger(times) || times < 1 || times > 1000) throw new ReplayError(`--times expects a whole number from 1 to 1000, got "${values.times}"`);
  const timeoutSeconds = values.timeout === undefined ? 30 : Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new ReplayError(`--timeout expects seconds, got "${values.timeout}"`);
  if (positionals.length === 0) throw new ReplayError('no payload FILE given, e.g. test/fixtures/typeform/test-request.json');
  return { help: false, url: url.toString(), files: positionals, times, timeoutMs: timeoutSeconds * 1000 };
}

/** Every file read before anything is sent. @param {string[]} files */
export function readPayloads(files) {
  return files.map((file) => {
    let body;
    try {
      body = readFileSync(file, 'utf8');
    } catch (err) {
      const code = /** @type {NodeJS.ErrnoException} */ (err).code;
      throw new ReplayError(`cannot read ${file}${code === 'ENOENT' ? ': no such file' : code === 'EISDIR' ? ': it is a directory' : `: ${/** @type {Error} */ (err).message}`}. Nothing was sent.`);
    }
    let json = true;
    try {
      JSON.parse(body);
    } catch {
      json = false;
    }
    return { file, body, json };
  });
}

/**
 * One delivery as Typeform makes it: POST, then (on a redirect) a GET of Location.
 * @param {string} url @param {string} body @param {number} timeoutMs
 * @returns {Promise<{ steps: string[], status: number | null, text: string, answer: any, error?: string }>}
 */
export async function deliver(url, body, timeoutMs) {
  const steps = [];
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    let response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, redirect: 'manual', signal });
    steps.push(`POST ${response.status}`);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.arrayBuffer(); // the redirect page itself is not the answer
      response = await fetch(new URL(location, url), { method: 'GET', redirect: 'follow', signal });
      steps.push(`GET ${response.status}`);
    }
    const text = await response.text();
    let answer;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = undefined;
    }
    return { steps, status: response.status, text, answer };
  } catch (err) {
    const e = /** @type {Error & { cause?: { code?: string, message?: string } }} */ (err);
    const error = e.name === 'TimeoutError' || e.name === 'AbortError'
      ? `no answer within ${timeoutMs / 1000} s (Typeform would count the delivery as failed and send it again)`
      : `request failed: ${e.cause?.code ?? ''} ${e.cause?.message ?? e.message}`.replace(/\s+/g, ' ').trim();
    return { steps, status: null, text: '', answer: undefined, error };
  }
}

/** What a non-JSON answer probably means, from what Apps Script serves instead. @param {number | null} status @param {string} text */
export function nonJsonHint(status, text) {
  const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
  const what = title ? `an HTML page "${title}"` : text.trim() === '' ? 'an empty body' : `"${text.trim().slice(0, 120)}"`;
  if (/accounts\.google\.com|Sign in/i.test(text)) return `${what}: Google asks to sign in, so the web app is not deployed for "Anyone" (appsscript.json webapp.access ANYONE_ANONYMOUS)`;
  if (status === 404) return `${what}: no web app at this URL (wrong deployment id, or the deployment was deleted)`;
  return `${what} instead of formqueue's JSON (a doPost that threw, or not a formqueue URL)`;
}

/**
 * @param {string[]} argv
 * @param {{ log?: (line: string) => void, warn?: (line: string) => void }} [io]
 * @returns {Promise<number>} exit code
 */
export async function main(argv, io = {}) {
  const log = io.log ?? ((line) => console.log(line));
  const warn = io.warn ?? ((line) => console.error(line));
  let options;
  let payloads;
  try {
    options = parseReplayArgs(argv);
    if (options.help) {
      log(USAGE);
      return 0;
    }
    payloads = readPayloads(options.files);
  } catch (err) {
    if (!(err instanceof ReplayError)) throw err;
    warn(`error: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  log(`replaying ${payloads.length} file(s)${options.times > 1 ? ` × ${options.times}` : ''} to ${hideToken(options.url)}`);
  let allOk = true;
  for (const payload of payloads) {
    if (!payload.json) warn(`warning: ${payload.file} is not valid JSON; sending it as it is (formqueue should answer malformed_json)`);
    for (let n = 1; n <= options.times; n++) {
      const label = options.times > 1 ? `${payload.file} [${n}/${options.times}]` : payload.file;
      const result = await deliver(options.url, payload.body, options.timeoutMs);
      const steps = result.steps.join(' → ');
      if (result.error) {
        allOk = false;
        log(`${label}: ${steps ? `${steps}, ` : ''}${result.error}`);
      } else if (result.answer === undefined) {
        allOk = false;
        log(`${label}: ${steps}, not JSON: ${hideToken(nonJsonHint(result.status, result.text))}`);
      } else {
        if (!(result.answer && result.answer.ok === true)) allOk = false;
        log(`${label}: ${steps} ${hideToken(JSON.stringify(result.answer))}`);
      }
    }
  }
  return allOk ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(`error: ${err?.stack ?? err}`);
      process.exitCode = 1;
    },
  );
}
