// Renders the Queue sheet for docs/staff-guide.md: a small staff scenario in the local runtime, against the built bundle.
// Run after `npm run build`:  node docs/render-queue.mjs [--html docs/img/queue.html]
// Screenshot:  chromium --headless --no-sandbox --hide-scrollbars --window-size=1500,232 --screenshot=docs/img/queue.png docs/img/queue.html
// Prints the Queue as the runtime displays it (number formats applied), the note and toast of a refused edit,
// and the menu's answers. With --html it also writes the Queue as an HTML table with the status colours that
// setup installed (conditional formatting), for a screenshot with headless Chromium.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { GasHost } from '../emulator/host.mjs';
import { startOfflineGemini } from '../emulator/offline-gemini.mjs';
import { startServer } from '../emulator/server.mjs';
import { displayValue } from '../emulator/spreadsheet-model.mjs';

const TOKEN = 'docs-webhook-token-0123456789abcdef';
const STAFF = 'ana@example.org';
const root = new URL('..', import.meta.url);
const fixture = (name) => readFileSync(new URL(`test/fixtures/typeform/${name}`, root), 'utf8');

/** A distinct submission: its own ids, respondent name and email. */
function submission(n, name, email) {
  const body = JSON.parse(fixture('essay-submission.json'));
  body.event_id = `01DOCS${String(n).padStart(20, '0')}`;
  body.form_response.token = `docs${String(n).padStart(28, '0')}`;
  body.form_response.answers[0].text = name;
  body.form_response.answers[1].email = email;
  return JSON.stringify(body);
}

const gemini = await startOfflineGemini({ port: 0 });
const host = new GasHost({
  bundleDir: new URL('dist', root).pathname,
  dataDir: null,
  spreadsheetId: 'docs-spreadsheet',
  activeUserEmail: 'owner@example.org',
  scriptProperties: { WEBHOOK_TOKEN: TOKEN, GEMINI_API_KEY: 'AIzaOfflineDocsKey00000000000000000000', GEMINI_BASE_URL: gemini.baseUrl, STAFF_EMAILS: 'staff@example.org' },
});
await host.load();
const server = await startServer({ host, port: 0 });
const out = [];
const say = (line = '') => out.push(line);

