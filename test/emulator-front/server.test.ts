// The HTTP front of docs/runtime.md against a fake host: Apps Script's /exec behaviour (docs/platform.md#web-apps) and the /api table.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHost, echoHandlers, load, type Served, type ServerModule } from './support';

const { startServer } = await load<ServerModule>('emulator/server.mjs');

let host: FakeHost;
let server: Served;

beforeEach(async () => {
  host = new FakeHost({ ...echoHandlers });
  server = await startServer({ host, port: 0 });
});
afterEach(async () => { await server.close(); });

const post = (path: string, body: string, type = 'application/json', redirect: 'manual' | 'follow' = 'manual') =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': type }, body, redirect });
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.url}${path}`, { method, headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
};

describe('/exec like an Apps Script web app', () => {
  it('binds 127.0.0.1 only', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('POST runs doPost first, then answers 302 to a one-time GET echo URL', async () => {
    const res = await post('/exec?token=abc', '{"event_id":"e1"}');
    expect(res.status).toBe(302);
    expect(host.runs.map((r) => r.fn)).toEqual(['doPost']); // the script already ran before the redirect
    expect(host.runs[0].opts).toEqual({ kind: 'webapp' });
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^${server.url}/echo\\?user_content_key=`));
    const echo = await fetch(location);
    expect(echo.status).toBe(200);
    expect(echo.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(await echo.text()).method).toBe('POST');
    const again = await fetch(location);
    expect(again.status).toBe(404);
  });

  it('a client that follows redirects (fetch, curl -L) gets the output through a GET', async () => {
    const res = await post('/exec?token=abc', '{"a":1}', 'application/json', 'follow');
    expect(res.status).toBe(200);
    expect(res.redirected).toBe(true);
    expect(JSON.parse(await res.text()).e.postData.contents).toBe('{"a":1}');
  });

  it.runIf(existsSync('/usr/bin/curl'))('curl -L posts, follows the 302 with a GET and prints the output', async () => {
    const { stdout } = await promisify(execFile)('curl', ['-sS', '-L', '-H', 'Content-Type: application/json', '-d', '{"via":"curl"}', `${server.url}/exec?token=abc`]);
    const { method, e } = JSON.parse(stdout);
    expect(method).toBe('POST');
    expect(e.postData.contents).toBe('{"via":"curl"}');
    expect(host.runs).toHaveLength(1);
  });

  it('POST to the echo URL is 405 and does not use the echo up', async () => {
    const location = (await post('/exec', 'x', 'text/plain')).headers.get('location') ?? '';
    expect((await fetch(location, { method: 'POST', body: 'x' })).status).toBe(405);
    expect((await fetch(location)).status).toBe(200);
  });

  it('builds the doPost event: no headers, raw JSON body, query parameters, contentLength', async () => {
    await post('/exec?token=abc&n=1&n=2', '{"é":1}', 'application/json; charset=utf-8');
    const e = host.runs[0].args[0] as Record<string, any>;
    expect(e).toEqual({
      queryString: 'token=abc&n=1&n=2',
      parameter: { token: 'abc', n: '1' },
      parameters: { token: ['abc'], n: ['1', '2'] },
      contextPath: '',
      contentLength: 8, // bytes, as Content-Length counts them
      postData: { contents: '{"é":1}', length: 8, type: 'application/json', name: 'postData' },
    });
    expect(e).not.toHaveProperty('headers');
    expect(e).not.toHaveProperty('pathInfo');
  });

  it('form-urlencoded bodies also fill parameter and parameters', async () => {
    await post('/exec?a=q', 'a=body&b=2', 'application/x-www-form-urlencoded');
    const e = host.runs[0].args[0] as Record<string, any>;
    expect(e.parameter).toEqual({ a: 'q', b: '2' });
    expect(e.parameters).toEqual({ a: ['q', 'body'], b: ['2'] });
    expect(e.postData.contents).toBe('a=body&b=2');
  });

  it('GET runs doGet with contentLength -1, null queryString and pathInfo after /exec', async () => {
    const res = await fetch(`${server.url}/exec/hello/world`);
    expect(res.status).toBe(200);
    const { method, e } = JSON.parse(await res.text());
    expect(method).toBe('GET');
    expect(e).toEqual({ queryString: null, parameter: {}, parameters: {}, contextPath: '', contentLength: -1, pathInfo: 'hello/world' });
  });

  it('HEAD /exec is 403 and runs nothing', async () => {
    expect((await fetch(`${server.url}/exec?token=abc`, { method: 'HEAD' })).status).toBe(403);
    expect(host.runs).toEqual([]);
  });

  it.each(['c', 'sid'])('reserved parameter %s is 405 "file does not exist" and runs nothing', async (name) => {
    const res = await post(`/exec?${name}=1`, '{}');
    expect(res.status).toBe(405);
    expect(await res.text()).toContain('Sorry, the file you have requested does not exist.');
    expect(host.runs).toEqual([]);
  });

  it('a thrown doPost still reaches the caller as 200 with an HTML "Error" page', async () => {
    host.handlers.doPost = () => ({ status: 'error', error: { name: 'TypeError', message: 'Cannot read <contents>' } });
    const res = await post('/exec', '{}', 'application/json', 'follow');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('<title>Error</title>');
    expect(html).toContain('Cannot read &#60;contents&#62;');
  });

  it('a timed-out execution shows Apps Script\'s time-limit message', async () => {
    host.handlers.doPost = () => ({ status: 'timeout', error: { name: 'Error', message: 'killed' } });
    expect(await (await post('/exec', '{}', 'application/json', 'follow')).text()).toContain('Exceeded maximum execution time');
  });

  it('a doPost that returns nothing shows Google\'s "did not return anything" page', async () => {
    host.handlers.doPost = () => ({ value: undefined });
    expect(await (await post('/exec', '{}', 'application/json', 'follow')).text()).toContain('The script completed but did not return anything.');
  });

  it('serves TextOutput with its MIME type and HtmlOutput as HTML', async () => {
    host.handlers.doPost = () => ({ value: { kind: 'TextOutput', content: 'a,b', mimeType: 'CSV' } });
    const csv = await post('/exec', '', 'text/plain', 'follow');
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    host.handlers.doGet = () => ({ value: { kind: 'HtmlOutput', content: '<p>hi</p>', title: 't' } });
    const html = await fetch(`${server.url}/exec`);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toBe('<p>hi</p>');
  });
});

