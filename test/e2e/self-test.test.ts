// formqueue → Self-test run by the bundle in the local runtime: every check with its evidence, the Log lines, the alert.
import { describe, expect, it } from 'vitest';
import { LOCAL_TYPEFORM_TOKEN } from '../../emulator/offline-typeform.mjs';
import { runtimePerFile, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

let rt: Runtime | undefined;

/** The runtime's web app URL is its own /exec, as ScriptApp.getService().getUrl() is on Google. */
async function runtimeWithWebApp(): Promise<Runtime> {
  const runtime = await freshRuntime();
  runtime.host.opts.webAppUrl = `${runtime.url}/exec`;
  return runtime;
}

async function selfTest(runtime: Runtime, user = 'owner@example.com'): Promise<{ report: string; alerts: string[] }> {
  const exec = await runtime.host.run('selfTest', [], { kind: 'api', user });
  expect(exec.status).toBe('ok');
  const alerts = runtime.host.ui.dialogs.filter((d: { executionId: string }) => d.executionId === exec.id).map((d: { prompt: string }) => d.prompt);
  return { report: String(exec.value), alerts };
}

describe('Self-test', () => {
  it('run by the deploying account on a healthy installation: every check passes except the unset Typeform token, and missed-webhook recovery warns that it is off', async () => {
    rt = await runtimeWithWebApp();
    const { report, alerts } = await selfTest(rt);
    expect(report.split('\n')[0]).toMatch(/^formqueue self-test, \d{4}-\d\d-\d\d \d\d:\d\d UTC: 7 pass, 0 fail, 1 unknown, 1 warn$/);
    for (const title of ['Plain-text format holds on appended rows', 'TextFinder matches whole cells, case-sensitively',
      'You (running this) and the account the web app runs as', 'The triggers exist for the deploying account',
      'The mail quota can be read', 'Gemini answers with the key and model', "The web app's own URL answers"]) {
      expect(report).toContain(`PASS: ${title}`);
    }
    expect(report).toContain('UNKNOWN: Typeform token (TYPEFORM_TOKEN), if set');
    expect(report).toContain('WARN: Missed-webhook recovery (the daily Typeform check)\n  evidence: TYPEFORM_TOKEN is not set: missed-webhook recovery is off\n  what to do: ');
    expect(report).toContain('the web app runs as: owner@example.com (the same account)');
    expect(report).toContain('your triggers on this project: processQueue (CLOCK), onEditInstallable (ON_EDIT)');
    expect(report).not.toContain(rt.host.properties.get('GEMINI_API_KEY'));
    expect(report).not.toContain(rt.host.properties.get('WEBHOOK_TOKEN'));
    expect(alerts).toEqual([report]);
    // The scratch sheet is gone, the Queue untouched, nothing mailed; one Log line per check.
    expect(rt.host.sheetNames().filter((name: string) => name.startsWith('formqueue self-test'))).toEqual([]);
    expect(rt.queue()).toEqual([]);
    expect(rt.host.outbox).toEqual([]);
    const log = rt.sheet('Log');
    const selfTestLines = log.rows.filter((row) => row[1] === 'self-test');
    expect(selfTestLines).toHaveLength(9);
    expect(selfTestLines.map((row) => row[3])).toEqual(['PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'UNKNOWN', 'WARN', 'PASS']);
  });

  it('with TYPEFORM_TOKEN, the Typeform check asks under TYPEFORM_BASE_URL: the runtime\'s offline Typeform passes it', async () => {
    rt = await runtimeWithWebApp();
    rt.host.properties.set('TYPEFORM_TOKEN', LOCAL_TYPEFORM_TOKEN);
    rt.host.properties.set('TYPEFORM_BASE_URL', `${rt.url}/typeform`);
    const { report } = await selfTest(rt);
    expect(report.split('\n')[0]).toMatch(/: 9 pass, 0 fail, 0 unknown$/);
    expect(report).toContain('PASS: Missed-webhook recovery (the daily Typeform check)');
    expect(report).toContain('PASS: Typeform token (TYPEFORM_TOKEN), if set');
    expect(report).toContain(`GET ${rt.url}/typeform/forms?page_size=1: HTTP 200`);
    expect(report).not.toContain(LOCAL_TYPEFORM_TOKEN);
  });

  it('a token the offline Typeform refuses fails the Typeform check with the fix', async () => {
    rt = await runtimeWithWebApp();
    rt.host.properties.set('TYPEFORM_TOKEN', 'tfp_not_the_local_token');
    rt.host.properties.set('TYPEFORM_BASE_URL', `${rt.url}/typeform`);
    const { report } = await selfTest(rt);
    expect(report).toContain('FAIL: Typeform token (TYPEFORM_TOKEN), if set');
    expect(report).toContain(`GET ${rt.url}/typeform/forms?page_size=1: HTTP 401`);
    expect(report).toContain('The token is refused');
  });

  it('run by a staff member who did not deploy: the identity check fails and says what that means; triggers are unknown', async () => {
    rt = await runtimeWithWebApp();
    const { report } = await selfTest(rt, 'staff@example.com');
    expect(report).toContain('FAIL: You (running this) and the account the web app runs as');
    expect(report).toContain('you: staff@example.com; the web app runs as: owner@example.com');
    expect(report).toContain('Triggers you create run as you');
    expect(report).toContain('UNKNOWN: The triggers exist for the deploying account');
  });

  it('a refused Gemini key and a used-up mail quota fail with what to do', async () => {
    rt = await runtimeWithWebApp();
    rt.host.faults.add({ target: 'gemini', status: 400, count: 1 });
    rt.host.faults.add({ target: 'mail', quota: 0 });
    const { report } = await selfTest(rt);
    expect(report).toMatch(/FAIL: Gemini answers with the key and model\n {2}evidence: model gemini-[\w.-]+, generationConfig \{temperature, maxOutputTokens[^}]*\}: HTTP 400/);
    expect(report).toContain('create a new one in Google AI Studio');
    expect(report).toContain('FAIL: The mail quota can be read');
    expect(report).toContain('(docs/self-test.md#gemini)');
  });

  it('without a web-app URL the web-app check fails and the identity is unknown', async () => {
    rt = await freshRuntime({ host: { webAppUrl: '' } });
    const { report } = await selfTest(rt);
    expect(report).toContain("FAIL: The web app's own URL answers");
    expect(report).toContain('there is no web-app deployment');
    expect(report).toContain('UNKNOWN: You (running this) and the account the web app runs as');
  });

  it('is on the formqueue menu', async () => {
    rt = await runtimeWithWebApp();
    await rt.host.run('onOpen', [], { kind: 'api' });
    const items = JSON.stringify(rt.host.ui.menus);
    expect(items).toContain('Self-test');
    expect(items).toContain('selfTest');
  });
});
