// HTTP front of the local runtime: the web app's /exec (with Apps Script's 302 echo dance) and the /api table of docs/runtime.md.
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { STAFF_OPS } from './staff-edits.mjs';
import { handleConsole } from './console/routes.mjs';
import { createTypeformStore } from './offline-typeform.mjs';
import { createTypeformSender } from './typeform-sender.mjs';

/** @typedef {import('node:http').IncomingMessage} Req @typedef {import('node:http').ServerResponse} Res */
/** @typedef {{ status: number, type: string, body: string, expiresAt: number }} Echo */

const MAX_EXEC_BODY_BYTES = 50 * 1024 * 1024; // Apps Script's POST size limit [GAS-QUOTA]
const MAX_API_BODY_BYTES = 1024 * 1024;
const ECHO_TTL_MS = 5 * 60 * 1000; // an unfetched echo must not pile up in memory
const NOT_FOUND_TEXT = 'Sorry, the file you have requested does not exist.';
const FAULT_TARGETS = ['sheets', 'gemini', 'mail', 'gmail'];
// ContentService.MimeType names → what Google serves [GAS-CONTENT].
const MIME_TYPES = {
  ATOM: 'application/atom+xml', CSV: 'text/csv', ICAL: 'text/calendar', JAVASCRIPT: 'application/javascript',
  JSON: 'application/json', RSS: 'application/rss+xml', TEXT: 'text/plain', VCARD: 'text/vcard', XML: 'text/xml',
};
const API_ROUTES = ['GET /api/health', 'GET /api/sheets', 'GET /api/sheets/NAME', 'GET /api/outbox', 'DELETE /api/sent/ID', 'POST /api/run/FUNCTION',
  'GET /api/executions', 'GET /api/triggers', 'POST /api/edit', 'GET|POST|DELETE /api/faults', 'GET|POST /api/clock',
  'POST /api/typeform/responses', 'POST /api/typeform/webhooks', 'POST /api/typeform/submit', 'POST /api/typeform/deliver',
  'GET /api/typeform/deliveries?form_id=ID', 'POST /api/typeform/tokens', 'POST /api/deployment', 'GET /typeform/forms[/ID[/responses|/webhooks[/TAG]]]', 'PUT /typeform/forms/ID/webhooks/TAG'];

/**
 * Typeform's webhook sender over the offline store; a form's webhook points at this web app with its webhook token,
 * as staff set it up in Typeform. @param {any} host @param {any} typeform @param {() => string} baseUrl
 */
function senderFor(host, typeform, baseUrl) {
  const now = () => (typeof host.now === 'function' ? host.now() : Date.now());
  const sender = createTypeformSender({ store: typeform, now, redirect: () => host.worlds?.typeformRedirect ?? 'follow' });
  typeform.onWebhookUpdated = (formId, tag) => sender.forgetFailures(formId, tag);
  typeform.setDefaultWebhookUrl(() => `${baseUrl()}/exec?token=${encodeURIComponent(host.properties?.get?.('WEBHOOK_TOKEN') ?? '')}`);
  return sender;
}

/**
 * /api/typeform/…: responses and webhooks set by hand, tokens, a submission sent by the sender, its due attempts, its log.
 * @param {Req} req @param {URL} url @param {string[]} parts @param {{ method: string, typeform: any, sender: any }} context
 */
async function typeformApi(req, url, parts, { method, typeform, sender }) {
  if (parts[1] === 'deliveries') {
    if (method !== 'GET') throw new HttpError(405, `${method} is not allowed on ${url.pathname}; use GET`);
    const formId = url.searchParams.get('form_id') ?? '';
    return { form_id: formId, webhooks: typeform.webhooksOf(formId), items: sender.deliveryLog(formId, url.searchParams.get('tag') ?? undefined), totals: sender.totals, pending: sender.pending };
  }
  if (method !== 'POST') throw new HttpError(405, `${method} is not allowed on ${url.pathname}; use POST`);
  if (parts[1] === 'deliver') return sender.runDue();
  const body = parts[1] === 'submit' ? (await readBody(req, MAX_EXEC_BODY_BYTES)).toString('utf8') : await readJson(req);
  let answer;
  try {
    if (parts[1] === 'responses') answer = typeform.addFromApi(body);
    else if (parts[1] === 'webhooks') answer = { items: typeform.setWebhook(body) };
    else if (parts[1] === 'tokens') answer = typeform.addToken(body);
    else if (parts[1] === 'submit') answer = { response: sender.submit(body) };
  } catch (err) { throw new HttpError(400, /** @type {Error} */ (err).message); }
  if (answer === undefined) throw new HttpError(404, `no such endpoint: ${method} ${url.pathname}; use /api/typeform/responses, webhooks, tokens, submit, deliver or deliveries`);
  // A submission is sent at once, as Typeform sends it "as soon as it's submitted" [TF-WH].
  if (parts[1] === 'submit') await sender.runDue();
  return answer;
}

