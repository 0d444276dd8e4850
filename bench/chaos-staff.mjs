// The staff actors of a chaos schedule: what people do in the spreadsheet and its menu while runs are in flight.

import { recipientOf } from '../harness/runtime.mjs';
import { EVENT_POOL } from './chaos-schedule.mjs';

export const STAFF = 'staff@example.com';

/**
 * formqueue's Queue columns that only the system writes (every Queue column but status, recipient and result, which
 * staff may edit: src/core/staff/setup-plan.ts STAFF_COLUMNS). The bench never imports src/, so they are listed here.
 */
const SYSTEM_COLUMNS = new Set(['event_id', 'received_at', 'form_id', 'response_token', 'submission', 'payload', 'attempts',
  'next_attempt_at', 'claimed_at', 'sent_at', 'mail_ref', 'error', 'updated_at']);
/** The Log's send ledger lines: a claim before a send and the send itself (src/core/domain/mail/send-ledger.ts). */
const LEDGER_MOVES = new Set(['SENDING', 'SENT']);
/** The Sent check's verdict when it found no copy; its advice to staff is to set the row PENDING (src/core/processing/sent-check.ts). */
const SAFE_TO_RESEND = /safe to resend/;

export function sheetRows(host, name) {
  const sh = host.ss.byName(name);
  if (!sh) return { sh: null, header: [], col: () => -1 };
  const header = (sh.v[0] ?? []).map(String);
  return { sh, header, col: (n) => header.indexOf(n) };
}

const letterOf = (index) => String.fromCharCode(65 + index);
const pickOf = (pick, n) => Math.min(n - 1, Math.floor(pick * n));
const blank = (cells) => cells.every((c) => c === '' || c === null || c === undefined);

/** Queue data rows (1-based sheet row numbers) whose cells satisfy `test`. */
function queueRowsWhere(host, test) {
  const { sh, col } = sheetRows(host, 'Queue');
  if (!sh) return { rows: [], col };
  const rows = [];
  for (let r = 1; r < sh.v.length; r++) if (test(sh.v[r] ?? [], col)) rows.push(r + 1);
  return { rows, col };
}

/**
 * Who a person steered (issue #28: a reply the policy held may go only after a person decided): the event id and
 * response token of each Queue row whose status staff set, as the row was just before. chaos-check.mjs reads it.
 */
function noteTouched(host, sheetRow, touched) {
  if (!touched) return;
  const { sh, col } = sheetRows(host, 'Queue');
  const cells = sh?.v[sheetRow - 1] ?? [];
  for (const name of ['event_id', 'response_token']) if (String(cells[col(name)] ?? '') !== '') touched.add(String(cells[col(name)]));
}

/** Staff type `value` into the status cell of every Queue row `test` picks, one edit each, as a person would. */
async function setStatusWhere(host, test, value, touched) {
  const { rows, col } = queueRowsWhere(host, test);
  for (const n of rows) {
    noteTouched(host, n, touched);
    await host.edit({ sheet: 'Queue', a1: `${letterOf(col('status'))}${n}`, value, user: STAFF });
  }
  return rows.length;
}

/** Staff approve every reply waiting for approval; `touched` (a Set) gets each row's event id and token. */
export function approveAll(host, touched) {
  return setStatusWhere(host, (cells, col) => cells[col('status')] === 'AWAITING_APPROVAL', 'APPROVED', touched);
}

/**
 * Staff do what a NEEDS_REVIEW row's reason tells them: "no copy in Sent: safe to resend — set PENDING" is followed by
 * setting it PENDING. A person trusts the product's own advice; if the advice was wrong, the respondent is mailed twice.
 */
export function resendAsAdvised(host) {
  return setStatusWhere(host, (cells, col) => cells[col('status')] === 'NEEDS_REVIEW' && SAFE_TO_RESEND.test(String(cells[col('error')] ?? '')), 'PENDING');
}

/**
 * Staff do what the "Setting missing" mail (CONFIG_MISSING) tells them when a sheet is gone, or what they see
 * themselves when the Queue tab is gone (renamed away while Set up failed): run formqueue → Set up / repair. Resolves
 * true when they did.
 */
export async function setupAsAdvised(host) {
  const open = host.properties.get('FQ_INCIDENT_CONFIG_MISSING');
  const told = open !== null && open !== undefined && /sheet/i.test(String(open));
  if (!told && host.ss.byName('Queue')) return false;
  await host.run('setup', [], { kind: 'menu', user: STAFF });
  return true;
}

