// `npm start` command line (docs/runtime.md): argument errors, the Script Properties it prepares, the offline Gemini, --demo.
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeHost, echoHandlers, load } from './support';

interface CliOptions { port: number; portGiven: boolean; dataDir: string | null; props: Record<string, string>; owner: string;
  triggerIntervalSeconds: number; intervalGiven: boolean; demo: boolean; help: boolean; latency: string; seed: number; worlds: Record<string, string> }
interface Runtime { host: CliFakeHost; server: { url: string }; dataDir: string; token: string; intervalSeconds: number;
  gemini: { offline: { baseUrl: string } | null; label: string }; shutdown(): Promise<void> }
interface CliModule {
  parseCliArgs(argv: string[]): CliOptions;
  main(argv: string[], deps?: object): Promise<number>;
  startRuntime(opts: CliOptions, deps?: object): Promise<Runtime>;
  CliError: new (m: string) => Error;
}
const cli = await load<CliModule>('emulator/cli.mjs');
const HELLO = new URL('./scripts/hello', import.meta.url).pathname;

/** What the CLI constructs: the fake host, remembering the options it was given. */
class CliFakeHost extends FakeHost {
  spreadsheetId = 'sheet-local-1';
  constructor(public options: Record<string, unknown>) {
    super({ ...echoHandlers, setup: () => ({}) });
    for (const [k, v] of Object.entries((options.scriptProperties ?? {}) as Record<string, string>)) this.properties.set(k, v);
  }
}

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'fq-cli-'));
  vi.stubEnv('GEMINI_API_KEY', undefined as unknown as string);
  vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  rmSync(dataDir, { recursive: true, force: true });
});
const opts = (argv: string[]) => cli.parseCliArgs(['--data', dataDir, '--port', '0', ...argv]);

describe('command-line arguments', () => {
  it('defaults: port 8787, .formqueue data, a 60 s clock, no demo', () => {
    expect(cli.parseCliArgs([])).toEqual({ port: 8787, portGiven: false, dataDir: null, props: {}, owner: 'owner@example.com', triggerIntervalSeconds: 60,
      intervalGiven: false, demo: false, help: false, latency: 'off', seed: 1, worlds: {} });
  });

  // The world switches (emulator/worlds.mjs): readings of platform answers Google does not document.
  it('reads --world KEY=VALUE (repeatable) and hands the worlds to the host', async () => {
    expect(cli.parseCliArgs(['--world', 'paste=value-only', '--world', 'sort=none'])).toMatchObject({ worlds: { paste: 'value-only', sort: 'none' } });
    const rt = await cli.startRuntime(opts(['--world', 'sort=change-only', '--trigger-interval', '0']), { bundleDir: HELLO, GasHost: CliFakeHost, quiet: true });
    try {
      expect(rt.host.options).toMatchObject({ worlds: { sort: 'change-only' } });
    } finally { await rt.shutdown(); }
  });

  it('--help lists every world switch, its readings and the default of each', async () => {
    expect(await cli.main(['--help'])).toBe(0);
    const usage = String(vi.mocked(console.log).mock.calls[0][0]);
    for (const line of ['--world KEY=VALUE', 'paste=none (default)', 'paste=value-only:', 'sort=edit-other (default)', 'sort=change-only:', 'sort=none:',
      'userLock=per-deployer (default)', 'userLock=per-caller:', 'sentCopy=at-once (default)', 'sentCopy=late[:MINUTES]:', 'sentCopy=absent:',
      'overload=behind-302 (default)', 'overload=html-200:', 'activeSpreadsheet=container (default)', 'activeSpreadsheet=none-outside-ui:']) {
      expect(usage).toContain(line);
    }
  });

  it('reads --latency google[:SCALE] and --seed, and hands them to the host', async () => {
    expect(cli.parseCliArgs(['--latency', 'google:0.1', '--seed', '7'])).toMatchObject({ latency: 'google:0.1', seed: 7 });
    const rt = await cli.startRuntime(opts(['--latency', 'google', '--seed', '3', '--trigger-interval', '0']),
      { bundleDir: HELLO, GasHost: CliFakeHost, quiet: true });
    try {
      expect(rt.host.options).toMatchObject({ latency: 'google', latencySeed: 3 });
    } finally { await rt.shutdown(); }
  });

  it('reads every flag, --prop repeatable, and a value may contain "="', () => {
    expect(cli.parseCliArgs(['--port', '9000', '--data', 'x', '--prop', 'A=1', '--prop', 'B=x=y', '--trigger-interval', '0', '--demo', '--owner', 'ops@example.org']))
      .toMatchObject({ port: 9000, dataDir: 'x', props: { A: '1', B: 'x=y' }, owner: 'ops@example.org', triggerIntervalSeconds: 0, demo: true });
  });

  it.each([
    [['--prop', 'NOVALUE'], /--prop expects KEY=VALUE .*got "NOVALUE"/],
    [['--prop', '=v'], /--prop expects KEY=VALUE/],
    [['--port', 'http'], /--port expects a port number 0-65535, got "http"/],
    [['--port', '70000'], /--port expects/],
    [['--trigger-interval=-5'], /--trigger-interval expects seconds/],
    [['--owner', 'nobody'], /--owner expects an email address, got "nobody"/],
    [['--trigger-interval', 'soon'], /--trigger-interval expects seconds \(0 turns the clock off\), got "soon"/],
    [['--verbose'], /Unknown option '--verbose'/],
    [['--latency', 'fast'], /--latency expects off, google or google:SCALE/],
    [['--latency', 'google:0'], /--latency expects/],
    [['--seed', 'abc'], /--seed expects a whole number, got "abc"/],
    [['--world', 'paste'], /--world expects KEY=VALUE \(for example --world paste=value-only\), got "paste"/],
    [['--world', 'pasta=none'], /no world switch "pasta"; switches: paste, sort, userLock, sentCopy, overload, activeSpreadsheet/],
    [['--world', 'sentCopy=late:soon'], /world switch sentCopy has no reading "late:soon"; readings: at-once, late\[:MINUTES\], absent/],
    [['--world', 'sort=sometimes'], /world switch sort has no reading "sometimes"; readings: edit-other, change-only, none/],
    [['extra'], /Unexpected argument 'extra'/],
  ])('refuses %j with a clear message', (argv, message) => {
    expect(() => cli.parseCliArgs(argv)).toThrow(message);
  });

  it('main prints the error and the usage, and exits 2', async () => {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((s: string) => { errors.push(s); });
    expect(await cli.main(['--prop', 'oops'])).toBe(2);
    expect(errors.join('\n')).toMatch(/^error: --prop expects KEY=VALUE[\s\S]*Usage: npm start -- \[options\]/);
  });

  it('--help prints the usage and exits 0', async () => {
    expect(await cli.main(['--help'])).toBe(0);
    expect(String(vi.mocked(console.log).mock.calls[0][0])).toContain('--trigger-interval SECONDS');
  });
});