/** POST /api/deployment {"active": false}: the web app's deployment is removed (its /exec answers Google's 404 page). */
async function setDeployment(req, deployment) {
  const { active } = await readJson(req);
  if (typeof active !== 'boolean') throw new HttpError(400, 'POST /api/deployment needs {"active": true|false}');
  deployment.active = active;
  return { active };
}

/** An error that becomes a JSON answer with its HTTP status. */
class HttpError extends Error {
  /** @param {number} status @param {string} message @param {Record<string, unknown>} [extra] */
  constructor(status, message, extra) { super(message); this.status = status; this.extra = extra; }
}

/**
 * Serves the host over HTTP on 127.0.0.1 only (docs/runtime.md).
 * `typeform`: the offline Typeform API under /typeform (TYPEFORM_BASE_URL = url + '/typeform'); every /exec POST is recorded in it.
 * @param {{ host: any, port?: number, hostname?: string, typeform?: ReturnType<typeof createTypeformStore> }} options
 * `sender`: Typeform's webhook sender (typeform-sender.mjs) over that store; POST /api/clock makes its due attempts.
 * @returns {Promise<{ url: string, port: number, typeform: ReturnType<typeof createTypeformStore>, sender: ReturnType<typeof createTypeformSender>, reset: () => void, close: () => Promise<void> }>}
 */
