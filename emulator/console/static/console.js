// The console page: draws the runtime's sheets like a spreadsheet and drives the bundle only through the runtime's
// HTTP API, as a person at the sheet would (edits fire the on-edit trigger, menu items run with the selection).
const PANELS = ['Outbox', 'Executions', 'Health', 'Faults'];
const CUT_AT = 60;
const MESSAGE_CLEARS_MS = 20000;
// The Queue columns staff read first, right of the frozen status column; the raw payload goes last, collapsed.
const FIRST_COLUMNS = ['status', 'error', 'recipient', 'result', 'sent_at', 'mail_ref'];
const LAST_COLUMNS = ['payload'];
const COLLAPSED_COLUMNS = new Set(['payload']);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;
// Set up and Self-test check the owner's installation (triggers, authorization), so by default they run as the owner.
const OWNER_FUNCTIONS = new Set(['setup', 'selfTest']);

const state = { tab: 'Queue', view: null, cell: null, rows: new Set(), sheets: [], refreshTimer: null, busy: 0, changed: null, offset: null,
  owner: 'owner@example.com', staff: 'staff@example.com', timeZone: 'UTC', lastDelivery: null, messageTimer: null };
const PAGE_ROWS = 500;
const $ = (id) => document.getElementById(id);

/** @param {string} path @param {RequestInit & { json?: unknown }} [opts] */
async function api(path, opts = {}) {
  const init = { ...opts };
  if (opts.json !== undefined) { init.method = init.method ?? 'POST'; init.headers = { 'Content-Type': 'application/json' }; init.body = JSON.stringify(opts.json); }
  const res = await fetch(path, init);
  const text = await res.text();
  let body;
  try { body = text ? JSON.parse(text) : null; } catch { body = text; }
  if (!res.ok) throw new Error(body && body.error ? body.error : `${res.status} ${res.statusText}`);
  return body;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}

/** The message bar: shows the last outcome, clears itself after a while or on Dismiss. */
function say(text) {
  clearTimeout(state.messageTimer);
  $('message').textContent = text;
  $('message-bar').hidden = !text;
  // The page keeps room for the bar below its content, so the bar never covers the last row.
  const room = text ? `${$('message-bar').offsetHeight}px` : '';
  document.body.style.paddingBottom = room;
  document.documentElement.style.scrollPaddingBottom = room;
  if (text) state.messageTimer = setTimeout(() => say(''), MESSAGE_CLEARS_MS);
}

/** Who a run or an edit is made as: the "Act as" choice, or by default the owner for Set up and Self-test, staff otherwise. */
function userFor(fn) {
  const choice = $('act-as').value;
  if (choice === 'owner') return state.owner;
  if (choice === 'staff') return state.staff;
  return OWNER_FUNCTIONS.has(fn) ? state.owner : state.staff;
}

