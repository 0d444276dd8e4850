// The browser console's HTTP side: the static page, and the few read-only views it needs beyond the /api table
// (a sheet as drawn, an execution's dialogs, live events, the web app's health, sample deliveries, .eml files).
import { readFileSync, readdirSync } from 'node:fs';
import { composeEml, slugify } from '../eml.mjs';
import { sheetView } from './sheet-view.mjs';

const STATIC_DIR = new URL('./static/', import.meta.url);
const FIXTURES_DIR = new URL('../demo-fixtures/', import.meta.url);
const STATIC_FILES = { 'index.html': 'text/html', 'console.js': 'text/javascript', 'console.css': 'text/css', 'favicon.svg': 'image/svg+xml' };
const STAFF_EMAIL = 'staff@example.com';
const HEARTBEAT_MS = 15000;

/**
 * Answers the console's requests; returns false for every other path so the runtime's own routes handle it.
 * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res @param {URL} url @param {any} host
 * @returns {Promise<boolean>}
 */
export async function handleConsole(req, res, url, host) {
  if (req.method !== 'GET') return false;
  const path = url.pathname;
  if (path === '/' || path === '/console' || path === '/console/') return sendFile(res, 'index.html');
  if (path === '/favicon.ico') return sendFile(res, 'favicon.svg');
  if (path.startsWith('/console/')) {
    const file = path.slice('/console/'.length);
    return Object.hasOwn(STATIC_FILES, file) ? sendFile(res, file) : false;
  }
  if (path.startsWith('/api/view/')) {
    const name = decodeURIComponent(path.slice('/api/view/'.length));
    const view = sheetView(host, name, { offset: url.searchParams.get('offset') ?? undefined, limit: Number(url.searchParams.get('limit')) || undefined });
    return view ? sendJson(res, 200, view) : sendJson(res, 404, { error: `no sheet named "${name}"` });
  }
  if (path === '/api/ui') return sendJson(res, 200, uiOf(host, url.searchParams.get('execution') ?? ''));
  if (path === '/api/events') return streamEvents(req, res, host);
  if (path === '/api/console/info') {
    // The URL this page was served from is the runtime's own, whatever port it was given.
    const webhookUrl = `http://${req.headers.host}/exec?token=${encodeURIComponent(String(host.properties.get('WEBHOOK_TOKEN') ?? ''))}`;
    return sendJson(res, 200, { webhookUrl,
      fixtures: readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.json')).sort(), user: host.opts.activeUserEmail,
      // The "Act as" choices: the owner (who installed the triggers) and a staff member editing the sheet.
      owner: host.owner, staff: STAFF_EMAIL, timeZone: host.ss.timeZone });
  }
  if (path === '/api/console/sheets') {
    // A new spreadsheet's blank Sheet1 (Set up leaves it) is not shown; anything written to it makes it a real tab.
    const blankDefault = (/** @type {any} */ sh) => sh.name === 'Sheet1' && sh.lastRow() === 0 && sh.lastColumn() === 0;
    return sendJson(res, 200, { sheets: host.ss.sheets.filter((/** @type {any} */ sh) => !blankDefault(sh)).map((/** @type {any} */ sh) => sh.name) });
  }
  const fixture = /^\/api\/console\/fixtures\/([\w.-]+\.json)$/.exec(path);
  if (fixture) {
    const names = readdirSync(FIXTURES_DIR);
    if (!names.includes(fixture[1])) return sendJson(res, 404, { error: `no fixture ${fixture[1]}` });
    return sendText(res, 200, 'application/json', readFileSync(new URL(fixture[1], FIXTURES_DIR), 'utf8'));
  }
  if (path === '/api/console/health') return sendHealth(res, host);
  const eml = /^\/api\/outbox\/(\d+)\.eml$/.exec(path);
  if (eml) {
    const mail = host.outbox[Number(eml[1])];
    if (!mail) return sendJson(res, 404, { error: `no mail number ${eml[1]} (the outbox has ${host.outbox.length})` });
    const body = await composeEml(mail, { from: host.opts.activeUserEmail, messageId: `<${mail.executionId ?? 'mail'}-${eml[1]}@formqueue.local>` });
    res.writeHead(200, { 'Content-Type': 'message/rfc822', 'Content-Disposition': `attachment; filename="${eml[1]}-${slugify(mail.subject) || 'mail'}.eml"`, 'Cache-Control': 'no-store' });
    res.end(body);
    return true;
  }
  return false;
}

