// `npm start -- --demo`: replays sample Typeform deliveries over HTTP like Typeform would, drains the queue, prints Queue and outbox.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const UNFINISHED = ['PENDING', 'GENERATING', 'READY', 'APPROVED'];
const MAX_RUNS = 10;
const REDELIVERED = 'essay-submission.json';

/**
 * @param {{ url: string, token: string, fixturesDir: string, print: (line: string) => void }} options
 * @returns {Promise<number>} exit code
 */
export async function runDemo({ url, token, fixturesDir, print }) {
  let files;
  try {
    files = readdirSync(fixturesDir).filter((f) => f.endsWith('.json')).sort();
  } catch {
    print(`demo: no Typeform fixtures found in ${fixturesDir || 'emulator/demo-fixtures'}`);
    return 1;
  }
  if (files.length === 0) { print(`demo: ${fixturesDir} holds no .json fixtures`); return 1; }
  // Typeform redelivers as a matter of course (docs/platform.md#typeform-webhooks): send one event a second time.
  const again = files.includes(REDELIVERED) ? REDELIVERED : files[0];
  const deliveries = [...files, again];

  print(`\n1. Typeform delivers ${deliveries.length} webhooks (${again} twice, a redelivery)`);
  for (const [i, file] of deliveries.entries()) {
    const line = await deliver(url, token, readFileSync(join(fixturesDir, file), 'utf8'));
    print(`   ${i + 1}. ${file}${i === deliveries.length - 1 ? ' (again)' : ''}: ${line}`);
  }

  print(`\n2. processQueue runs until no row is ${UNFINISHED.join('/')} (at most ${MAX_RUNS} runs)`);
  for (let run = 1; run <= MAX_RUNS; run++) {
    const result = await postJson(`${url}/api/run/processQueue`, {});
    const counts = countStatuses(await getSheet(url, 'Queue'));
    const summary = Object.entries(counts).map(([s, n]) => `${s} ${n}`).join(', ') || 'no rows';
    print(`   run ${run}: ${result.ok ? 'ok' : `failed (${result.error})`} in ${Math.round(result.durationMs)} ms; Queue: ${summary}`);
    if (!result.ok && /not found|not defined|not a function/i.test(String(result.error))) break;
    if (!UNFINISHED.some((s) => counts[s])) break;
  }

  const queue = await getSheet(url, 'Queue');
  print('\n3. Queue sheet');
  if (!queue) print('   (no Queue sheet: the bundle did not create one)');
  else {
    const col = (/** @type {string} */ name) => queue.header.indexOf(name);
    // The error column says why a row waits or stopped (NEEDS_REVIEW, FAILED, a broken template): without it a
    // demo that ends with a row not SENT shows no reason.
    const cols = ['status', 'event_id', 'recipient', 'result', 'sent_at', 'error'].map(col);
    const widths = [30, 30, 30, 40, 30, 60];
    const rows = queue.rows.map((/** @type {unknown[]} */ r) => cols.map((c, i) => cell(c < 0 ? '' : r[c], widths[i])));
    printTable(print, ['status', 'event_id', 'recipient', 'result (first 40 chars)', 'sent_at', 'error'], rows);
  }

  const outbox = await (await fetch(`${url}/api/outbox`)).json();
  print(`\n4. Outbox: ${outbox.length} mail(s)`);
  printTable(print, ['to', 'subject'], outbox.map((/** @type {any} */ m) => [cell(m.to, 40), cell(m.subject, 70)]));
  return 0;
}

/**
 * One delivery the way Typeform makes it: POST, then follow the 302 with a GET (docs/platform.md#web-apps).
 * @param {string} url @param {string} token @param {string} body
 */
async function deliver(url, token, body) {
  const post = await fetch(`${url}/exec?token=${encodeURIComponent(token)}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', 'User-Agent': 'Typeform Webhooks' }, body, redirect: 'manual',
  });
  const location = post.headers.get('location');
  if (post.status !== 302 || !location) return `POST → ${post.status} (expected 302)`;
  const echo = await fetch(location);
  return `POST → 302 → GET → ${echo.status} ${cell(await echo.text(), 70)}`;
}

/** @param {string} url @param {unknown} body */
async function postJson(url, body) {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

/** @param {string} url @param {string} name @returns {Promise<any|null>} */
async function getSheet(url, name) {
  const res = await fetch(`${url}/api/sheets/${encodeURIComponent(name)}`);
  return res.ok ? res.json() : null;
}

/** @param {any} sheet @returns {Record<string, number>} */
function countStatuses(sheet) {
  /** @type {Record<string, number>} */
  const counts = {};
  const at = sheet ? sheet.header.indexOf('status') : -1;
  if (at < 0) return counts;
  for (const row of sheet.rows) counts[String(row[at])] = (counts[String(row[at])] ?? 0) + 1;
  return counts;
}

/** @param {unknown} value @param {number} width */
function cell(value, width) {
  const s = String(value ?? '').replace(/\s+/g, ' ').trim();
  return s.length > width ? `${s.slice(0, width - 1)}…` : s;
}

/** @param {(line: string) => void} print @param {string[]} header @param {string[][]} rows */
function printTable(print, header, rows) {
  if (rows.length === 0) { print('   (empty)'); return; }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (/** @type {string[]} */ r) => `   ${r.map((c, i) => c.padEnd(widths[i])).join('  ')}`.trimEnd();
  print(line(header));
  print(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) print(line(r));
}
