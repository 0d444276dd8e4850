// scripts/replay.mjs against the local runtime (dist/Code.js in GasHost behind the HTTP front): the 302 is
// followed with a GET as Typeform would, every answer is printed, redeliveries dedupe, and mistakes are named.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hideToken, main } from '../../scripts/replay.mjs';
import { startRuntime, TOKEN, type Runtime } from '../e2e/runtime';

const REPLAY = new URL('../../scripts/replay.mjs', import.meta.url).pathname;
const FIXTURES = new URL('../fixtures/typeform/', import.meta.url).pathname;
const ESSAY = join(FIXTURES, 'essay-submission.json');
const TEST_REQUEST = join(FIXTURES, 'test-request.json');

type ReplayRun = { code: number | null; stdout: string; stderr: string };

/** Runs replay.mjs as its own process, as `npm run replay` does (async: the runtime's server lives in this one). */
function replayCli(...args: string[]): Promise<ReplayRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [REPLAY, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * replay.mjs's main in this process: its lines reach stdout/stderr as console.log/console.error would write them, and
 * a crash is exit code 1 with the error on stderr, as the program ends. A Node start per case was most of this file's
 * CPU; the first case still runs the program.
 */
async function replay(...args: string[]): Promise<ReplayRun> {
  let stdout = '';
  let stderr = '';
  try {
    const code = await main(args, { log: (line) => (stdout += `${line}\n`), warn: (line) => (stderr += `${line}\n`) });
    return { code, stdout, stderr };
  } catch (err) {
    return { code: 1, stdout, stderr: `${stderr}error: ${(err as Error)?.stack ?? err}\n` };
  }
}

/** The JSON printed at the end of each delivery line. */
function answers(stdout: string): unknown[] {
  return stdout
    .split('\n')
    .filter((line) => / → GET \d+ \{/.test(line))
    .map((line) => JSON.parse(line.slice(line.indexOf('{'))));
}

let runtime: Runtime;
let dir: string;
let execUrl: string;

beforeAll(async () => {
  runtime = await startRuntime();
  execUrl = `${runtime.url}/exec?token=${TOKEN}`;
  dir = mkdtempSync(join(tmpdir(), 'formqueue-replay-'));
});

afterAll(async () => {
  await runtime?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('replay against the local runtime', () => {
  // Through the program (a Node process), so the CLI itself is proven: its exit code, its output, nothing on stderr.
  it('delivers a file, follows the 302 with a GET, and a redelivery (--times 2) is answered as a duplicate', async () => {
    const run = await replayCli('--url', execUrl, '--times', '2', ESSAY);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const event = JSON.parse(readFileSync(ESSAY, 'utf8')).event_id as string;
    expect(run.stdout).toContain('essay-submission.json [1/2]: POST 302 → GET 200 ');
    expect(answers(run.stdout)).toEqual([
      { ok: true, queued: true, event_id: event },
      { ok: true, duplicate: true, event_id: event },
    ]);
    expect(runtime.queue().filter((row) => row.event_id === event)).toHaveLength(1);
    // The token never reaches the terminal.
    expect(run.stdout).not.toContain(TOKEN);
    expect(run.stdout).toContain('/exec?token=…');
  });

  it("Typeform's test request is queued as TEST", async () => {
    const run = await replay('--url', execUrl, TEST_REQUEST);
    expect(run.code).toBe(0);
    expect(answers(run.stdout)).toEqual([{ ok: true, queued: true, test: true, event_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' }]);
    expect(runtime.queue().find((row) => row.event_id === 'a1b2c3d4e5f60718293a4b5c6d7e8f90')?.status).toBe('TEST');
  });

  it('--token replaces the token in the URL; a wrong one is answered unauthorized and exits 1', async () => {
    const run = await replay('--url', execUrl, '--token', 'not-the-token', ESSAY);
    expect(run.code).toBe(1);
    expect(answers(run.stdout)).toEqual([{ ok: false, error: 'unauthorized' }]);
    const right = await replay('--url', `${runtime.url}/exec`, '--token', TOKEN, TEST_REQUEST);
    expect(answers(right.stdout)).toEqual([{ ok: true, duplicate: true, event_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' }]);
  });

  it('a file that is not JSON is still sent, with a warning, and answered malformed_json (exit 1)', async () => {
    const file = join(dir, 'not-json.txt');
    writeFileSync(file, 'event_id=1&oops');
    const run = await replay('--url', execUrl, file);
    expect(run.stderr).toContain('is not valid JSON; sending it as it is');
    expect(run.code).toBe(1);
    expect(answers(run.stdout)).toEqual([{ ok: false, error: 'malformed_json' }]);
    expect(runtime.sheet('Rejected').rows.some((row) => String(row[1]).startsWith('malformed_json'))).toBe(true);
  });

  it('several files are delivered in order, one line each', async () => {
    const second = join(dir, 'second.json');
    const body = JSON.parse(readFileSync(ESSAY, 'utf8'));
    body.event_id = '01REPLAYSECOND000000000000';
    body.form_response.token = 'replaysecondtoken000000000000000';
    writeFileSync(second, JSON.stringify(body));
    const run = await replay('--url', execUrl, second, ESSAY);
    expect(run.code).toBe(0);
    const essayEvent = JSON.parse(readFileSync(ESSAY, 'utf8')).event_id as string;
    expect(answers(run.stdout)).toEqual([
      { ok: true, queued: true, event_id: '01REPLAYSECOND000000000000' },
      { ok: true, duplicate: true, event_id: essayEvent },
    ]);
  });
});

describe('replay: mistakes are named and nothing is sent', () => {
  it('missing --url', async () => {
    const run = await replay(ESSAY);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--url is required');
  });

  it('a URL without a token', async () => {
    const run = await replay('--url', `${runtime.url}/exec`, ESSAY);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no ?token=');
  });

  it('an unreadable file stops everything before the first delivery', async () => {
    const fresh = join(dir, 'fresh.json');
    const body = JSON.parse(readFileSync(ESSAY, 'utf8'));
    body.event_id = '01REPLAYNEVERSENT0000000000';
    body.form_response.token = 'replayneversent00000000000000000';
    writeFileSync(fresh, JSON.stringify(body));
    const run = await replay('--url', execUrl, fresh, join(dir, 'missing.json'));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing.json: no such file. Nothing was sent.');
    expect(run.stdout).toBe('');
    expect(runtime.queue().some((row) => row.event_id === '01REPLAYNEVERSENT0000000000')).toBe(false);
  });

  it('no file, bad --times', async () => {
    expect((await replay('--url', execUrl)).stderr).toContain('no payload FILE given');
    expect((await replay('--url', execUrl, '--times', '0', ESSAY)).stderr).toContain('--times expects a whole number');
  });

  it('an unreachable URL is a failed delivery (exit 1), not a crash', async () => {
    const run = await replay('--url', 'http://127.0.0.1:9/exec?token=x', '--timeout', '5', ESSAY);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('request failed');
  });

  it('hideToken hides every token in printed text', () => {
    expect(hideToken('https://script.google.com/macros/s/AKfy/exec?token=abc123&x=1')).toBe('https://script.google.com/macros/s/AKfy/exec?token=…&x=1');
  });
});