/**
 * What one execution showed (the runtime has no screen: it records alerts, prompts, dialogs and toasts), as
 * `{dialogs: [{kind, title, prompt, content?}], toasts: [{message}]}`: the host-wide record keeps a dialog's HTML;
 * an execution's own `ui` list (text only) answers when the host-wide one has nothing for it.
 * @param {any} host @param {string} id
 */
function uiOf(host, id) {
  const mine = (/** @type {any} */ d) => d.executionId === id;
  const dialogs = (host.ui?.dialogs ?? []).filter(mine);
  const toasts = (host.ui?.toasts ?? []).filter(mine);
  const exec = host.executions.find((/** @type {any} */ x) => x.id === id);
  if (dialogs.length + toasts.length > 0 || !exec || !Array.isArray(exec.ui)) return { dialogs, toasts };
  return {
    dialogs: exec.ui.filter((/** @type {any} */ u) => u.kind !== 'toast').map((/** @type {any} */ u) => ({ kind: u.kind, title: u.title ?? '', prompt: String(u.text ?? '') })),
    toasts: exec.ui.filter((/** @type {any} */ u) => u.kind === 'toast').map((/** @type {any} */ u) => ({ message: String(u.text ?? ''), title: u.title ?? '' })),
  };
}

/** The web app's own health view (doGet with its HEALTH_TOKEN), as a monitor would see it. @param {any} res @param {any} host */
async function sendHealth(res, host) {
  const token = String(host.properties.get('HEALTH_TOKEN') ?? '');
  const event = { queryString: `token=${token}`, parameter: { token }, parameters: { token: [token] }, contextPath: '', contentLength: -1 };
  // Marked as the console's own, so the page does not redraw (and re-run doGet) on the event this run sends.
  const exec = await host.run('doGet', [event], { kind: 'webapp', origin: 'console' });
  if (exec.status !== 'ok') return sendJson(res, 200, { ok: false, error: exec.error?.message ?? exec.status });
  try {
    return sendJson(res, 200, JSON.parse(String(exec.value?.content ?? '')));
  } catch {
    return sendJson(res, 200, { ok: false, error: 'doGet did not answer JSON', body: String(exec.value?.content ?? '') });
  }
}

/** Server-sent events: one `execution` event per finished execution, so the page redraws while the clock ticks. */
function streamEvents(/** @type {any} */ req, /** @type {any} */ res, /** @type {any} */ host) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
  res.write('retry: 2000\n\n');
  const onExecution = (/** @type {any} */ exec) => {
    res.write(`event: execution\ndata: ${JSON.stringify({ id: exec.id, functionName: exec.functionName, kind: exec.kind, status: exec.status, origin: exec.origin })}\n\n`);
  };
  host.setMaxListeners(Math.max(host.getMaxListeners(), 100));
  host.on('execution', onExecution);
  const beat = setInterval(() => res.write(': beat\n\n'), HEARTBEAT_MS);
  beat.unref?.();
  req.on('close', () => { clearInterval(beat); host.off('execution', onExecution); });
  return true;
}

/** @param {any} res @param {keyof typeof STATIC_FILES} file */
function sendFile(res, file) {
  return sendText(res, 200, STATIC_FILES[file], readFileSync(new URL(file, STATIC_DIR), 'utf8'));
}

/** @param {any} res @param {number} status @param {unknown} value */
function sendJson(res, status, value) {
  return sendText(res, status, 'application/json', JSON.stringify(value));
}

/** @param {any} res @param {number} status @param {string} type @param {string} body */
function sendText(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': `${type}; charset=utf-8`, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
  return true;
}