/** An ISO time as a person reads it, in the runtime's time zone. */
function readableTime(iso) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return String(iso ?? '');
  return d.toLocaleString('en-GB', { timeZone: state.timeZone, weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short' });
}

/** A table cell with a readable time, the ISO kept in its title. */
function timeCell(iso) { return el('td', { text: iso ? readableTime(iso) : '', title: iso || undefined }); }

function colName(n) { let s = ''; while (n > 0) { const m = (n - 1) % 26; s = String.fromCharCode(65 + m) + s; n = Math.floor((n - 1) / 26); } return s; }

// ---- tabs -------------------------------------------------------------------------------------------------

async function loadTabs() {
  state.sheets = (await api('/api/console/sheets')).sheets;
  const nav = $('tabs');
  nav.replaceChildren(...[...state.sheets, ...PANELS].map((name) => el('button', {
    type: 'button', role: 'tab', 'aria-selected': String(name === state.tab), onclick: () => openTab(name), text: name,
  })));
}

async function openTab(name) {
  if (state.tab !== name) { state.cell = null; state.rows.clear(); state.offset = null; }
  state.tab = name;
  for (const b of $('tabs').children) b.setAttribute('aria-selected', String(b.textContent === name));
  const panel = PANELS.includes(name) ? `${name.toLowerCase()}-panel` : 'sheet-panel';
  for (const id of ['sheet-panel', 'outbox-panel', 'executions-panel', 'health-panel', 'faults-panel']) $(id).hidden = id !== panel;
  await refresh();
}

async function refresh() {
  try {
    if (state.tab === 'Outbox') await drawOutbox();
    else if (state.tab === 'Executions') await drawExecutions();
    else if (state.tab === 'Health') await drawHealth();
    else if (state.tab === 'Faults') await drawFaults();
    else await drawSheet();
    await drawClock();
  } catch (err) {
    say(`could not refresh: ${err.message}`);
  }
}

function refreshSoon() {
  clearTimeout(state.refreshTimer);
  state.refreshTimer = setTimeout(async () => {
    const names = (await api('/api/console/sheets').catch(() => ({ sheets: state.sheets }))).sheets;
    if (names.join('\n') !== state.sheets.join('\n')) await loadTabs();
    await refresh();
  }, 250);
}

// ---- the sheet ---------------------------------------------------------------------------------------------

async function drawSheet() {
  // By default the newest rows (the end of the sheet); the pager moves by PAGE_ROWS.
  const rowWindow = state.offset === null ? '' : `?offset=${state.offset}&limit=${PAGE_ROWS}`;
  const view = await api(`/api/view/${encodeURIComponent(state.tab)}${rowWindow}`);
  state.view = view;
  const grid = $('grid');
  const order = displayOrder(view.header);
  const frozen = (j) => (view.header[j] === 'status' && order[0] === j ? 'frozen-col' : undefined);
  const head = el('tr', {}, el('th', { scope: 'col', class: 'corner' }, el('span', { class: 'visually-hidden', text: 'Row' })),
    order.map((j) => el('th', { scope: 'col', class: frozen(j), title: `${colName(j + 1)}: ${view.header[j]}`, text: view.header[j] || colName(j + 1) })));
  const body = view.rows.map(({ row, cells }) => {
    const box = el('input', { type: 'checkbox', 'aria-label': `Select row ${row}`, onchange: (e) => { toggleRow(row, e.target.checked); } });
    box.checked = state.rows.has(row);
    const tr = el('tr', { 'data-row': row, class: state.rows.has(row) ? 'row-selected' : undefined },
      el('th', { scope: 'row' }, el('label', {}, box, String(row))),
      order.map((j) => drawCell(view, row, j + 1, cells[j], frozen(j))));
    return tr;
  });
  grid.replaceChildren(el('thead', {}, head), el('tbody', {}, body));
  const shown = view.rows.length;
  $('sheet-info').textContent = view.totalRows === 0 ? `${view.name}: no rows yet`
    : `${view.name}: rows ${view.offset + 2}–${view.offset + 1 + shown} of ${view.totalRows + 1} (header frozen: ${view.frozenRows} row${view.frozenRows === 1 ? '' : 's'})`;
  $('rows-earlier').hidden = view.offset === 0;
  $('rows-later').hidden = view.offset + shown >= view.totalRows;
  showCell();
  state.changed = null;
}

/** Column indexes in display order: on a sheet with a status column, the columns staff read first, the payload last. */
function displayOrder(header) {
  const all = header.map((_, j) => j);
  if (!header.includes('status')) return all;
  const first = FIRST_COLUMNS.map((h) => header.indexOf(h)).filter((j) => j >= 0);
  const last = LAST_COLUMNS.map((h) => header.indexOf(h)).filter((j) => j >= 0);
  return [...first, ...all.filter((j) => !first.includes(j) && !last.includes(j)), ...last];
}

async function turnPage(step) {
  const view = state.view;
  if (!view) return;
  const next = Math.max(0, Math.min(Math.max(0, view.totalRows - PAGE_ROWS), view.offset + step * PAGE_ROWS));
  state.offset = next + PAGE_ROWS >= view.totalRows ? null : next;
  await drawSheet();
}

function drawCell(view, row, col, cell, extraClass) {
  const a1 = `${colName(col)}${row}`;
  const classes = [extraClass ?? '', cell.numeric ? 'numeric' : '', cell.note ? 'has-note' : '', isCurrent(row, col) ? 'selected' : '', state.changed === a1 ? 'changed' : ''].filter(Boolean).join(' ');
  const style = cell.style ? styleText(cell.style) : undefined;
  const td = el('td', { class: classes || undefined, style, 'data-a1': a1, title: cell.note ? `Note: ${cell.note}` : undefined,
    onclick: (e) => { if (e.target.tagName !== 'SELECT') selectCell(row, col); } });
  if (cell.dropdown !== undefined) {
    const rule = view.dropdowns[cell.dropdown];
    const values = rule.values.includes(cell.text) || cell.text === '' ? rule.values : [cell.text, ...rule.values];
    const select = el('select', { 'aria-label': `${view.header[col - 1] || colName(col)} of row ${row}`, title: rule.helpText || undefined,
      onchange: (e) => editCell(a1, e.target.value) },
    el('option', { value: '', text: '' }), values.map((v) => el('option', { value: v, text: v })));
    select.value = cell.text;
    td.append(select);
    return td;
  }
  drawText(td, view.header[col - 1], cell.text);
  return td;
}

/** A cell's text: payload collapsed, ISO times readable (the ISO in the title), long text cut (whole in the cell bar). */
function drawText(td, header, text) {
  if (COLLAPSED_COLUMNS.has(header) && text) {
    td.append(el('span', { class: 'collapsed', text: `{…} ${text.length} chars` }));
    td.title = td.title || 'Click to see the whole value above the grid';
    return;
  }
  if (ISO_TIME.test(text)) { td.textContent = readableTime(text); td.title = td.title || text; return; }
  if (text.length > CUT_AT || text.includes('\n')) {
    const first = text.split('\n')[0];
    td.append(first.length > CUT_AT ? first.slice(0, CUT_AT) : first, el('span', { class: 'more', 'aria-hidden': 'true', text: '…' }));
    td.classList.add('cut');
  } else td.textContent = text;
}

function styleText(style) {
  const parts = [];
  if (style.background) parts.push(`background:${style.background}`);
  if (style.fontColor) parts.push(`color:${style.fontColor}`);
  if (style.bold) parts.push('font-weight:600');
  if (style.italic) parts.push('font-style:italic');
  if (style.strikethrough) parts.push('text-decoration:line-through');
  return parts.join(';');
}

function isCurrent(row, col) { return state.cell && state.cell.row === row && state.cell.col === col; }

function cellOf(row, col) {
  const r = state.view?.rows.find((x) => x.row === row);
  return r ? r.cells[col - 1] : null;
}

function selectCell(row, col) {
  state.cell = { row, col };
  for (const td of $('grid').querySelectorAll('td.selected')) td.classList.remove('selected');
  $('grid').querySelector(`td[data-a1="${colName(col)}${row}"]`)?.classList.add('selected');
  showCell();
}

/** The formula bar shows the whole value of the current cell (long cells are cut in the grid) and its note. */
function showCell() {
  const cell = state.cell ? cellOf(state.cell.row, state.cell.col) : null;
  const input = $('cell-value');
  if (!cell) {
    $('cell-name').textContent = '—'; input.value = ''; input.disabled = true; $('cell-enter').disabled = true; $('cell-note').textContent = '';
    return;
  }
  const a1 = `${colName(state.cell.col)}${state.cell.row}`;
  $('cell-name').textContent = `${a1} (${state.view.header[state.cell.col - 1] ?? ''})`;
  input.value = cell.formula || cell.text;
  input.disabled = false;
  $('cell-enter').disabled = false;
  $('cell-note').textContent = cell.note ? `Note on ${a1}: ${cell.note}` : '';
}

function toggleRow(row, on) {
  if (on) state.rows.add(row); else state.rows.delete(row);
  $('grid').querySelector(`tr[data-row="${row}"]`)?.classList.toggle('row-selected', on);
}

/** A person's edit: the runtime enters it as typed, then the installable on-edit trigger runs. */
async function editCell(a1, value) {
  const sheet = state.tab;
  try {
    const result = await api('/api/edit', { json: { sheet, a1, value, user: userFor('edit') } });
    state.changed = a1;
    await drawSheet();
    const m = /^([A-Z]+)(\d+)$/.exec(a1);
    const col = [...m[1]].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
    const cell = cellOf(Number(m[2]), col);
    selectCell(Number(m[2]), col);
    const runs = (result.executions ?? []).map((x) => `${x.functionName} ${x.status}`).join(', ');
    const toasts = [];
    for (const x of result.executions ?? []) toasts.push(...((await api(`/api/ui?execution=${encodeURIComponent(x.id)}`)).toasts ?? []).map((t) => t.message));
    const now = cell ? cell.text : '';
    const putBack = String(now) !== String(value);
    say(`${sheet}!${a1}: you entered "${value}"${putBack ? `; the sheet put back "${now}"` : ''}.${cell?.note ? ` Note: ${cell.note}` : ''}${toasts.length ? ` Toast: ${toasts.join(' / ')}` : ''}${runs ? ` (${runs})` : ''}`);
  } catch (err) {
    say(`${sheet}!${a1}: refused: ${err.message}`);
    await drawSheet();
  }
}

// ---- the formqueue menu ------------------------------------------------------------------------------------

/** Contiguous blocks of the selected rows: the runtime's selection is one range, so each block is one run. */
function selectedBlocks() {
  const rows = [...state.rows].sort((a, b) => a - b);
  const blocks = [];
  for (const r of rows) {
    const last = blocks[blocks.length - 1];
    if (last && r === last[1] + 1) last[1] = r; else blocks.push([r, r]);
  }
  return blocks;
}

async function runMenu(button) {
  const fn = button.dataset.menu;
  const label = button.textContent;
  const sheet = state.tab;
  let ranges;
  if (button.hasAttribute('data-selection') && state.rows.size > 0) {
    const width = colName(Math.max(1, state.view?.header.length ?? 1));
    ranges = selectedBlocks().map(([a, b]) => `A${a}:${width}${b}`);
  } else if (state.cell) ranges = [`${colName(state.cell.col)}${state.cell.row}`];
  else ranges = ['A1'];
  const texts = [];
  // The ticked blocks are one selection of several ranges (getActiveRangeList), as a Ctrl/Cmd-click makes them.
  for (const a1 of [ranges.join(',')]) {
    say(`${label}…`);
    const result = await api(`/api/run/${fn}`, { json: { activeRange: { sheet, a1 }, user: userFor(fn) } }).catch((err) => ({ ok: false, error: err.message }));
    // /api/ui keeps each dialog's HTML (POST /api/run's `ui` is the text a person reads), so the console can draw it.
    const ui = result.executionId ? await api(`/api/ui?execution=${encodeURIComponent(result.executionId)}`) : { dialogs: [] };
    const dialogs = ui.dialogs ?? [];
    for (const d of dialogs) texts.push(d);
    if (dialogs.length === 0) texts.push({ kind: 'alert', title: label, prompt: result.ok ? 'Done (no message).' : `Failed: ${result.error ?? result.status}` });
  }
  say('');
  showDialogs(texts);
  state.rows.clear();
  await refresh();
}

/** The menu's prompt, answered with what was typed here (the runtime answers dialogs from the request's `answers`). */
async function setProperty() {
  const line = $('property-line').value;
  const result = await api('/api/run/menuSetProperty', { json: { user: userFor('menuSetProperty'), answers: [line] } }).catch((err) => ({ ok: false, error: err.message }));
  const ui = result.executionId ? await api(`/api/ui?execution=${encodeURIComponent(result.executionId)}`) : { dialogs: [] };
  const shown = (ui.dialogs ?? []).filter((d) => d.kind !== 'prompt');
  showDialogs(shown.length ? shown : [{ kind: 'alert', title: 'Set a Script Property', prompt: result.ok ? 'Done (no message).' : `Failed: ${result.error ?? result.status}` }]);
  $('property-line').value = '';
}

function showDialogs(dialogs) {
  if (dialogs.length === 0) return;
  const html = dialogs.find((d) => d.kind === 'modal' || d.kind === 'modeless' || d.kind === 'sidebar');
  $('alert-title').textContent = html ? html.title : dialogs[0].title || 'formqueue';
  const withHtml = html && typeof html.content === 'string';
  $('alert-text').textContent = dialogs.filter((d) => !withHtml || d !== html).map((d) => d.prompt).join('\n\n');
  $('alert-html').hidden = !withHtml;
  if (withHtml) $('alert-html').srcdoc = html.content;
  const dialog = $('alert');
  if (!dialog.open) dialog.showModal();
}

// ---- deliveries --------------------------------------------------------------------------------------------

/** A delivery as Typeform makes it: POST to /exec, and the browser follows the 302 with a GET, as Typeform does. */
async function deliver(body, label) {
  try {
    JSON.parse(body);
  } catch (err) {
    say(`${label}: not JSON (${err.message}); it would be refused as malformed_json. Sending it anyway.`);
  }
  if (!label.startsWith('redelivered ')) state.lastDelivery = { body, label };
  $('redeliver').disabled = false;
  const res = await fetch(state.webhookUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  const text = await res.text();
  say(`${label}: ${text.trim()}`);
  refreshSoon();
}

/** A sample as a new submission: Typeform gives each one its own event_id and response token. */
function freshSubmission(json) {
  const body = JSON.parse(json);
  const pick = (alphabet, n) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => alphabet[b % alphabet.length]).join('');
  body.event_id = `01${pick('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 24)}`;
  if (body.form_response) {
    body.form_response.token = pick('abcdefghijklmnopqrstuvwxyz0123456789', 32);
    body.form_response.submitted_at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  }
  return JSON.stringify(body);
}

// ---- other panels ------------------------------------------------------------------------------------------

function table(id, header, rows) {
  $(id).replaceChildren(el('thead', {}, el('tr', {}, header.map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, rows.length ? rows : [el('tr', {}, el('td', { colspan: header.length, text: '(none)' }))]));
}

async function drawOutbox() {
  const mails = await api('/api/outbox');
  table('outbox', ['#', 'Sent', 'To', 'Subject', 'Mail'], mails.map((m, i) => el('tr', {},
    el('td', { text: i + 1 }), timeCell(m.sentAt), el('td', { text: m.to ?? '' }), el('td', { text: m.subject ?? '' }),
    el('td', {}, el('button', { type: 'button', onclick: () => showMail(m), text: 'Show' }), ' ',
      el('a', { href: `/api/outbox/${i}.eml`, download: `mail-${i + 1}.eml`, text: 'Download .eml' })))).reverse());
}

/** The mail opened full size over the list (Close or Escape goes back to it). */
function showMail(m) {
  $('mail-subject').textContent = m.subject ?? '';
  $('mail-meta').textContent = `To ${m.to}${m.bcc ? `, bcc ${m.bcc}` : ''} · ${m.sentAt ? readableTime(m.sentAt) : ''}${m.name ? ` · from "${m.name}"` : ''}`;
  $('mail-html').srcdoc = m.htmlBody || `<pre style="white-space:pre-wrap;font-family:sans-serif">${escapeHtml(m.body ?? '')}</pre>`;
  $('mail-text').textContent = m.body ?? '';
  if (!$('mail-view').open) $('mail-view').showModal();
}

function escapeHtml(s) { return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`); }

function ms(x) { return typeof x === 'number' ? (x >= 10000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`) : '—'; }

async function drawExecutions() {
  const list = await api('/api/executions?limit=100');
  table('executions', ['Started', 'Function', 'Kind', 'User', 'Wall', 'Modeled', 'Outcome', 'Service calls', 'Logs'], list.slice().reverse().map((x) => {
    const calls = Object.entries(x.calls ?? {}).sort((a, b) => b[1] - a[1]);
    const modeled = x.modeledMs; // with --latency: what the run would have taken on Google
    return el('tr', {},
      timeCell(x.startedAt), el('td', { text: x.functionName }), el('td', { text: x.kind }),
      el('td', { text: [x.activeUser ?? x.user, x.effectiveUser && x.effectiveUser !== (x.activeUser ?? x.user) ? `as ${x.effectiveUser}` : ''].filter(Boolean).join(' ') }),
      el('td', { text: ms(x.durationMs) }), el('td', { text: ms(modeled) }),
      el('td', { class: x.status === 'ok' ? 'status-ok' : 'status-bad', text: x.error ? `${x.status}: ${x.error}` : x.status }),
      el('td', {}, calls.length ? el('details', {}, el('summary', { text: `${x.serviceCalls ?? 0} calls` }), el('pre', { text: calls.map(([k, n]) => `${k} ×${n}`).join('\n') })) : '0'),
      el('td', {}, (x.logs ?? []).length ? el('details', {}, el('summary', { text: `${x.logs.length} lines` }), el('pre', { text: x.logs.join('\n') })) : ''));
  }));
}

async function drawHealth() {
  const [health, triggers] = await Promise.all([api('/api/console/health'), api('/api/triggers')]);
  $('health-summary').textContent = health.ok === undefined ? JSON.stringify(health)
    : `${health.ok ? 'Healthy' : 'Not healthy'}${health.readable === false ? ' (the queue could not be read; figures as last read)' : ''} · waiting ${health.waiting ?? '—'} · oldest PENDING ${health.oldestPendingMinutes ?? '—'} min · rows that need a person ${health.needsPerson ?? '—'} · checked ${health.checkedAt ? readableTime(health.checkedAt) : ''}${health.error ? ` · ${health.error}` : ''}`;
  const counts = Object.entries(health.counts ?? {});
  table('counts', ['Status', 'Rows'], counts.map(([s, n]) => el('tr', {}, el('td', { text: s }), el('td', { text: n }))));
  table('incidents', ['Incident', 'Since', 'Times seen'], (health.openIncidents ?? []).map((i) => el('tr', {},
    el('td', { text: i.code }), timeCell(i.since), el('td', { text: i.count }))));
  table('triggers', ['Handler', 'Type', 'Every', 'Owner'], triggers.map((t) => el('tr', {},
    el('td', { text: t.handler }), el('td', { text: t.type }), el('td', { text: t.everyMinutes ? `${t.everyMinutes} min` : t.everyHours ? `${t.everyHours} h` : '' }),
    el('td', { text: t.owner ?? t.user ?? '' }))));
}

async function drawFaults() {
  const { faults } = await api('/api/faults');
  table('faults', ['#', 'Target', 'Fault', 'End'], faults.map((f) => {
    const { id, target, addedAt, ...rest } = f;
    return el('tr', {}, el('td', { text: id }), el('td', { text: target }), el('td', { text: JSON.stringify(rest) }),
      el('td', {}, el('button', { type: 'button', onclick: async () => { await api(`/api/faults/${id}`, { method: 'DELETE' }); await drawFaults(); }, text: 'End' })));
  }));
}

// The fault form: one kind per fault, with the value it takes (docs/runtime.md#faults lists them all).
const FAULT_KINDS = {
  gemini: { status: '503', timeout: true, blocked: true, latencyMs: '2000', pause: true },
  sheets: { error: 'Error code INTERNAL', pause: true },
  mail: { quota: '0', crashAfterSend: '1', crashBeforeSend: '1' },
  gmail: { lagMs: '600000', error: 'Backend Error' },
};

function fillFaultKinds() {
  const kinds = FAULT_KINDS[$('fault-target').value];
  $('fault-kind').replaceChildren(...Object.keys(kinds).map((k) => el('option', { value: k, text: k })));
  fillFaultValue();
}

function fillFaultValue() {
  const dflt = FAULT_KINDS[$('fault-target').value][$('fault-kind').value];
  $('fault-value').value = dflt === true ? 'true' : dflt;
  $('fault-value').disabled = dflt === true;
  showFaultJson();
}

/** The form as the runtime's fault JSON: numbers where the kind takes one, and count / forMs / match when given. */
function faultFromForm() {
  const target = $('fault-target').value, kind = $('fault-kind').value;
  const dflt = FAULT_KINDS[target][kind];
  const raw = $('fault-value').value.trim();
  const value = dflt === true ? true : /^-?\d+(\.\d+)?$/.test(raw) && kind !== 'error' ? Number(raw) : raw;
  const fault = { target, [kind]: value };
  if ($('fault-count').value.trim()) fault.count = Number($('fault-count').value);
  if ($('fault-minutes').value.trim()) fault.forMs = Math.round(Number($('fault-minutes').value) * 60000);
  if ($('fault-match').value.trim()) fault.match = $('fault-match').value.trim();
  return fault;
}

function showFaultJson() { $('fault-preview').textContent = JSON.stringify(faultFromForm()); }

async function addFault(json) {
  try {
    await api('/api/faults', { json: JSON.parse(json) });
    say(`fault added: ${json}`);
  } catch (err) {
    say(`fault refused: ${err.message}`);
  }
  if (state.tab === 'Faults') await drawFaults();
}

// ---- the clock ---------------------------------------------------------------------------------------------

async function drawClock() {
  const clock = await api('/api/clock').catch(() => null);
  $('clock-now').textContent = clock && clock.now ? `runtime time ${String(clock.now).replace('T', ' ').slice(0, 19)} UTC` : '';
}

async function advance(msToAdd, label) {
  try {
    const result = await api('/api/clock', { json: { advanceMs: msToAdd } });
    const due = Array.isArray(result?.dueOnNextTick) ? result.dueOnNextTick.length : 0;
    say(`clock ${label}: runtime time is now ${String(result?.now ?? '').replace('T', ' ').slice(0, 19)} UTC${due ? `; ${due} clock trigger(s) fire at the next tick` : ''}`);
  } catch (err) {
    say(`clock ${label}: ${err.message}`);
  }
  await refresh();
}

// ---- start ---------------------------------------------------------------------------------------------------

function listen() {
  if (!window.EventSource) { $('live').textContent = 'updates every 3 s (polling)'; setInterval(refreshSoon, 3000); return; }
  const source = new EventSource('/api/events');
  source.onopen = () => { $('live').textContent = 'live: updates as executions finish'; };
  source.onerror = () => { $('live').textContent = 'reconnecting…'; };
  // The console's own health check (doGet) is not news: redrawing on it would run doGet again, forever.
  source.addEventListener('execution', (e) => {
    let data = {};
    try { data = JSON.parse(e.data); } catch { /* an unreadable event still redraws */ }
    if (data.origin !== 'console') refreshSoon();
  });
}

async function start() {
  const info = await api('/api/console/info');
  state.webhookUrl = info.webhookUrl;
  state.owner = info.owner ?? state.owner;
  state.staff = info.staff ?? state.staff;
  state.timeZone = info.timeZone ?? state.timeZone;
  $('act-as').replaceChildren(
    el('option', { value: 'auto', text: `Owner for Set up and Self-test, staff otherwise` }),
    el('option', { value: 'owner', text: `Owner (${state.owner})` }),
    el('option', { value: 'staff', text: `Staff (${state.staff})` }));
  $('webhook-url').textContent = info.webhookUrl;
  $('fixture').replaceChildren(...info.fixtures.map((f) => el('option', { value: f, text: f })));
  $('deliver-fixture').addEventListener('click', async () => {
    const name = $('fixture').value;
    const res = await fetch(`/api/console/fixtures/${encodeURIComponent(name)}`);
    const text = await res.text();
    let body = text;
    try { body = freshSubmission(text); } catch { /* not JSON: delivered as it is */ }
    await deliver(body, name);
  });
  $('redeliver').addEventListener('click', () => {
    if (state.lastDelivery) void deliver(state.lastDelivery.body, `redelivered ${state.lastDelivery.label}`);
  });
  $('message-dismiss').addEventListener('click', () => say(''));
  $('mail-close').addEventListener('click', () => $('mail-view').close());
  $('fault-target').addEventListener('change', fillFaultKinds);
  $('fault-kind').addEventListener('change', fillFaultValue);
  for (const id of ['fault-value', 'fault-count', 'fault-minutes', 'fault-match']) $(id).addEventListener('input', showFaultJson);
  fillFaultKinds();
  $('fault-add-form').addEventListener('click', () => addFault(JSON.stringify(faultFromForm())));
  $('deliver-pasted').addEventListener('click', () => deliver($('pasted').value, 'pasted delivery'));
  for (const b of document.querySelectorAll('[data-menu]')) b.addEventListener('click', () => runMenu(b));
  for (const b of document.querySelectorAll('[data-fault]')) b.addEventListener('click', () => addFault(b.dataset.fault));
  for (const b of document.querySelectorAll('[data-advance]')) b.addEventListener('click', () => advance(Number(b.dataset.advance), b.textContent));
  $('fault-add').addEventListener('click', () => addFault($('fault-json').value));
  $('set-property').addEventListener('click', () => setProperty());
  $('rows-earlier').addEventListener('click', () => turnPage(-1));
  $('rows-later').addEventListener('click', () => turnPage(1));
  $('faults-clear').addEventListener('click', async () => { await api('/api/faults', { method: 'DELETE' }); say('all faults ended'); await refresh(); });
  $('cell-enter').addEventListener('click', () => { if (state.cell) void editCell(`${colName(state.cell.col)}${state.cell.row}`, $('cell-value').value); });
  await loadTabs();
  if (!state.sheets.includes(state.tab)) state.tab = state.sheets[0] ?? 'Outbox';
  await openTab(state.tab);
  listen();
}

start().catch((err) => say(`console failed to start: ${err.message}`));