describe('starting the runtime', () => {
  it('says to run npm run build when the bundle is missing', async () => {
    await expect(cli.startRuntime(opts([]), { bundleDir: join(dataDir, 'nothing'), GasHost: CliFakeHost })).rejects.toThrow(/Code\.js not found\. Run `npm run build`/);
  });

  it('prepares the Script Properties and serves the offline Gemini', async () => {
    const rt = await cli.startRuntime(opts(['--prop', 'GEMINI_MODEL=m1', '--trigger-interval', '30']), { bundleDir: HELLO, GasHost: CliFakeHost });
    try {
      const p = rt.host.properties;
      expect(p.get('WEBHOOK_TOKEN')).toMatch(/^[A-Za-z0-9_-]{32,}$/);
      expect(rt.token).toBe(p.get('WEBHOOK_TOKEN'));
      expect(p.get('HEALTH_TOKEN')).toMatch(/^[A-Za-z0-9_-]{32,}$/);
      expect(p.get('HEALTH_TOKEN')).not.toBe(p.get('WEBHOOK_TOKEN'));
      expect(p.get('GEMINI_MODEL')).toBe('m1');
      expect(p.get('GEMINI_API_KEY')).toBe('offline-stand-in');
      expect(p.get('GEMINI_BASE_URL')).toBe(rt.gemini.offline?.baseUrl);
      expect(p.get('SPREADSHEET_ID')).toBe('sheet-local-1');
      expect(p.get('STAFF_EMAILS')).toBe('staff@example.com');
      expect(rt.host.options).toMatchObject({ bundleDir: HELLO, dataDir, ownerEmail: 'owner@example.com' });
      expect(rt.host.runs.map((r) => r.fn)).toEqual(['setup']); // setup() runs once on start
      expect(rt.host.clock).toBe(30);
      const gemini = await fetch(`${p.get('GEMINI_BASE_URL')}/v1beta/models/m1:generateContent`, { method: 'POST',
        headers: { 'x-goog-api-key': String(p.get('GEMINI_API_KEY')) }, body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }) });
      expect(gemini.status).toBe(200);
    } finally {
      await rt.shutdown();
    }
    expect(rt.host.saved).toBe(1);
    expect(rt.host.clock).toBeNull();
  });

  it('keeps a remembered WEBHOOK_TOKEN', async () => {
    const rt = await cli.startRuntime(opts(['--prop', 'WEBHOOK_TOKEN=remembered-token-0123456789abcdef0123']), { bundleDir: HELLO, GasHost: CliFakeHost });
    await rt.shutdown();
    expect(rt.token).toBe('remembered-token-0123456789abcdef0123');
  });

  it('with a real GEMINI_API_KEY in the environment it skips the stand-in and drops a stale offline base URL', async () => {
    vi.stubEnv('GEMINI_API_KEY', 'real-key');
    class Remembering extends CliFakeHost {
      constructor(o: Record<string, unknown>) { super(o); this.properties.set('GEMINI_BASE_URL', 'http://127.0.0.1:41234'); }
    }
    const rt = await cli.startRuntime(opts([]), { bundleDir: HELLO, GasHost: Remembering });
    await rt.shutdown();
    expect(rt.gemini.offline).toBeNull();
    expect(rt.host.properties.get('GEMINI_API_KEY')).toBe('real-key');
    expect(rt.host.properties.get('GEMINI_BASE_URL')).toBeNull();
  });

  it('names the busy port and the flag to change it', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(cli.startRuntime(opts(['--port', String(port)]), { bundleDir: HELLO, GasHost: CliFakeHost }))
        .rejects.toThrow(`port ${port} on 127.0.0.1 is already in use (another npm start?). Choose another with --port ${port + 1}.`);
    } finally {
      blocker.close();
    }
  });
});