/** A refusal by the status dropdown (nothing landed) is not a failure of the run; anything else is. */
async function unlessRefused(edit) {
  try {
    await edit();
    return true;
  } catch (error) {
    if (!/data validation|refused|invalid/i.test(String(error?.message))) throw error;
    return false;
  }
}

/** Each staff action: resolves with the actor's name when it did something (a sort of two rows or more …), else null. */
const ACTIONS = {
  async staffSort(host, a) {
    if (queueRowsWhere(host, () => true).rows.length < 2) return null;
    await host.edit({ op: 'sort', sheet: 'Queue', column: a.column, ascending: a.ascending, user: STAFF });
    return 'staff-sort';
  },
  async staffInsert(host, a) {
    const { rows } = queueRowsWhere(host, () => true);
    if (rows.length === 0) return null;
    await host.edit({ op: 'insertRows', sheet: 'Queue', before: rows[pickOf(a.pick, rows.length)], count: a.count, user: STAFF });
    return 'staff-insert';
  },
  async staffDelete(host, a) {
    // Staff tidy up: rows they inserted (blank) or a DUPLICATE row.
    const { rows } = queueRowsWhere(host, (cells, col) => blank(cells) || cells[col('status')] === 'DUPLICATE');
    if (rows.length === 0) return null;
    await host.edit({ op: 'deleteRows', sheet: 'Queue', row: rows[pickOf(a.pick, rows.length)], count: 1, user: STAFF });
    return 'staff-delete';
  },
  async staffDeleteRow(host, a) {
    // A live submission's row deleted by hand (a finished SENT row tidied away, a PENDING or READY one by mistake).
    const { rows } = queueRowsWhere(host, (cells, col) => cells[col('status')] === a.status);
    if (rows.length === 0) return null;
    await host.edit({ op: 'deleteRows', sheet: 'Queue', row: rows[pickOf(a.pick, rows.length)], count: 1, user: STAFF });
    return `staff-delete-${a.status.toLowerCase()}`;
  },
  async staffPaste(host, a, _labels, touched) {
    const { rows, col } = queueRowsWhere(host, (cells) => !blank(cells));
    if (rows.length === 0) return null;
    // A block over submissions only: a status typed into a blank row is a row of no event, not a move.
    const start = pickOf(a.pick, rows.length);
    const first = rows[start];
    let length = 1;
    while (length < a.rows && rows[start + length] === first + length) length++;
    const values = Array.from({ length }, () => [a.status]);
    for (let r = first; r < first + length; r++) noteTouched(host, r, touched);
    const landed = await unlessRefused(() => host.edit({ op: 'paste', sheet: 'Queue', a1: `${letterOf(col('status'))}${first}`, values, user: STAFF }));
    return landed ? 'staff-paste' : null;
  },
  async staffPasteRow(host, a, _labels, touched) {
    // Ctrl+C on one whole row, Ctrl+V over another submission's row: its every cell, the system columns too.
    const { rows } = queueRowsWhere(host, (cells) => !blank(cells));
    if (rows.length < 2) return null;
    const source = rows[pickOf(a.from, rows.length)];
    const others = rows.filter((r) => r !== source);
    const target = others[pickOf(a.over, others.length)];
    noteTouched(host, source, touched);
    noteTouched(host, target, touched);
    const landed = await unlessRefused(() => host.edit({ op: 'copy', sheet: 'Queue', from: `${source}:${source}`, a1: `A${target}`, user: STAFF }));
    return landed ? 'staff-paste-row' : null;
  },
  async staffClearSentAt(host, a) {
    const { rows, col } = queueRowsWhere(host, (cells, c) => cells[c('status')] === 'SENT' && cells[c('sent_at')] !== '');
    if (rows.length === 0) return null;
    await host.edit({ op: 'clear', sheet: 'Queue', a1: `${letterOf(col('sent_at'))}${rows[pickOf(a.pick, rows.length)]}`, user: STAFF });
    return 'staff-clear-sent_at';
  },
  async staffInsertColumn(host, a) {
    // A column of their own, inserted between two system columns (Set up adds staff columns at the right only).
    const { header } = sheetRows(host, 'Queue');
    const gaps = [];
    for (let i = 0; i + 1 < header.length; i++) if (SYSTEM_COLUMNS.has(header[i]) && SYSTEM_COLUMNS.has(header[i + 1])) gaps.push(i + 2);
    if (gaps.length === 0) return null;
    await host.edit({ op: 'insertColumns', sheet: 'Queue', before: gaps[pickOf(a.pick, gaps.length)], count: 1, user: STAFF });
    return 'staff-insert-column';
  },
  async staffRenameQueue(host) {
    // "Queue" renamed (to keep an old one, say), then Set up / repair, which makes a new, empty Queue.
    if (!host.ss.byName('Queue')) return null;
    let k = 1;
    while (host.ss.byName(`Queue (old ${k})`)) k++;
    await host.edit({ op: 'renameSheet', sheet: 'Queue', name: `Queue (old ${k})`, user: STAFF });
    await host.run('setup', [], { kind: 'menu', user: STAFF });
    return 'staff-rename-queue';
  },
  async staffLogLine(host, a) {
    // A send ledger line of the Log deleted, or its event_id cleared, or its detail typed over (its ledger facts gone).
    const { sh, col } = sheetRows(host, 'Log');
    if (!sh) return null;
    const rows = [];
    for (let r = 1; r < sh.v.length; r++) if (LEDGER_MOVES.has(String(sh.v[r]?.[col('to')] ?? ''))) rows.push(r + 1);
    if (rows.length === 0) return null;
    const row = rows[pickOf(a.pick, rows.length)];
    if (a.edit === 'delete') {
      await host.edit({ op: 'deleteRows', sheet: 'Log', row, count: 1, user: STAFF });
      return 'staff-log-delete';
    }
    const column = col(a.edit === 'event_id' ? 'event_id' : 'detail');
    await host.edit({ sheet: 'Log', a1: `${letterOf(column)}${row}`, value: a.edit === 'event_id' ? '' : 'checked by hand', user: STAFF });
    return 'staff-log-edit';
  },
  // Menu items and Set up run by a staff member, not the deployer.
  async staffProcessNow(host) {
    await host.run('menuProcessNow', [], { kind: 'menu', user: STAFF });
    return 'staff-process-now';
  },
  async staffProcessNowCrash(host, a, labels) {
    // Process now by a staff member, killed right after MailApp sent: the mail left from the staff member's account.
    const fault = host.faults.add({ target: 'mail', crashAfterSend: 1 });
    labels.set(fault.id, 'killed right after a send (staff Process now)');
    let exec;
    try {
      exec = await host.run('menuProcessNow', [], { kind: 'menu', user: STAFF });
    } finally {
      host.faults.remove(fault.id);
    }
    return host.faults.history.some((h) => h.id === fault.id && h.executionId === exec.id) ? 'staff-process-now-crash' : null;
  },
  async staffSetup(host) {
    await host.run('setup', [], { kind: 'menu', user: STAFF });
    return 'staff-setup';
  },
  // Issue #28: a respondent's address that bounces (the runtime's deadAddress fault; the schedule then runs with the
  // bounce check on, bench/chaos-run.mjs), and a staff member who puts an address on the Suppressed sheet by hand.
  deadAddress(host, a, labels) {
    const fault = host.faults.add({ target: 'mail', deadAddress: recipientOf(1 + pickOf(a.pick, EVENT_POOL)) });
    labels.set(fault.id, 'dead address (bounces)');
    return 'dead-address';
  },
  async staffSuppress(host, a) {
    const { sh } = sheetRows(host, 'Suppressed');
    if (!sh) return null;
    await host.edit({ sheet: 'Suppressed', a1: `A${sh.v.length + 1}`, value: recipientOf(1 + pickOf(a.pick, EVENT_POOL)), user: STAFF });
    return 'staff-suppress';
  },
  async staffAcceptRejected(host, a) {
    const { sh } = sheetRows(host, 'Rejected');
    const n = sh ? sh.v.length - 1 : 0;
    if (n < 1) return null;
    await host.run('menuAcceptRejected', [], { kind: 'menu', user: STAFF, activeRange: { sheet: 'Rejected', a1: `B${2 + pickOf(a.pick, n)}` } });
    return 'staff-accept-rejected';
  },
};

/** Whether `a` is a staff action (else a delivery or a run). */
export const isStaffAction = (a) => Object.hasOwn(ACTIONS, a.t);

/**
 * Runs one staff action; resolves with the name of the actor when it did something, else null. `labels` names faults
 * it adds; `touched` gets the rows whose status a person set (noteTouched).
 */
export function staffAction(host, a, labels, touched) {
  return ACTIONS[a.t](host, a, labels, touched);
}
