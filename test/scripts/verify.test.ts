// npm run verify against the local runtime: four checks over HTTP as Typeform makes them, and the summary line.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { main } from '../../scripts/verify.mjs';
import { HEALTH_TOKEN, runtimePerFile, TOKEN, type Runtime } from '../e2e/runtime';

const VERIFY = new URL('../../scripts/verify.mjs', import.meta.url).pathname;
/** One runtime for the file, reset for each test that needs one (test/e2e/runtime.ts): starting one per test cost more. */
const freshRuntime = runtimePerFile();
let rt: Runtime;

type VerifyRun = { code: number | null; out: string };

/** `npm run verify` as its own process; asynchronous, so the runtime in this process keeps answering while verify runs. */
function verifyCli(...args: string[]): Promise<VerifyRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VERIFY, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.stderr.on('data', (chunk) => { out += chunk; });
    child.on('close', (code) => resolve({ code, out }));
  });
}

/**
 * verify.mjs's main in this process, its lines (console.log's and console.error's) in `out` in the order printed, as
 * the program's output reads. A Node start per case was most of this file's CPU; the README case still runs the program.
 */
async function verify(...args: string[]): Promise<VerifyRun> {
  let out = '';
  const line = (text: string) => { out += `${text}\n`; };
  const code = await main(args, { log: line, error: line });
  return { code, out };
}

describe('npm run verify', () => {
  it('a healthy web app: a TEST row that is never mailed, then duplicate, unauthorized for a wrong token, the health view: passed=4', async () => {
    rt = await freshRuntime();
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

  it('the wrong token given as the token: one line saying it is not WEBHOOK_TOKEN, then it stops (exit code 1)', async () => {
    rt = await freshRuntime();
    const { code, out } = await verify('--url', `${rt.url}/exec?token=not-the-token`);
    const lines = out.trim().split('\n');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^FAIL test delivery \(a TEST row, never mailed\): the web app refused --token: it is not this deployment's WEBHOOK_TOKEN \(in Script Properties/),
      'verify: stopped there: the checks after it would fail the same way.',
      'verify: passed=0 failed=1',
      'What each failing check means: docs/self-test.md#npm-run-verify',
    ]);
    expect(out.match(/unauthorized/g)).toBeNull();
    expect(code).toBe(1);
  });

  it('a wrong --health-token: the three delivery checks pass, the health view says it is not HEALTH_TOKEN', async () => {
    rt = await freshRuntime();
    const { code, out } = await verify('--url', `${rt.url}/exec`, '--token', TOKEN, '--health-token', 'x'.repeat(40));
    expect(out).toMatch(/\nFAIL health view: the web app refused --health-token: it is not HEALTH_TOKEN/);
    expect(out).toContain('verify: passed=3 failed=1');
    expect(code).toBe(1);
  });

  it('nothing listening at the URL: one line naming the connection error and what to check, not three', async () => {
    // A port that was free a moment ago: nothing listens there now.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const { code, out } = await verify('--url', `http://127.0.0.1:${port}/exec`, '--token', TOKEN, '--timeout', '5');
    expect(out.match(/^FAIL /gm)).toHaveLength(1);
    expect(out).toMatch(new RegExp(`FAIL test delivery \\(a TEST row, never mailed\\): cannot reach http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED[^)]*\\): check --url`));
    expect(out).toContain('verify: passed=0 failed=1');
    expect(code).toBe(1);
  });

  it.each([
    ['a 404 page', 404, '<html><title>Page Not Found</title></html>', /answers an HTML page "Page Not Found": no web app at this URL/],
    ['a Google sign-in page', 200, '<html><title>Sign in - Google Accounts</title>accounts.google.com</html>', /Google asks to sign in, so the web app is not deployed for "Anyone"/],
  ])('a URL that answers %s: one line saying what it is and to check --url, never the raw HTML', async (_what, status, html, diagnosis) => {
    const server = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'text/html' });
      res.end(html);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { code, out } = await verify('--url', `http://127.0.0.1:${port}/exec`, '--token', TOKEN);
      expect(out.match(/^FAIL /gm)).toHaveLength(1);
      expect(out).toMatch(diagnosis);
      expect(out).toMatch(/check --url is the web app's \/exec URL/);
      expect(out).not.toContain('<html>');
      expect(code).toBe(1);
    } finally {
      server.close();
    }
  });

  // Through the program (a Node process), as the README has it typed: the CLI itself is proven here.
  it("README's verify command, as written there with the runtime's URL and tokens filled in, ends failed=0", async () => {
    rt = await freshRuntime();
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const command = /^npm run verify -- (.*)$/m.exec(readme)?.[1];
    expect(command).toBeDefined();
    const filled = (command as string)
      .replace('https://script.google.com/macros/s/<deploymentId>/exec', `${rt.url}/exec`)
      .replace('<WEBHOOK_TOKEN>', TOKEN)
      .replace('<HEALTH_TOKEN>', HEALTH_TOKEN);
    const args = [...filled.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]);
    const { code, out } = await verifyCli(...args);
    expect(out.trim().split('\n').at(-1)).toBe('verify: passed=4 failed=0');
    expect(code).toBe(0);
  });

  it('the health view is asked with HEALTH_TOKEN only: without --health-token it fails saying so', async () => {
    rt = await freshRuntime();
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
