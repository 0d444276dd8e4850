// The front through the real GasHost and a tiny bundle (scripts/hello): HTTP → vm execution → Sheets/UrlFetch/Mail → HTTP.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { load, type Served, type ServerModule } from './support';

const HELLO = new URL('./scripts/hello', import.meta.url).pathname;

interface RealHost { load(): Promise<void>; dispose(): Promise<void>; on(e: string, f: (x: unknown) => void): void; outbox: { to: string; subject: string; body: string }[] }
interface HostModule { GasHost: new (o: Record<string, unknown>) => RealHost }
interface GeminiModule { startOfflineGemini(o?: { port?: number }): Promise<{ baseUrl: string; close(): Promise<void>; requests: unknown[] }> }
interface EmlModule { attachEmlWriter(h: unknown, o: { dataDir: string; from: string }): { dir: string; flush(): Promise<unknown> } }
interface CliModule { main(argv: string[], deps?: object): Promise<number> }
const json = async (res: ReturnType<typeof fetch>): Promise<any> => (await res).json();

describe('through the real GasHost', () => {
  let host: RealHost;
  let server: Served;
  let gemini: Awaited<ReturnType<GeminiModule['startOfflineGemini']>>;
  let eml: { dir: string; flush(): Promise<unknown> };
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'fq-real-'));
    const { GasHost } = await load<HostModule>('emulator/host.mjs');
    gemini = await (await load<GeminiModule>('emulator/offline-gemini.mjs')).startOfflineGemini({ port: 0 });
    host = new GasHost({ bundleDir: HELLO, dataDir: null, spreadsheetId: 'sheet-hello', activeUserEmail: 'owner@example.com',
      scriptProperties: { SPREADSHEET_ID: 'sheet-hello', GEMINI_BASE_URL: gemini.baseUrl, GEMINI_API_KEY: 'offline-stand-in' } });
    await host.load();
    eml = (await load<EmlModule>('emulator/eml.mjs')).attachEmlWriter(host, { dataDir, from: 'owner@example.com' });
    server = await (await load<ServerModule>('emulator/server.mjs')).startServer({ host, port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await host?.dispose();
    await gemini?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('POST /exec runs the bundle\'s doPost and the echo URL serves its JSON', async () => {
    const res = await fetch(`${server.url}/exec?token=t0k`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"x":1}', redirect: 'manual' });
    expect(res.status).toBe(302);
    const echo = await fetch(res.headers.get('location') ?? '');
    expect(echo.headers.get('content-type')).toMatch(/^application\/json/);
    const { method, e } = JSON.parse(await echo.text());
    expect(method).toBe('POST');
    expect(e).toMatchObject({ parameter: { token: 't0k' }, queryString: 'token=t0k', contentLength: 7,
      postData: { contents: '{"x":1}', type: 'application/json', name: 'postData', length: 7 } });
  });

  it('GET /exec/path runs doGet with pathInfo', async () => {
    const { e } = JSON.parse(await (await fetch(`${server.url}/exec/a/b?q=1`)).text());
    expect(e).toMatchObject({ pathInfo: 'a/b', contentLength: -1, parameters: { q: ['1'] } });
  });

  it('POST /api/run reports logs, and a throwing function as ok:false with its message', async () => {
    const ok = await json(fetch(`${server.url}/api/run/hello`, { method: 'POST', body: JSON.stringify({ args: ['Ana'] }) }));
    expect(ok).toMatchObject({ ok: true });
    expect(JSON.stringify(ok.logs)).toContain('hello Ana');
    const bad = await json(fetch(`${server.url}/api/run/boom`, { method: 'POST' }));
    expect(bad).toMatchObject({ ok: false, error: expect.stringContaining('boom from the bundle') });
  });

  it('a queued event is answered through the offline Gemini, mailed, and written as .eml', async () => {
    await fetch(`${server.url}/exec`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"event_id":"EV1","email":"mina@example.com"}' });
    const run = await json(fetch(`${server.url}/api/run/processQueue`, { method: 'POST' }));
    expect(run).toMatchObject({ ok: true });
    const queue = await json(fetch(`${server.url}/api/sheets/Queue`));
    expect(queue.header).toEqual(['status', 'event_id', 'recipient', 'result', 'sent_at']);
    expect(queue.rows.find((r: string[]) => r[1] === 'EV1')?.[0]).toBe('SENT');
    const outbox = await json(fetch(`${server.url}/api/outbox`));
    const mail = outbox.find((m: { subject: string }) => m.subject === 'Reply to EV1');
    expect(mail.body).toContain("(Written by formqueue's offline Gemini stand-in.)");
    expect(mail.body).toMatch(/^Dear EV1,/);
    await vi.waitFor(async () => {
      await eml.flush();
      expect(readdirSync(eml.dir)).toContain('0001-reply-to-ev1.eml');
    });
    expect(readFileSync(join(eml.dir, '0001-reply-to-ev1.eml'), 'utf8')).toMatch(/^To: mina@example\.com$/m);
  });

  it('an unknown sheet is a 404 that names the sheets that exist', async () => {
    const res = await fetch(`${server.url}/api/sheets/Nope`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toMatch(/^no sheet named "Nope"; sheets: .*Queue/);
  });

  it('with --latency google:0.01, /api/run and /api/executions show the modeled time beside the wall time', async () => {
    const { GasHost } = await load<HostModule>('emulator/host.mjs');
    const slow = new GasHost({ bundleDir: HELLO, dataDir: null, spreadsheetId: 'sheet-hello', latency: 'google:0.01', latencySeed: 5 });
    await slow.load();
    const front = await (await load<ServerModule>('emulator/server.mjs')).startServer({ host: slow, port: 0 });
    try {
      const ran = await json(fetch(`${front.url}/api/run/hello`, { method: 'POST', body: JSON.stringify({ args: ['Ana'] }) }));
      expect(ran).toMatchObject({ ok: true, durationMs: expect.any(Number), modeledMs: expect.any(Number) });
      // a modeled start alone is a warm start of Google's (median 750 ms): at a hundredth, far above what was slept
      const [listed] = await json(fetch(`${front.url}/api/executions?limit=1`));
      expect(listed).toMatchObject({ id: ran.executionId, modeledMs: ran.modeledMs, latency: { spec: 'google:0.01', seed: 5 } });
      expect(listed.modeledMs).toBeGreaterThan(listed.latency.sleptMs);
    } finally {
      await front.close();
      await slow.dispose();
    }
  });

  it('npm start -- --demo runs end to end on the bundle and exits 0', async () => {
    const demoDir = mkdtempSync(join(tmpdir(), 'fq-demo-'));
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((s: unknown) => { lines.push(String(s)); });
    try {
      const code = await (await load<CliModule>('emulator/cli.mjs')).main(['--demo', '--data', demoDir], { bundleDir: HELLO });
      expect(code).toBe(0);
    } finally {
      log.mockRestore();
      rmSync(demoDir, { recursive: true, force: true });
    }
    const out = lines.join('\n');
    expect(out).toContain('setup(): ok');
    expect(out).toMatch(/POST → 302 → GET → 200/);
    expect(out).toMatch(/Queue: SENT 4/);
    expect(out).toContain('4. Outbox: 4 mail(s)');
  });
});