export async function startServer({ host, port = 8787, hostname = '127.0.0.1', typeform: givenTypeform = null }) {
  const newTypeform = () => createTypeformStore({ now: () => (typeof host.now === 'function' ? host.now() : Date.now()) });
  let typeform = givenTypeform ?? newTypeform();
  /** @type {Map<string, Echo>} */
  const echoes = new Map();
  let startedAt = Date.now();
  let baseUrl = '';
  let sender = senderFor(host, typeform, () => baseUrl);
  /** Whether the web app is deployed; POST /api/deployment {"active": false} removes it (its /exec answers 404). */
  const deployment = { active: true };

  const server = createServer((req, res) => handle(req, res).catch((err) => {
    const status = err instanceof HttpError ? err.status : 500;
    if (status === 500) console.error('[server]', err);
    if (res.headersSent) res.end();
    else sendJson(res, status, { error: err.message, ...(err.extra ?? {}) });
  }));

  /** @param {Req} req @param {Res} res */
  async function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (await handleConsole(req, res, url, host)) return; // the browser console: GET /, /console/*, its views under /api
    if (path === '/exec' || path.startsWith('/exec/')) return handleExec(req, res, url);
    if (path === '/echo') return handleEcho(req, res, url);
    if (path === '/api' || path.startsWith('/api/')) return handleApi(req, res, url);
    if (path.startsWith('/typeform/')) {
      const requestBody = req.method === 'PUT' ? (await readBody(req, MAX_API_BODY_BYTES)).toString('utf8') : '';
      const answer = typeform.handle(req.method ?? 'GET', url, path.slice('/typeform'.length), req.headers.authorization, requestBody);
      res.writeHead(answer.status, { 'Content-Type': 'application/json; charset=utf-8', ...(answer.headers ?? {}) });
      return res.end(JSON.stringify(answer.body));
    }
    return sendHtml(res, 404, 'Error', NOT_FOUND_TEXT);
  }

  /** /exec: run doPost/doGet first, then point the caller at a one-time echo URL (docs/platform.md#web-apps). @param {Req} req @param {Res} res @param {URL} url */
  async function handleExec(req, res, url) {
    // A HEAD probe on a working "Anyone" web app gets 403 [TANAIKE-WA §Status Codes].
    if (req.method === 'HEAD') return sendText(res, 403, 'text/html', '');
    if (req.method !== 'GET' && req.method !== 'POST') return sendHtml(res, 405, 'Error', NOT_FOUND_TEXT);
    // Reserved URL parameter names are refused before the script runs [GAS-WEB].
    if (url.searchParams.has('c') || url.searchParams.has('sid')) return sendHtml(res, 405, 'Error', NOT_FOUND_TEXT);
    const body = req.method === 'POST' ? await readBody(req, MAX_EXEC_BODY_BYTES) : null;
    // Typeform stores the response before it delivers the webhook, so it is there even when Google refuses the call.
    if (body) typeform.recordDelivery(body.toString('utf8'));
    // A removed (or archived) deployment: Google's 404 page, no script runs (POST /api/deployment).
    if (!deployment.active) return sendHtml(res, 404, 'Error', NOT_FOUND_TEXT);
    const event = buildEvent(url, body, req.headers['content-type']);
    const fn = req.method === 'POST' ? 'doPost' : 'doGet';
    const exec = await host.run(fn, [event], { kind: 'webapp' });
    // A call refused by the simultaneous-executions limit ran no script: whether its error page still comes through
    // the redirect is the `overload` world (worlds.mjs); `html-200` serves it from /exec itself.
    if (exec.status === 'refused' && host.worlds?.overload === 'html-200') return sendText(res, 200, 'text/html', renderOutput(exec).body);
    const key = randomBytes(24).toString('base64url');
    pruneEchoes();
    echoes.set(key, { ...renderOutput(exec), expiresAt: Date.now() + ECHO_TTL_MS });
    res.writeHead(302, { Location: `${baseUrl}/echo?user_content_key=${key}&lib=formqueue-local`, 'Content-Type': 'text/html; charset=UTF-8' });
    res.end(`<HTML><HEAD><TITLE>Moved Temporarily</TITLE></HEAD><BODY>The document has moved <A HREF="${baseUrl}/echo?user_content_key=${key}">here</A>.</BODY></HTML>`);
  }

  /** The echo URL answers GET once; POST to it is 405 [TANAIKE-WA §Understanding Flow]. @param {Req} req @param {Res} res @param {URL} url */
  function handleEcho(req, res, url) {
    if (req.method !== 'GET') return sendHtml(res, 405, 'Error', NOT_FOUND_TEXT);
    const key = url.searchParams.get('user_content_key') ?? '';
    const echo = echoes.get(key);
    echoes.delete(key);
    if (!echo || echo.expiresAt < Date.now()) return sendHtml(res, 404, 'Error', NOT_FOUND_TEXT);
    return sendText(res, echo.status, echo.type, echo.body);
  }

  function pruneEchoes() {
    const now = Date.now();
    for (const [key, echo] of echoes) if (echo.expiresAt < now) echoes.delete(key);
  }

  /** @param {Req} req @param {Res} res @param {URL} url */
  async function handleApi(req, res, url) {
    const parts = url.pathname.split('/').slice(2).map((p) => decodeURIComponent(p));
    const route = parts[0] ?? '';
    const method = req.method ?? 'GET';
    const allow = (/** @type {string[]} */ ...methods) => {
      if (!methods.includes(method)) throw new HttpError(405, `${method} is not allowed on ${url.pathname}; use ${methods.join(' or ')}`);
    };
    switch (route) {
      case 'health':
        allow('GET');
        return sendJson(res, 200, { ok: true, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
          executions: host.executions.length, triggers: host.triggers.length, mails: host.outbox.length, faults: host.faults.list().length,
          // runs refused by the 30-simultaneous-executions limit (a refused web-app call got Google's 200 HTML error page)
          refusedExecutions: host.refusals ?? 0,
          // trigger runs refused because the daily trigger runtime was used up, and the deployer's daily quotas now
          quotaRefusedExecutions: host.quotaRefusals ?? 0,
          ...(typeof host.dailyQuotas === 'function' ? { dailyQuotas: host.dailyQuotas() } : {}) });
      case 'sheets': {
        allow('GET');
        if (parts.length < 2 || parts[1] === '') return sendJson(res, 200, { sheets: sheetNames(host) });
        const sheet = host.sheetJson(parts.slice(1).join('/'));
        if (!sheet) throw unknownSheet(parts.slice(1).join('/'));
        return sendJson(res, 200, sheet);
      }
      case 'outbox':
        allow('GET');
        return sendJson(res, 200, host.outbox);
      case 'sent': {
        // A person deletes a message from the Sent folder: it stays in the outbox (it went), Gmail no longer finds it.
        allow('DELETE');
        const deleted = parts[1] ? host.deleteSentCopy(decodeURIComponent(parts[1])) : null;
        if (!deleted) throw new HttpError(404, `no sent message "${parts[1] ?? ''}"; ids are in GET /api/outbox`);
        return sendJson(res, 200, { ok: true, id: deleted.id });
      }
      case 'run': {
        allow('POST');
        const fn = parts[1] ?? '';
        if (!/^[A-Za-z_$][\w$]*$/.test(fn)) throw new HttpError(400, `POST /api/run/FUNCTION needs a function name, got "${fn}"`);
        const body = await readJson(req);
        if (body.args !== undefined && !Array.isArray(body.args)) throw new HttpError(400, '"args" must be an array of arguments');
        const range = body.activeRange;
        if (range !== undefined && (typeof range?.sheet !== 'string' || typeof range?.a1 !== 'string')) {
          throw new HttpError(400, '"activeRange" must be {"sheet":"Queue","a1":"A2"} (the selection a menu action sees; "A2:A3,A5" selects several ranges)');
        }
        if (range && !host.sheetJson(range.sheet)) throw unknownSheet(range.sheet);
        if (body.answers !== undefined && !Array.isArray(body.answers)) {
          throw new HttpError(400, '"answers" must be an array: one per alert or prompt, like ["YES", {"button":"OK","text":"typed"}]');
        }
        const exec = await host.run(fn, body.args ?? [], { kind: 'api', user: body.user, activeRange: range, uiAnswers: body.answers });
        return sendJson(res, 200, { ok: exec.status === 'ok', status: exec.status, executionId: exec.id, durationMs: exec.durationMs,
          ...(exec.modeledMs !== undefined ? { modeledMs: exec.modeledMs } : {}),
          effectiveUser: exec.effectiveUser, activeUser: exec.user, ...(exec.error ? { error: exec.error.message ?? String(exec.error) } : {}), logs: exec.logs ?? [], ui: exec.ui ?? [], value: toJsonValue(exec.value) });
      }
      case 'executions': {
        allow('GET');
        const limit = Math.max(1, Math.min(1000, Number(url.searchParams.get('limit')) || 100));
        return sendJson(res, 200, host.executions.slice(-limit).map(summarizeExecution));
      }
      case 'triggers':
        allow('GET');
        // owner: the account that created the trigger; every run it fires executes as that account.
        return sendJson(res, 200, host.triggers.map((/** @type {any} */ t) => ({ id: t.id, handler: t.handler, type: t.type,
          owner: t.owner ?? host.owner, ...(t.everyMinutes !== undefined ? { everyMinutes: t.everyMinutes } : {}),
          ...(t.everyDays !== undefined ? { everyDays: t.everyDays, atHour: t.atHour } : {}) })));
      case 'edit': {
        allow('POST');
        const edit = staffEdit(await readJson(req));
        if (!host.sheetJson(edit.sheet)) throw unknownSheet(edit.sheet);
        // The host refuses what Sheets refuses (e.g. a value outside a dropdown's list): a bad request, not a crash.
        const executions = await host.edit(edit).catch((/** @type {Error} */ err) => { throw new HttpError(400, err.message); });
        return sendJson(res, 200, { ok: true, executions: (executions ?? []).map(summarizeExecution) });
      }
      case 'clock': {
        allow('GET', 'POST');
        if (method === 'GET') return sendJson(res, 200, { now: new Date(host.now()).toISOString() });
        const { advanceMs } = await readJson(req);
        // Time only moves forward, as Google's does; a step back would put sheet timestamps in the future.
        if (typeof advanceMs !== 'number' || !Number.isFinite(advanceMs) || advanceMs <= 0) {
          throw new HttpError(400, `POST /api/clock needs {"advanceMs": N} with N > 0 milliseconds, got ${JSON.stringify(advanceMs)}`);
        }
        const moved = host.advanceClock(advanceMs);
        await sender.runDue(); // Typeform's retries due in the skipped span, in order
        return sendJson(res, 200, { now: new Date(host.now()).toISOString(), advancedMs: advanceMs, ...moved });
      }
      case 'deployment': {
        allow('POST');
        return sendJson(res, 200, await setDeployment(req, deployment));
      }
      case 'typeform':
        return sendJson(res, 200, await typeformApi(req, url, parts, { method, typeform, sender }));
      case 'faults': {
        allow('GET', 'POST', 'DELETE');
        // DELETE /api/faults clears all; DELETE /api/faults/ID ends one, when the host numbers its faults.
        if (method === 'DELETE' && parts[1] && typeof host.faults.remove === 'function') host.faults.remove(Number(parts[1]));
        else if (method === 'DELETE') host.faults.clear();
        if (method === 'POST') {
          const body = await readJson(req);
          const faults = Array.isArray(body) ? body : [body];
          faults.forEach(checkFault);
          try { for (const f of faults) host.faults.add(f); } catch (err) { throw new HttpError(400, `fault refused: ${/** @type {Error} */ (err).message}`); }
        }
        return sendJson(res, 200, { ok: true, faults: host.faults.list() });
      }
      default:
        throw new HttpError(404, `no such endpoint: ${method} ${url.pathname}`, { endpoints: API_ROUTES });
    }
  }

  /** @param {string} name */
  function unknownSheet(name) {
    const names = sheetNames(host);
    return new HttpError(404, `no sheet named "${name}"; sheets: ${names.length ? names.join(', ') : '(none yet)'}`, { sheets: names });
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => { server.off('error', reject); resolve(undefined); });
  });
  const { port: boundPort } = /** @type {import('node:net').AddressInfo} */ (server.address());
  baseUrl = `http://${hostname}:${boundPort}`;
  // ScriptApp.getService().getUrl() is where the web app is served: here (a port picked at start included).
  const pointHostHere = () => { if (host.opts?.webAppUrl) host.opts.webAppUrl = `${baseUrl}/exec`; }; // "" stays: a project with no deployment
  pointHostHere();
  return {
    url: baseUrl, port: boundPort, get typeform() { return typeform; }, get sender() { return sender; },
    /**
     * The front as startServer leaves it, for a host just reset (GasHost.reset): an empty offline Typeform (a store
     * given to startServer is not made anew: its owner resets it), a new webhook sender, no echoes, the web app
     * deployed, the host's web-app URL pointed here again.
     */
    reset() {
      if (!givenTypeform) typeform = newTypeform();
      sender = senderFor(host, typeform, () => baseUrl);
      echoes.clear();
      deployment.active = true;
      startedAt = Date.now();
      pointHostHere();
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * Apps Script's doGet/doPost event: no headers; form bodies also feed parameter(s) (docs/platform.md#web-apps).
 * @param {URL} url @param {Buffer|null} body @param {string|undefined} contentType
 */
export function buildEvent(url, body, contentType) {
  const rawQuery = url.search.length > 1 ? url.search.slice(1) : null;
  /** @type {Record<string, string[]>} */
  const parameters = {};
  const addAll = (/** @type {URLSearchParams} */ params) => {
    for (const [k, v] of params) (parameters[k] ??= []).push(v);
  };
  if (rawQuery) addAll(new URLSearchParams(rawQuery));
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const contents = body ? body.toString('utf8') : '';
  if (body && type === 'application/x-www-form-urlencoded') addAll(new URLSearchParams(contents));
  /** @type {Record<string, string>} */
  const parameter = {};
  for (const [k, v] of Object.entries(parameters)) parameter[k] = v[0];
  /** @type {Record<string, unknown>} */
  const event = { queryString: rawQuery, parameter, parameters, contextPath: '', contentLength: body ? body.length : -1 };
  const pathInfo = url.pathname.slice('/exec/'.length);
  if (url.pathname.startsWith('/exec/') && pathInfo) event.pathInfo = decodeURIComponent(pathInfo);
  if (body && (body.length > 0 || type)) {
    event.postData = { contents, length: body.length, type: type || 'application/octet-stream', name: 'postData' };
  }
  return event;
}

/**
 * What the echo URL serves for one execution; a failed doPost still gives 200 + an HTML "Error" page
 * (docs/platform.md#web-apps: not documented by Google).
 * @param {any} exec
 * @returns {{ status: number, type: string, body: string }}
 */
export function renderOutput(exec) {
  if (exec.status !== 'ok') {
    const message = exec.status === 'timeout' ? 'Exceeded maximum execution time' : (exec.error?.message ?? `execution ${exec.status}`);
    return { status: 200, type: 'text/html', body: errorPage('Error', message) };
  }
  const value = exec.value;
  if (value?.kind === 'TextOutput') {
    const mime = String(value.mimeType ?? 'TEXT');
    return { status: 200, type: MIME_TYPES[/** @type {keyof typeof MIME_TYPES} */ (mime.toUpperCase())] ?? mime, body: String(value.content ?? '') };
  }
  if (value?.kind === 'HtmlOutput') return { status: 200, type: 'text/html', body: String(value.content ?? '') };
  // Google's wording when doGet/doPost returns neither TextOutput nor HtmlOutput.
  return { status: 200, type: 'text/html', body: errorPage('Error', 'The script completed but did not return anything.') };
}

/** @param {any} exec */
function summarizeExecution(exec) {
  const { id, functionName, kind, status, startedAt, durationMs, error, calls, serviceCalls, cellsRead, cellsWritten,
    fetches, mailsSent, spreadsheetOpened, logs, ui } = exec;
  // modeledMs (with --latency): what the execution would have taken on Google, beside durationMs, the wall time here.
  return { id, functionName, kind, effectiveUser: exec.effectiveUser, activeUser: exec.user, status, startedAt, durationMs,
    ...(exec.modeledMs !== undefined ? { modeledMs: exec.modeledMs, latency: exec.latency } : {}), ...(error ? { error: error.message ?? String(error) } : {}),
    calls, serviceCalls, cellsRead, cellsWritten, fetches, mailsSent, spreadsheetOpened, logs, ...(ui?.length ? { ui } : {}) };
}

/**
 * The staff action a POST /api/edit body asks for, checked: `op` (default 'set': one typed cell) and its fields.
 * @param {any} body
 */
function staffEdit(body) {
  const { op = 'set', sheet, a1, value, user } = body;
  if (typeof sheet !== 'string' || !sheet) throw new HttpError(400, 'POST /api/edit needs {"sheet","a1","value","user"}: "sheet" is missing');
  if (!STAFF_OPS.includes(op)) throw new HttpError(400, `"op" must be one of ${STAFF_OPS.join(', ')}, got ${JSON.stringify(op)}`);
  const person = user ?? 'staff@example.com';
  if (op === 'set') {
    if (typeof a1 !== 'string' || !/^[A-Za-z]{1,3}[1-9][0-9]*$/.test(a1)) throw new HttpError(400, `"a1" must be one cell like "A2", got ${JSON.stringify(a1)}`);
    if (value === undefined) throw new HttpError(400, '"value" is missing (use "" to clear the cell)');
    return { sheet, a1: a1.toUpperCase(), value, user: person };
  }
  if ((op === 'paste' || op === 'clear' || op === 'copy') && typeof a1 !== 'string') throw new HttpError(400, `"${op}" needs "a1" (a cell or range like "A2:C4")`);
  if (op === 'copy' && typeof body.from !== 'string') throw new HttpError(400, '"copy" needs "from" (the copied block, like "A3:P3" or a whole row "3:3")');
  return { ...body, op, sheet, user: person, ...(typeof a1 === 'string' ? { a1: a1.toUpperCase() } : {}) };
}

/** @param {any} f */
function checkFault(f) {
  if (!f || typeof f !== 'object' || Array.isArray(f)) throw new HttpError(400, 'a fault is a JSON object like {"target":"gemini","status":429,"count":3}');
  if (!FAULT_TARGETS.includes(f.target)) throw new HttpError(400, `fault "target" must be one of ${FAULT_TARGETS.join(', ')}, got ${JSON.stringify(f.target)}`);
}

/** Sheet names, in tab order, if the host can list them. @param {any} host @returns {string[]} */
function sheetNames(host) {
  if (typeof host.sheetNames === 'function') return host.sheetNames();
  return (host.ss?.sheets ?? []).map((/** @type {{ name: string }} */ s) => s.name);
}

/** @param {unknown} value */
function toJsonValue(value) {
  try { return value === undefined ? null : JSON.parse(JSON.stringify(value)); } catch { return String(value); }
}

/** @param {Req} req @param {number} limit @returns {Promise<Buffer>} */
async function readBody(req, limit) {
  /** @type {Buffer[]} */
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, `request body over ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** @param {Req} req @returns {Promise<any>} */
async function readJson(req) {
  const text = (await readBody(req, MAX_API_BODY_BYTES)).toString('utf8').trim();
  if (!text) return {};
  try { return JSON.parse(text); } catch (err) { throw new HttpError(400, `request body is not JSON: ${/** @type {Error} */ (err).message}`); }
}

/** @param {Res} res @param {number} status @param {unknown} value */
function sendJson(res, status, value) {
  sendText(res, status, 'application/json', JSON.stringify(value, null, 2) + '\n');
}

/** @param {Res} res @param {number} status @param {string} type @param {string} body */
function sendText(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': `${type}; charset=utf-8`, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

/** @param {Res} res @param {number} status @param {string} title @param {string} message */
function sendHtml(res, status, title, message) {
  sendText(res, status, 'text/html', errorPage(title, message));
}

/** @param {string} title @param {string} message */
function errorPage(title, message) {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>`
    + `<body><div style="margin:20px"><div>${escapeHtml(message)}</div></div></body></html>`;
}

/** @param {string} s */
function escapeHtml(s) {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