describe('--demo', () => {
  it('replays the fixtures (one twice), drains the queue and prints Queue (with its error column) and outbox', async () => {
    const posted: string[] = [];
    class DemoHost extends CliFakeHost {
      constructor(o: Record<string, unknown>) {
        super(o);
        this.sheets.set('Queue', { name: 'Queue', header: ['status', 'event_id', 'recipient', 'result', 'sent_at', 'error'], rows: [], formulas: [] });
        this.handlers.doPost = ([e]) => {
          const body = JSON.parse((e as { postData: { contents: string } }).postData.contents);
          posted.push(body.event_id);
          this.sheets.get('Queue')!.rows.push(['PENDING', body.event_id, 'r@example.com', '', '', body.event_id === posted[0] ? 'GEMINI_RATE_LIMITED: 429 once' : '']);
          return { value: { kind: 'TextOutput', content: '{"ok":true}', mimeType: 'JSON' } };
        };
        this.handlers.processQueue = () => {
          for (const row of this.sheets.get('Queue')!.rows) {
            if (row[0] === 'PENDING') { row[0] = 'SENT'; row[3] = 'Dear r, thanks'; this.sendMail({ to: 'r@example.com', subject: `Re ${row[1]}`, body: 'x', sentAt: '' }); }
          }
          return {};
        };
      }
    }
    const code = await cli.main(['--demo', '--data', dataDir], { bundleDir: HELLO, GasHost: DemoHost });
    const out = vi.mocked(console.log).mock.calls.map((c) => String(c[0])).join('\n');
    expect(code).toBe(0);
    expect(posted).toHaveLength(4);
    expect(new Set(posted).size).toBe(3);
    expect(out).toContain('POST → 302 → GET → 200 {"ok":true}');
    expect(out).toMatch(/run 1: ok .*Queue: SENT 4/);
    expect(out).toMatch(/status +event_id +recipient +result \(first 40 chars\) +sent_at +error/);
    expect(out).toMatch(/SENT .*GEMINI_RATE_LIMITED: 429 once/);
    expect(out).toContain('4. Outbox: 4 mail(s)');
  });
});

describe('the banner\'s webhook line', () => {
  it('for a loopback URL says Typeform cannot reach it and how to deliver instead; for another host, give it to Typeform', async () => {
    const { webhookHint } = await import('../../emulator/cli.mjs');
    for (const url of ['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080']) {
      expect(webhookHint(url)).toMatch(/^\(Typeform cannot reach this machine: deliver with npm run replay .* the URL for Typeform is the one npm run deploy prints\)$/);
      expect(webhookHint(url)).not.toContain('give this URL to Typeform');
    }
    expect(webhookHint('https://fq.example.org')).toMatch(/^\(give this URL to Typeform/);
  });
});

describe('progress while Set up runs', () => {
  it('says Set up is running before it runs, and with --latency that it takes a while at Google\'s pace', async () => {
    const seen: string[] = [];
    class WatchedHost extends CliFakeHost {
      constructor(options: Record<string, unknown>) {
        super(options);
        this.handlers.setup = () => {
          seen.push(...vi.mocked(console.log).mock.calls.map((c) => String(c[0])));
          return {};
        };
      }
    }
    const rt = await cli.startRuntime(opts(['--latency', 'google:0.01', '--trigger-interval', '0']), { bundleDir: HELLO, GasHost: WatchedHost });
    try {
      expect(seen.some((line) => /^formqueue: running Set up \/ repair on the local spreadsheet at modeled Google speed \(--latency google:0\.01\): this takes a while…$/.test(line))).toBe(true);
    } finally {
      await rt.shutdown();
    }
  });
});
