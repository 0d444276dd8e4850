// Screenshot of the browser console for the README: a few submissions in the local runtime, drawn by the console.
// Run after `npm run build`:  node docs/render-console.mjs [docs/img/console.png]   (needs Chromium; see scripts/find-chromium.mjs)
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { GasHost } from '../emulator/host.mjs';
import { startOfflineGemini } from '../emulator/offline-gemini.mjs';
import { startServer } from '../emulator/server.mjs';
import { findChromium } from '../scripts/find-chromium.mjs';

const TOKEN = 'docs-webhook-token-0123456789abcdef';
const out = process.argv[2] ?? 'docs/img/console.png';
const root = new URL('..', import.meta.url);
const fixture = (name) => readFileSync(new URL(`test/fixtures/typeform/${name}`, root), 'utf8');

/** A distinct submission: its own ids, respondent name and email. */
function submission(n, name, email) {
  const body = JSON.parse(fixture('essay-submission.json'));
  body.event_id = `01DOCSCONSOLE${String(n).padStart(13, '0')}`;
  body.form_response.token = `docs${String(n).padStart(28, '0')}`;
  for (const answer of body.form_response.answers) {
    if (answer.type === 'email') answer.email = email;
    if (answer.field?.ref === 'name' || answer.field?.type === 'short_text') answer.text = name;
  }
  return JSON.stringify(body);
}

const gemini = await startOfflineGemini({ port: 0 });
const host = new GasHost({ bundleDir: new URL('dist', root).pathname, dataDir: null, spreadsheetId: 'docs-spreadsheet',
  scriptProperties: { WEBHOOK_TOKEN: TOKEN, GEMINI_API_KEY: 'offline', GEMINI_BASE_URL: gemini.baseUrl, STAFF_EMAILS: 'staff@example.org', SPREADSHEET_ID: 'docs-spreadsheet' } });
await host.load();
await host.run('setup', [], { kind: 'menu' });
const server = await startServer({ host, port: 0 });
const deliver = (body) => fetch(`${server.url}/exec?token=${TOKEN}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
await deliver(submission(1, 'Mina Okafor', 'mina@example.org'));
await deliver(submission(2, 'Jonas Berg', 'jonas@example.org'));
await host.run('processQueue', [], { kind: 'trigger' });
await deliver(submission(3, 'Ana Lima', 'ana@example.org'));
await deliver(fixture('no-email.json'));
await deliver(fixture('test-request.json'));

const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 520 } });
  await page.goto(server.url);
  await page.getByRole('tab', { name: 'Queue', selected: true }).waitFor();
  await page.getByRole('button', { name: 'Process now' }).click();
  await page.getByRole('dialog').waitFor();
  await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
  await page.getByRole('combobox', { name: 'status of row 2' }).selectOption('PENDING');
  await page.getByText('the sheet put back').waitFor();
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await server.close();
  await host.dispose();
  await gemini.close();
}
