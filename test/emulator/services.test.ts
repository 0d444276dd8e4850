// Contract tests for Properties, Cache, UrlFetchApp, MailApp/GmailApp, output services, Utilities and accounting.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeHost } from './helpers';

let host: any;
let server: Server;
let base = '';
let inFlight = 0;
const waiting: Array<() => void> = [];

beforeAll(async () => {
  // /barrier?n=K answers only once K requests are in flight at the same time: sequential fetching would never finish.
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (url.pathname === '/echo') { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ method: req.method, body, type: req.headers['content-type'], x: req.headers['x-test'] })); return; }
      if (url.pathname === '/status') { res.statusCode = Number(url.searchParams.get('code')); res.end('boom ' + 'z'.repeat(300)); return; }
      if (url.pathname === '/hang') return; // never answers
      if (url.pathname === '/barrier') {
        inFlight++;
        const answer = () => res.end(url.searchParams.get('id') ?? '');
        waiting.push(answer);
        if (inFlight >= Number(url.searchParams.get('n'))) { inFlight = 0; waiting.splice(0).forEach((f) => f()); }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as any).port}`;
});
afterAll(async () => { server.closeAllConnections(); await new Promise((r) => server.close(r)); });
afterEach(async () => { await host?.dispose(); });
const ok = async (fn: string, args: unknown[] = [], opts: object = {}) => {
  const e = await host.run(fn, args, opts);
  if (e.status !== 'ok') throw new Error(`${fn}: ${e.status} ${e.error?.message}`);
  return e.value;
};

describe('PropertiesService and CacheService', () => {
  // [GAS-QUOTA] 9 KB per value and 500 KB per store; a refused write changes nothing.
  it('script properties refuse values over 9 KB and stores over 500 KB with Apps Script\'s errors', async () => {
    host = makeHost('services');
    const r = await ok('props');
    expect(r.nineKb).toEqual({ ok: 'stored' });
    expect(r.tooBig).toEqual({ error: 'Exception: Argument too large: value' });
    expect(r.fill).toEqual({ error: 'Exception: You have exceeded the property storage quota. Please remove some properties and try again.' });
    expect(r.kept).toBe(true);
    expect(r.chained).toBe('1');
    expect(r.after).toEqual(['x', 'y']);
    expect(host.properties.getAll()).toEqual({ x: 'X', y: 'Y' });
  });

  // [GAS-CACHE] 250-char keys, 100 KB (102,400-byte) values, string coercion, TTL expiry.
  it('the script cache enforces key and value limits and expires entries after their TTL', async () => {
    host = makeHost('services');
    const r = await ok('cache', ['put']);
    expect(r).toEqual({
      get: 'v', all: { a: '1', b: '2' }, coerced: '[object Object]', longKey: { error: 'Exception: Argument too large: key' },
      bigValue: { error: 'Exception: Argument too large: value' }, okValue: { ok: 'stored' }, nullKey: { error: 'Exception: Invalid argument: key' },
    });
    host.advanceClock(31_000);
    expect(await ok('cache', ['get'])).toEqual({ k: null, a: '1' });
    host.advanceClock(600_000);
    expect(await ok('cache', ['get'])).toEqual({ k: null, a: null });
  });
});

describe('UrlFetchApp', () => {
  // [GAS-FETCH] throws on a non-2xx code unless muteHttpExceptions; the message names the host and truncates the body.
  it('a non-2xx answer throws Apps Script\'s message unless muteHttpExceptions is set', async () => {
    host = makeHost('services');
    const thrown = await ok('fetchIt', [`${base}/status?code=500`, false]);
    expect(thrown.error).toBe(`Exception: Request failed for ${base} returned code 500. Truncated server response: boom ${'z'.repeat(195)}... (use muteHttpExceptions option to examine full response)`);
    expect(await ok('fetchIt', [`${base}/status?code=404`, true])).toMatchObject({ code: 404 });
    expect(await ok('fetchIt', [`${base}/echo`, false])).toEqual({ code: 200, type: 'application/json', text: JSON.stringify({ method: 'POST', body: '{"hi":1}', type: 'application/json', x: 'yes' }) });
  });

  // [GAS-FETCH] fetchAll runs requests in parallel and returns results in request order.
  it('fetchAll runs requests in parallel and answers in request order', async () => {
    host = makeHost('services', { fetchTimeoutMs: 20000 });
    const urls = ['c', 'a', 'b'].map((id) => `${base}/barrier?n=3&id=${id}`);
    expect(await ok('fetchMany', [urls])).toEqual(['c', 'a', 'b']);
  });

  // [GAS-FETCH, POEHNELT] "Timeout: <url>" after the fetch timeout; connection failures are not muted.
  it('timeouts and refused connections throw Apps Script\'s transport errors even when muted', async () => {
    host = makeHost('services', { fetchTimeoutMs: 100 });
    expect(await ok('fetchIt', [`${base}/hang`, true])).toEqual({ error: `Exception: Timeout: ${base}/hang` });
    expect(await ok('fetchIt', ['http://127.0.0.1:9/x', true])).toEqual({ error: 'Exception: Address unavailable: http://127.0.0.1:9/x' });
  });
});

describe('MailApp and GmailApp', () => {
  // [GAS-MAIL] object and positional forms; quota counts recipients; GmailApp.search over sent mail.
  it('sends every form into the outbox, counts recipients against the quota and finds sent mail', async () => {
    host = makeHost('services');
    const seen: any[] = [];
    host.on('mail', (m: any) => seen.push(m.subject));
    const r = await ok('mail');
    expect(r).toEqual({ before: 100, after: 95, invalid: { error: 'Exception: Invalid email: not-an-address' }, found: [1, 'Positional FQ-2', 'c@example.com', 'body two', true] });
    expect(host.outbox.map((m: any) => [m.via, m.to, m.cc, m.bcc, m.subject])).toEqual([
      ['MailApp', 'a@example.com', 'b@example.com', '', 'Obj FQ-1'], ['MailApp', 'c@example.com', '', 'd@example.com', 'Positional FQ-2'], ['GmailApp', 'e@example.com', '', '', 'Gmail FQ-3'],
    ]);
    expect(host.outbox[0]).toMatchObject({ htmlBody: '<b>html</b>', name: 'formqueue', replyTo: 'staff@example.com' });
    expect(seen).toEqual(['Obj FQ-1', 'Positional FQ-2', 'Gmail FQ-3']);
  });

  // (docs/platform.md#mailapp) "Service invoked too many times for one day: email." once recipients run out.
  it('an exhausted daily quota refuses the send with the real quota error', async () => {
    host = makeHost('services', { mailDailyQuota: 1 });
    expect(await ok('sendOne', ['a@example.com'])).toBe('sent');
    expect(await ok('sendOne', ['b@example.com'])).toBe('Exception: Service invoked too many times for one day: email.');
    host.resetDay();
    expect(await ok('sendOne', ['b@example.com'])).toBe('sent');
  });
});

describe('output services, Utilities, Session and the runtime', () => {
  it('HtmlService templates evaluate scriptlets and showModalDialog is recorded', async () => {
    host = makeHost('services');
    expect(await ok('outputs', [], { kind: 'menu' })).toEqual({ html: '<p>&lt;x&gt;</p><i>r</i>', title: 'T' });
    expect(host.ui.dialogs[0]).toMatchObject({ kind: 'modal', title: 'Dialog', content: '<p>&lt;x&gt;</p><i>r</i>' });
  });

  // [GAS-V8] Utilities replaces Node APIs; Apps Script byte arrays are signed (-128..127).
  it('Utilities encodes, hashes (signed bytes), gzips and formats dates like Apps Script', async () => {
    host = makeHost('services');
    const r = await ok('utilities', [], { kind: 'menu', user: 'staff@example.com' });
    expect(r).toEqual({
      b64: 'aMOpbGxv', web: '-_8-', dec: [-1], digestLen: 32, signed: true, digest0: -70, hmacLen: 32, round: 'héllo', bytes: 6, type: 'text/plain', uuid: true,
      // a menu run executes as the person acting, so the effective user is that person too (test/emulator/identity.test.ts)
      date: '2026-02-07T06:04:03+01:00 Sat Feb', user: 'staff@example.com', effective: 'staff@example.com', tz: 'Etc/UTC', url: 'http://127.0.0.1:8787/exec',
    });
  });

  it('an execution over the time limit is killed with "Exceeded maximum execution time"; script errors keep their name', async () => {
    host = makeHost('services');
    const killed = await host.run('spin', [], { timeoutMs: 200 });
    expect([killed.status, killed.error.message]).toEqual(['timeout', 'Exceeded maximum execution time']);
    const own = await host.run('throwsOwn');
    expect([own.status, own.error.name, own.error.message]).toEqual(['error', 'TypeError', 'mine']);
    expect(host.live.size).toBe(0);
  });

  // Accounting: only host round trips count; facades (getScriptLock) and local Utilities do not.
  it('accounting counts host round trips by method, cells read and written, and spreadsheet opening', async () => {
    host = makeHost('services', { scriptProperties: { K: 'v' } });
    const e = await host.run('count');
    expect(e.value).toBe('v');
    expect(e.calls).toEqual({ 'SpreadsheetApp.getActiveSpreadsheet': 1, 'Spreadsheet.getSheetByName': 1, 'Sheet.getRange': 2, 'Range.getValues': 1, 'Range.setValues': 1, 'Properties.getProperty': 1 });
    expect([e.serviceCalls, e.cellsRead, e.cellsWritten, e.spreadsheetOpened, e.fetches, e.mailsSent]).toEqual([7, 6, 3, true, 0, 0]);
    expect(host.bridgeStats().samples).toBe(7);
    expect(host.executions.at(-1)).toBe(e);
  });

  it('state in the data folder survives a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fq-emu-'));
    host = makeHost('services', { dataDir, scriptProperties: { K: 'v' } });
    await host.load();
    await ok('count');
    await ok('sendOne', ['a@example.com']);
    await host.dispose();
    expect(readdirSync(dataDir).sort()).toEqual(['clock.json', 'daily-quotas.json', 'inbox.json', 'mail-quota.json', 'outbox.json', 'properties.json', 'spreadsheet.json', 'triggers.json']);
    host = makeHost('services', { dataDir });
    await host.load();
    expect(host.sheetJson('Sheet1').header).toEqual([1, 2, 3]);
    expect(host.properties.get('K')).toBe('v');
    expect(host.outbox.length).toBe(1);
    expect(host.remainingMailQuota()).toBe(99);
  });
});