async function must(promise, what) {
  const exec = await promise;
  if (exec.status !== 'ok') throw new Error(`${what}: ${exec.status} ${JSON.stringify(exec.error)}`);
  return exec;
}
const deliver = async (body) => (await fetch(`${server.url}/exec?token=${TOKEN}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json();
const processQueue = () => must(host.run('processQueue', [], { kind: 'trigger' }), 'processQueue');
const menu = (fn, a1) => must(host.run(fn, [], { kind: 'menu', user: STAFF, ...(a1 ? { activeRange: { sheet: 'Queue', a1 } } : {}) }), fn);
const lastDialog = () => host.ui.dialogs.at(-1)?.prompt ?? '';

try {
  await must(host.run('setup', [], { kind: 'menu' }), 'setup');
  const header = () => host.sheetJson('Queue').header;
  const col = (name) => String.fromCharCode(65 + header().indexOf(name));

  // Row 2: answered and mailed.
  await deliver(submission(1, 'Mina Okafor', 'mina.okafor@example.com'));
  await processQueue();
  // Row 3: Gemini refuses the prompt (an injected "blocked" answer) → FAILED.
  host.faults.add({ target: 'gemini', blocked: true, count: 1 });
  await deliver(submission(2, 'Jonas Berg', 'jonas.berg@example.com'));
  await processQueue();
  // Row 4: Typeform's "Send test request" → TEST, never mailed.
  await deliver(fixture('test-request.json'));
  // Row 5: the run is killed right after the mail left (an injected crash): the row stays SENDING; 20 minutes later
  // (STALE_SENDING_MINUTES is 15; claimed_at is back-dated here instead of waiting) the next run hands it to a person.
  host.faults.add({ target: 'mail', crashAfterSend: 1 });
  await deliver(submission(3, 'Lea Novak', 'lea.novak@example.com'));
  await host.run('processQueue', [], { kind: 'trigger' });
  const claimed = new Date(Date.now() - 20 * 60000).toISOString().slice(0, 16).replace('T', ' ');
  await host.edit({ sheet: 'Queue', a1: `${col('claimed_at')}5`, value: claimed, user: STAFF });
  await menu('menuProcessNow');

  // Rows 6–8: approval switched on in Config (the * row), three more replies written and waiting.
  const config = host.sheetJson('Config');
  await host.edit({ sheet: 'Config', a1: `${String.fromCharCode(65 + config.header.indexOf('approval_required'))}2`, value: 'TRUE', user: STAFF });
  await deliver(submission(4, 'Tomás Ruiz', 'tomas.ruiz@example.com'));
  await deliver(submission(5, 'Aiko Sato', 'aiko.sato@example.com'));
  await deliver(submission(6, 'Priya Nair', 'priya.nair@example.com'));
  await processQueue();
  // Row 6: staff shorten the reply, then approve it in the status dropdown → APPROVED (mailed on the next run).
  await host.edit({ sheet: 'Queue', a1: `${col('result')}6`, value: 'Dear Tomás,\n\nThank you for your essay. One suggestion: start with your strongest example.\n\nThe team', user: STAFF });
  await host.edit({ sheet: 'Queue', a1: `${col('status')}6`, value: 'APPROVED', user: STAFF });
  // Row 7: skipped from the menu.
  await menu('menuSkipSelected', `${col('status')}7`);
  say('### Skip selected (row 7) answered');
  say(lastDialog());
  // Row 9: a delivery that no run has picked up yet.
  await deliver(submission(7, 'Omar Haddad', 'omar.haddad@example.com'));
  // A refused edit: SENT → PENDING on row 2 is put back, with a note on the cell.
  const [refused] = await host.edit({ sheet: 'Queue', a1: `${col('status')}2`, value: 'PENDING', user: STAFF });
  if (refused.status !== 'ok') throw new Error(JSON.stringify(refused.error));
  const queue = host.ss.byName('Queue');
  say();
  say('### Note on A2 after the refused SENT → PENDING edit');
  say(queue.note(2, 1));
  say();
  say('### Toast');
  say(host.ui.toasts.at(-1)?.message ?? '');

  // The Queue as Sheets would display it (number formats applied).
  const sheet = host.sheetJson('Queue');
  const names = sheet.header.map(String);
  const shown = (r, c) => displayValue(queue.value(r, c), queue.format(r, c), host.ss.timeZone);
  const grid = sheet.rows.map((_, i) => names.map((__, j) => shown(i + 2, j + 1)));
  const clip = (text, width) => {
    const flat = String(text).replace(/\n+/g, ' ⏎ ');
    return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
  };
  const table = (columns, width) => {
    const at = columns.map((name) => names.indexOf(name));
    const lines = [`| row | ${columns.join(' | ')} |`, `|---|${columns.map(() => '---').join('|')}|`];
    grid.forEach((cells, i) => lines.push(`| ${i + 2} | ${at.map((j) => clip(cells[j], width[names[j]] ?? 24).replace(/\|/g, '\\|')).join(' | ')} |`));
    return lines.join('\n');
  };
  say();
  say('### Queue: the columns staff read (long cells cut at the width shown, line breaks as ⏎)');
  say(table(['status', 'received_at', 'recipient', 'submission', 'result', 'sent_at', 'mail_ref', 'error'], { submission: 34, result: 40, error: 60, recipient: 24 }));
  say();
  say('### Queue: the bookkeeping columns');
  say(table(['status', 'event_id', 'form_id', 'response_token', 'payload', 'attempts', 'next_attempt_at', 'claimed_at', 'updated_at'], { payload: 18, event_id: 26, response_token: 14 }));
  say();
  say('### Log');
  const log = host.sheetJson('Log');
  say(`| ${log.header.join(' | ')} |`);
  say(`|${log.header.map(() => '---').join('|')}|`);
  const logSheet = host.ss.byName('Log');
  log.rows.forEach((cells, i) => say(`| ${cells.map((cell, j) => clip(displayValue(logSheet.value(i + 2, j + 1), logSheet.format(i + 2, j + 1), host.ss.timeZone), j === 5 ? 90 : 26).replace(/\|/g, '\\|')).join(' | ')} |`));

  // What two more menu items show, after the tables were captured.
  await must(host.run('menuQueueHealth', [], { kind: 'menu', user: STAFF }), 'menuQueueHealth');
  const health = host.ui.dialogs.at(-1);
  say();
  say(`### Queue health dialog ("${health.title}"), as text`);
  say(String(health.content).replace(/<\/(p|tr|li|ul)>/g, '\n').replace(/<\/td>/g, '  ').replace(/<br>/g, ' ').replace(/<[^>]+>/g, '').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/\n{2,}/g, '\n').trim());
  await menu('menuProcessNow');
  say();
  say('### Process now answered');
  say(lastDialog());
  console.log(out.join('\n'));

  const htmlAt = process.argv.indexOf('--html');
  if (htmlAt > 0) {
    // Row colours from the conditional-format rules setup installed: =$A2="STATUS" → background.
    const colours = new Map(queue.cfRules.map((rule) => [/="([A-Z_]+)"$/.exec(rule.condition.values[0])?.[1], rule.format.background]));
    const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
    const columns = ['status', 'received_at', 'recipient', 'submission', 'result', 'sent_at', 'mail_ref', 'error'];
    const at = columns.map((name) => names.indexOf(name));
    const rows = grid.map((cells, i) => {
      const note = queue.note(i + 2, 1) ? ' class="note"' : '';
      return `<tr style="background:${colours.get(cells[0]) ?? '#fff'}"><th>${i + 2}</th>${at.map((j, k) => `<td${k === 0 ? note : ''}>${esc(clip(cells[j], 70))}</td>`).join('')}</tr>`;
    });
    const html = `<!doctype html><meta charset="utf-8"><style>
body{font:12px Arial,sans-serif;margin:8px;background:#fff}table{border-collapse:collapse}
td,th{border:1px solid #c0c0c0;padding:3px 6px;max-width:260px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;vertical-align:top}
thead th{background:#f1f3f4;font-weight:normal;color:#444}tbody th{background:#f1f3f4;color:#666;font-weight:normal}
td.note{position:relative}td.note:after{content:"";position:absolute;top:0;right:0;border-left:6px solid transparent;border-top:6px solid #f0a30a}
caption{text-align:left;padding:4px 0 8px;color:#444}</style>
<table><caption>Queue (formqueue local runtime; cells cut at 70 characters; the orange corner on A2 is the note left by a refused edit)</caption>
<thead><tr><th></th>${columns.map((name, k) => `<th>${String.fromCharCode(65 + at[k])} · ${name}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
    const file = process.argv[htmlAt + 1];
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, html);
  }
} finally {
  await server.close();
  await host.dispose();
  await gemini.close();
}
