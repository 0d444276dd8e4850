// Saves and restores host state (spreadsheet, properties, triggers, outbox, inbox, daily quotas) as JSON files in the data folder.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SheetModel, SpreadsheetModel } from './spreadsheet-model.mjs';
import { PropertyStore } from './services/stores.mjs';

/** Dates are tagged so they come back as Dates: sheet cells must round-trip as Date. */
function replacer(key, value) {
  const raw = this[key];
  return raw instanceof Date ? { $date: raw.getTime() } : value;
}
function reviver(key, value) {
  return value && typeof value === 'object' && typeof value.$date === 'number' && Object.keys(value).length === 1 ? new Date(value.$date) : value;
}

function writeJson(dir, name, data) {
  const file = join(dir, name), tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify(data, replacer));
  renameSync(tmp, file); // atomic: a crash mid-write never leaves half a file
}
function readJson(dir, name) {
  const file = join(dir, name);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8'), reviver) : null;
}

const SHEET_FIELDS = ['id', 'name', 'v', 'f', 'nf', 'notes', 'maxRows', 'maxCols', 'frozenRows', 'frozenCols', 'colFormats', 'validations', 'cfRules', 'protections'];
// Sparse rows become null in JSON; restore them as holes so "empty" stays undefined.
const unNull = (rows) => (rows || []).map((r) => (r ? r.map((x) => (x === null ? undefined : x)) : undefined));

export function saveState(host) {
  const dir = host.opts.dataDir;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const ss = host.ss;
  writeJson(dir, 'spreadsheet.json', {
    id: ss.id, name: ss.name, timeZone: ss.timeZone, nextSheetId: ss.nextSheetId,
    sheets: ss.sheets.map((sh) => Object.fromEntries(SHEET_FIELDS.map((k) => [k, sh[k]]))),
  });
  writeJson(dir, 'properties.json', {
    script: host.properties.getAll(), document: host.documentProperties.getAll(),
    user: Object.fromEntries([...host.userProperties].map(([u, s]) => [u, s.getAll()])),
  });
  writeJson(dir, 'triggers.json', host.triggers);
  writeJson(dir, 'outbox.json', host.outbox);
  writeJson(dir, 'inbox.json', host.inbox);
  writeJson(dir, 'mail-quota.json', { users: host.mail.users });
  writeJson(dir, 'daily-quotas.json', host.daily);
  // time moved by POST /api/clock stays moved, so timestamps in the sheet are never in the future after a restart
  writeJson(dir, 'clock.json', host.time.toJSON());
}

export function loadState(host) {
  const dir = host.opts.dataDir;
  if (!dir || !existsSync(dir)) return;
  const s = readJson(dir, 'spreadsheet.json');
  if (s && s.id === host.opts.spreadsheetId) {
    const ss = new SpreadsheetModel(s.id, host.opts.timeZone);
    ss.name = s.name; ss.nextSheetId = s.nextSheetId;
    ss.sheets = s.sheets.map((o) => {
      const sh = new SheetModel(o.id, o.name);
      sh.book = ss;
      for (const k of SHEET_FIELDS) if (o[k] !== undefined) sh[k] = o[k];
      for (const k of ['v', 'f', 'nf', 'notes']) sh[k] = unNull(sh[k]);
      return sh;
    });
    host.ss = ss;
  }
  const p = readJson(dir, 'properties.json');
  if (p) {
    host.properties = new PropertyStore(p.script);
    host.documentProperties = new PropertyStore(p.document);
    host.userProperties = new Map(Object.entries(p.user || {}).map(([u, v]) => [u, new PropertyStore(v)]));
  }
  host.triggers = readJson(dir, 'triggers.json') ?? host.triggers;
  host.outbox.push(...(readJson(dir, 'outbox.json') ?? []));
  host.inbox.push(...(readJson(dir, 'inbox.json') ?? []));
  const m = readJson(dir, 'mail-quota.json');
  // A file from before quotas were per user holds the deployer's day (restoreDaily reads a day as its UTC midnight).
  const mail = m ? (m.users ?? (m.day ? { [host.owner]: { day: m.day, used: m.used } } : {})) : undefined;
  host.restoreDaily({ mail, ...(readJson(dir, 'daily-quotas.json') ?? {}) });
  const c = readJson(dir, 'clock.json');
  if (c) host.time.restore(c);
}