describe('/api', () => {
  it('GET /api/health says the runtime is alive', async () => {
    const { status, json } = await api('GET', '/api/health');
    expect(status).toBe(200);
    expect(json.ok).toBe(true);
  });

  it('GET /api/sheets/NAME returns the sheet; an unknown sheet is 404 naming the sheets that exist', async () => {
    expect((await api('GET', '/api/sheets/Queue')).json).toEqual(host.sheetJson('Queue'));
    const missing = await api('GET', '/api/sheets/Nope');
    expect(missing.status).toBe(404);
    expect(missing.json.error).toBe('no sheet named "Nope"; sheets: Queue, Log');
    expect((await api('GET', '/api/sheets')).json).toEqual({ sheets: ['Queue', 'Log'] });
  });

  it('GET /api/outbox lists every mail in order', async () => {
    host.sendMail({ to: 'a@example.com', subject: 'one', body: 'b', sentAt: '2026-01-01T00:00:00.000Z' });
    host.sendMail({ to: 'b@example.com', subject: 'two', body: 'b', sentAt: '2026-01-01T00:00:01.000Z' });
    expect((await api('GET', '/api/outbox')).json.map((m: { subject: string }) => m.subject)).toEqual(['one', 'two']);
  });

  it('POST /api/run/FUNCTION runs it with args and user and reports ok, durationMs, logs', async () => {
    host.handlers.processQueue = (args, opts) => ({ logs: [`args=${JSON.stringify(args)} user=${opts.user}`], value: 7 });
    const { status, json } = await api('POST', '/api/run/processQueue', { args: [1, 'x'], user: 'staff@example.com', activeRange: { sheet: 'Queue', a1: 'A2' } });
    expect(status).toBe(200);
    expect(json).toMatchObject({ ok: true, durationMs: 3, logs: ['args=[1,"x"] user=staff@example.com'], value: 7 });
    expect(json).not.toHaveProperty('error');
    expect(host.runs[0].opts).toEqual({ kind: 'api', user: 'staff@example.com', activeRange: { sheet: 'Queue', a1: 'A2' } });
  });

  it('POST /api/run reports a failing function with ok:false and its error', async () => {
    const { json } = await api('POST', '/api/run/nothingHere');
    expect(json).toMatchObject({ ok: false, error: 'Script function not found: nothingHere' });
  });

  it('bad /api requests get a 4xx JSON error with a clear message', async () => {
    expect(await api('POST', '/api/run/processQueue', '{nope')).toMatchObject({ status: 400, json: { error: expect.stringMatching(/not JSON/) } });
    expect(await api('POST', '/api/run/processQueue', { args: 'x' })).toMatchObject({ status: 400, json: { error: '"args" must be an array of arguments' } });
    expect((await api('POST', '/api/run/not-a-name')).status).toBe(400);
    expect(await api('GET', '/api/run/processQueue')).toMatchObject({ status: 405, json: { error: expect.stringContaining('use POST') } });
    const unknown = await api('GET', '/api/whatever');
    expect(unknown.status).toBe(404);
    expect(unknown.json.endpoints).toContain('GET /api/outbox');
  });

  it('GET /api/executions shows function, outcome, duration and service-call counts', async () => {
    await post('/exec', '{}');
    const { json } = await api('GET', '/api/executions');
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({ functionName: 'doPost', kind: 'webapp', status: 'ok', durationMs: 3, serviceCalls: 0, cellsRead: 0, calls: {} });
  });

  it('GET /api/triggers lists handler, type and everyMinutes', async () => {
    expect((await api('GET', '/api/triggers')).json).toEqual([
      { id: 't1', handler: 'processQueue', type: 'CLOCK', everyMinutes: 1 }, { id: 't2', handler: 'onEditInstallable', type: 'ON_EDIT' }]);
  });

  it('POST /api/edit applies the edit through the host and returns the on-edit executions', async () => {
    host.handlers.onEditInstallable = () => ({});
    const { status, json } = await api('POST', '/api/edit', { sheet: 'Queue', a1: 'a2', value: 'APPROVED', user: 'ana@example.com' });
    expect(status).toBe(200);
    expect(host.edits).toEqual([{ sheet: 'Queue', a1: 'A2', value: 'APPROVED', user: 'ana@example.com' }]);
    expect(json.executions[0]).toMatchObject({ functionName: 'onEditInstallable', kind: 'edit', status: 'ok' });
  });

  it('POST /api/edit refuses an unknown sheet, a bad A1 and a missing value', async () => {
    expect(await api('POST', '/api/edit', { sheet: 'Nope', a1: 'A1', value: 1 })).toMatchObject({ status: 404, json: { sheets: ['Queue', 'Log'] } });
    expect((await api('POST', '/api/edit', { sheet: 'Queue', a1: 'A1:B2', value: 1 })).status).toBe(400);
    expect((await api('POST', '/api/edit', { sheet: 'Queue', a1: 'A1' })).status).toBe(400);
    expect(host.edits).toEqual([]);
  });

  it('POST /api/faults hands faults to host.faults; DELETE clears them', async () => {
    const sheets = { target: 'sheets', error: 'Error code INTERNAL', forMs: 60000 };
    const gemini = { target: 'gemini', status: 429, count: 3 };
    expect((await api('POST', '/api/faults', sheets)).json).toEqual({ ok: true, faults: [sheets] });
    expect((await api('POST', '/api/faults', [gemini, { target: 'mail', quota: 0 }])).json.faults).toHaveLength(3);
    expect((await api('GET', '/api/faults')).json.faults[1]).toEqual(gemini);
    expect((await api('DELETE', '/api/faults')).json).toEqual({ ok: true, faults: [] });
    expect(host.faults.list()).toEqual([]);
  });

  it('DELETE /api/faults/ID ends one fault when the host numbers them', async () => {
    await api('POST', '/api/faults', [{ target: 'mail', quota: 0, id: 1 }, { target: 'gemini', latencyMs: 2000, id: 2 }]);
    expect((await api('DELETE', '/api/faults/1')).json.faults).toEqual([{ target: 'gemini', latencyMs: 2000, id: 2 }]);
  });

  it('POST /api/faults refuses an unknown target, and reports what the host refuses', async () => {
    expect(await api('POST', '/api/faults', { target: 'drive' })).toMatchObject({ status: 400, json: { error: expect.stringContaining('sheets, gemini, mail') } });
    expect(await api('POST', '/api/faults', { target: 'gemini', status: 'nope' })).toMatchObject({ status: 400, json: { error: 'fault refused: status must be a number' } });
  });
});
