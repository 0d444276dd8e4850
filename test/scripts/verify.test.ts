// npm run verify against the local runtime: four checks over HTTP as Typeform makes them, and the summary line.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { HEALTH_TOKEN, startRuntime, TOKEN, type Runtime } from '../e2e/runtime';

const VERIFY = new URL('../../scripts/verify.mjs', import.meta.url).pathname;
let rt: Runtime | undefined;

afterEach(async () => {
  await rt?.close();
  rt = undefined;
});

/** Asynchronous, so the runtime in this process keeps answering while verify runs. */
function verify(...args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VERIFY, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.stderr.on('data', (chunk) => { out += chunk; });
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('npm run verify', () => {
  it('a healthy web app: a TEST row that is never mailed, then duplicate, unauthorized for a wrong token, the health view: passed=4', async () => {
    rt = await startRuntime();
    const { code, out } = await verify('--url', `${rt.url}/exec`, '--token', TOKEN, '--health-token', HEALTH_TOKEN);
    const lines = out.trim().split('\n');
    expect(lines[1]).toMatch(/^PASS test delivery \(a TEST row, never mailed\): POST 302 → GET 200 \{"ok":true,"queued":true,"test":true/);
    expect(lines[2]).toMatch(/^PASS the same delivery again \(duplicate\): .*"duplicate":true/);
    expect(lines[3]).toMatch(/^PASS a wrong token \(unauthorized\): .*"error":"unauthorized"/);
    expect(lines[4]).toMatch(/^PASS health view: ok (true|false), waiting 0/);
    expect(lines[5]).toBe('verify: passed=4 failed=0');
    expect(code).toBe(0);
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain(HEALTH_TOKEN);
    expect(rt.queue().map((row) => row.status)).toEqual(['TEST']);
    await rt.run('processQueue');
    expect(rt.host.outbox).toEqual([]);
  });

  it('the wrong token given as the token: every check that needs it fails and the exit code is 1', async () => {
    rt = await startRuntime();
    const { code, out } = await verify('--url', `${rt.url}/exec?token=not-the-token`);
    expect(out).toContain('FAIL test delivery (a TEST row, never mailed)');
    expect(out).toContain('FAIL health view');
    expect(out).toMatch(/verify: passed=1 failed=3/);
    expect(out).toContain('docs/self-test.md#npm-run-verify');
    expect(code).toBe(1);
  });

  it('the health view is asked with HEALTH_TOKEN only: without --health-token it fails saying so', async () => {
    rt = await startRuntime();
    const { code, out } = await verify('--url', `${rt.url}/exec`, '--token', TOKEN);
    expect(out).toMatch(/FAIL health view: not asked: pass --health-token HEALTH_TOKEN/);
    expect(code).toBe(1);
  });

  it('no token at all is a usage error', async () => {
    const { code, out } = await verify('--url', 'http://127.0.0.1:9/exec');
    expect(code).toBe(2);
    expect(out).toContain('no token');
  });
});
