// Set up / repair as data: the sheets, headers, formats, protections, colours, triggers and properties setup() makes sure of.
import { CONFIG_HEADERS, ANY_FORM } from '../domain/config/form-config';
import { DEFAULT_BODY, DEFAULT_PROMPT, DEFAULT_SUBJECT } from '../domain/mail/templates';
import { QUEUE_HEADERS, QUEUE_NUMBER_FORMATS } from '../domain/queue/queue-row';
import { readSettings, tokenProblem } from '../domain/config/settings';
import { missingRequiredMessage, REQUIRED_SETTINGS } from '../domain/config/required-settings';
import { ARCHIVE_HEADERS, JOURNAL_HEADERS, LOG_HEADERS, PAYLOADS_HEADERS, REJECTED_HEADERS, SHEETS, SUPPRESSED_HEADERS, TALLY_HEADERS } from '../domain/queue/sheet-names';
import { STATUSES, STATUS_COLOURS, type Status } from '../domain/queue/statuses';

const TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';
const TEXT = '@';

export interface SheetPlan {
  name: string;
  headers: readonly string[];
  /** Number format per header, for the whole column so appended rows inherit it; '@' keeps `=…` text. */
  formats: Readonly<Record<string, string>>;
  /** Columns protected with a warning (staff may still edit after confirming). */
  protectedHeaders: readonly string[];
  /** The whole sheet is protected with a warning: it is written by the system only. */
  protectSheet: boolean;
  /**
   * The whole sheet is protected for real: only the account that runs Set up (whose triggers write it) and the
   * spreadsheet's owner can edit it, so no staff edit can erase what it holds.
   */
  restrictSheet?: boolean;
}

function allText(headers: readonly string[], overrides: Record<string, string> = {}): Record<string, string> {
  const formats: Record<string, string> = {};
  for (const header of headers) formats[header] = overrides[header] ?? TEXT;
  return formats;
}

/** Queue columns staff work in: the status (guarded on edit), the reply, and the address (to fix a bounce). */
export const STAFF_COLUMNS: readonly string[] = ['status', 'recipient', 'result'];

export const SHEET_PLANS: readonly SheetPlan[] = [
  {
    name: SHEETS.queue,
    headers: QUEUE_HEADERS,
    formats: QUEUE_NUMBER_FORMATS,
    protectedHeaders: QUEUE_HEADERS.filter((header) => !STAFF_COLUMNS.includes(header)),
    protectSheet: false,
  },
  { name: SHEETS.config, headers: CONFIG_HEADERS, formats: allText(CONFIG_HEADERS), protectedHeaders: [], protectSheet: false },
  { name: SHEETS.log, headers: LOG_HEADERS, formats: allText(LOG_HEADERS, { at: TIME_FORMAT }), protectedHeaders: [], protectSheet: true },
  {
    name: SHEETS.rejected,
    headers: REJECTED_HEADERS,
    formats: allText(REJECTED_HEADERS, { at: TIME_FORMAT }),
    protectedHeaders: [],
    protectSheet: true,
  },
  {
    name: SHEETS.payloads,
    headers: PAYLOADS_HEADERS,
    formats: allText(PAYLOADS_HEADERS, { part: '0', parts: '0' }),
    protectedHeaders: [],
    protectSheet: true,
  },
  { name: SHEETS.archive, headers: ARCHIVE_HEADERS, formats: QUEUE_NUMBER_FORMATS, protectedHeaders: [], protectSheet: true },
  { name: SHEETS.tally, headers: TALLY_HEADERS, formats: allText(TALLY_HEADERS, { bytes: '0' }), protectedHeaders: [], protectSheet: true },
  {
    name: SHEETS.journal,
    headers: JOURNAL_HEADERS,
    formats: allText(JOURNAL_HEADERS, { received_at: TIME_FORMAT }),
    protectedHeaders: [],
    protectSheet: true,
    restrictSheet: true,
  },
  // Staff add addresses here by hand, so nothing is protected.
  { name: SHEETS.suppressed, headers: SUPPRESSED_HEADERS, formats: allText(SUPPRESSED_HEADERS, { added_at: TIME_FORMAT }), protectedHeaders: [], protectSheet: false },
];

/** Every protection setup makes starts with this, so a re-run can find and replace its own. */
export const PROTECTION_PREFIX = 'formqueue: ';

export type HeaderRepair =
  | { kind: 'ok' }
  /** Write `headers` into row 1 from `startColumn` (1-based): the whole header of a new sheet, or the missing ones. */
  | { kind: 'write'; startColumn: number; headers: string[] };

/** What row 1 needs: everything when it is blank; only the missing names, to the right of staff columns, otherwise. */
export function repairHeader(existing: readonly unknown[], wanted: readonly string[]): HeaderRepair {
  const names = existing.map((cell) => String(cell ?? '').trim());
  let width = names.length;
  // names[-1] is undefined, so the loop stops at 0; a blank row 1 then misses every name, written from column 1.
  while (names[width - 1] === '') width--;
  const missing = wanted.filter((name) => !names.includes(name));
  return missing.length === 0 ? { kind: 'ok' } : { kind: 'write', startColumn: width + 1, headers: missing };
}

/**
 * Grid columns right of the header and of anything staff wrote there, which Set up removes: a new sheet has 26
 * columns, and the 10,000,000-cell limit counts every grid cell, empty or not (docs/platform.md#quotas).
 */
export function columnsToTrim(maxColumns: number, lastColumnWithData: number, headerWidth: number): { start: number; count: number } | null {
  const keep = Math.max(lastColumnWithData, headerWidth, 1);
  return maxColumns > keep ? { start: keep + 1, count: maxColumns - keep } : null;
}

/** 1 → A, 27 → AA. */
export function columnLetter(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** The 1-based columns of `names` in `header`, merged into contiguous blocks (one protection per block). */
export function columnBlocks(header: readonly string[], names: readonly string[]): { startColumn: number; width: number }[] {
  const columns = names
    .map((name) => header.indexOf(name) + 1)
    .filter((column) => column > 0)
    .sort((a, b) => a - b);
  const blocks: { startColumn: number; width: number }[] = [];
  for (const column of columns) {
    const last = blocks[blocks.length - 1];
    if (last && last.startColumn + last.width === column) last.width++;
    else blocks.push({ startColumn: column, width: 1 });
  }
  return blocks;
}

export interface ColourRule {
  status: Status;
  colour: string;
  /** Colours the whole row, so a status is visible while reading the reply. */
  formula: string;
}

export function statusColourRules(statusColumn: number): ColourRule[] {
  const letter = columnLetter(statusColumn);
  return STATUSES.map((status) => ({ status, colour: STATUS_COLOURS[status], formula: `=$${letter}2="${status}"` }));
}

const OWN_RULE = new RegExp(`^=\\$[A-Z]+2="(${STATUSES.join('|')})"$`);

/** A conditional-format formula setup wrote earlier (replaced on every run, so colours never pile up). */
export function isOwnColourFormula(formula: string): boolean {
  return OWN_RULE.test(formula.trim());
}

export type TriggerKind = 'clock' | 'edit' | 'other';

export interface TriggerInfo {
  id: string;
  handler: string;
  kind: TriggerKind;
}

export interface WantedTrigger {
  handler: string;
  kind: Exclude<TriggerKind, 'other'>;
  /** How it is created and named in Set up's report. */
  schedule: 'every minute' | 'daily' | 'on edit' | 'every 15 minutes';
}

/**
 * reconcileTypeform is installed always: without TYPEFORM_TOKEN it returns at once, so setting the token later
 * needs no second Set up / repair.
 */
export const WANTED_TRIGGERS: readonly WantedTrigger[] = [
  { handler: 'processQueue', kind: 'clock', schedule: 'every minute' },
  { handler: 'onEditInstallable', kind: 'edit', schedule: 'on edit' },
  { handler: 'reconcileTypeform', kind: 'clock', schedule: 'daily' },
  { handler: 'watchTypeformWebhook', kind: 'clock', schedule: 'every 15 minutes' },
];

/** Exactly one trigger of each wanted kind: keep the first, remove the rest and any of ours of the wrong kind. */
export function planTriggers(existing: readonly TriggerInfo[]): { remove: string[]; create: WantedTrigger[] } {
  const remove: string[] = [];
  const create: WantedTrigger[] = [];
  const ours = new Set(WANTED_TRIGGERS.map((wanted) => wanted.handler));
  for (const wanted of WANTED_TRIGGERS) {
    const same = existing.filter((trigger) => trigger.handler === wanted.handler && trigger.kind === wanted.kind);
    if (same.length === 0) create.push(wanted);
    remove.push(...same.slice(1).map((trigger) => trigger.id));
  }
  for (const trigger of existing) {
    const wanted = WANTED_TRIGGERS.some((w) => w.handler === trigger.handler && w.kind === trigger.kind);
    if (ours.has(trigger.handler) && !wanted) remove.push(trigger.id);
  }
  return { remove, create };
}

/** Who ran the first Set up / repair: the account that deploys, whose triggers formqueue runs on. */
export const DEPLOYER_PROPERTY = 'FQ_DEPLOYER';

export interface TriggerOwnership {
  /** This person may install and repair formqueue's triggers. */
  mayInstall: boolean;
  /** Record this account as the deployer. */
  record?: string;
  /** What the report says when this person may not. */
  line?: string;
}

/**
 * Triggers are installed by one account only. getProjectTriggers() lists just the caller's triggers, so Set up
 * run by anyone else cannot see the deployer's and would install a second pair, running as them, beside it.
 * The first Set up records its account; later ones by that account repair, anyone else's install nothing.
 */
export function triggerOwnership(recorded: string | undefined, current: string): TriggerOwnership {
  const owner = (recorded ?? '').trim();
  const me = current.trim();
  if (owner === '') return me === '' ? { mayInstall: true } : { mayInstall: true, record: me };
  if (owner.toLowerCase() === me.toLowerCase()) return { mayInstall: true };
  return {
    mayInstall: false,
    line:
      `Triggers: not touched. They belong to ${owner}, who set formqueue up and deployed it; you are ${me || 'an unknown account'}. ` +
      `Google lists only your own triggers to you, so a repair by you would add a second pair running as you. ` +
      `Ask ${owner} to run Set up / repair (sheets and Script Properties were repaired as usual).`,
  };
}

/** For a person who is not the deployer: only their own formqueue triggers (left by an older version) are removed. */
export function planForeignTriggers(existing: readonly TriggerInfo[]): { remove: string[] } {
  const ours = new Set(WANTED_TRIGGERS.map((wanted) => wanted.handler));
  return { remove: existing.filter((trigger) => ours.has(trigger.handler)).map((trigger) => trigger.id) };
}

export interface PropertyPlan {
  /** Properties setup writes itself. */
  set: Record<string, string>;
  /** One line per thing staff should know: what was set, what is missing and how to set it, bad values. */
  lines: string[];
}

/**
 * What setup does about Script Properties. `newToken` is called only when WEBHOOK_TOKEN is missing;
 * `activeSpreadsheetId` fills SPREADSHEET_ID when setup runs inside the spreadsheet.
 */
export function planProperties(props: Readonly<Record<string, string>>, activeSpreadsheetId: string, newToken: () => string): PropertyPlan {
  const plan: PropertyPlan = { set: {}, lines: [] };
  const has = (key: string) => (props[key] ?? '').trim() !== '';
  const settings = readSettings(props).settings;
  for (const { key, isSet } of REQUIRED_SETTINGS) {
    if (isSet(settings)) continue;
    if (key === 'WEBHOOK_TOKEN') {
      plan.set[key] = newToken();
      plan.lines.push(
        'WEBHOOK_TOKEN was not set: a new long random token was generated and stored. Read it in Project Settings → ' +
          'Script Properties and add it to the webhook URL in Typeform as ?token=… (it is not shown here, so it stays out of screenshots).',
      );
    } else if (key === 'SPREADSHEET_ID' && activeSpreadsheetId !== '') {
      plan.set[key] = activeSpreadsheetId;
      plan.lines.push(`SPREADSHEET_ID was not set: set to this spreadsheet (${activeSpreadsheetId}).`);
    } else {
      plan.lines.push(`MISSING: ${missingRequiredMessage(key)}`);
    }
  }
  if (!has('HEALTH_TOKEN')) {
    plan.set.HEALTH_TOKEN = newToken();
    plan.lines.push(
      'HEALTH_TOKEN was not set: a new random token was generated for the health check (GET the web app URL with ' +
        '?token=HEALTH_TOKEN); it is separate from the webhook token, so an uptime checker never holds that one.',
    );
  }
  for (const key of ['WEBHOOK_TOKEN', 'HEALTH_TOKEN'] as const) {
    const problem = has(key) ? tokenProblem(props[key].trim()) : null;
    if (problem === null) continue;
    // A weak token opens nothing (intake refuses every delivery): a strong one replaces it.
    plan.set[key] = newToken();
    plan.lines.push(
      `${key} ${problem}: it was replaced by a new random token. Read it in Project Settings → Script Properties and ` +
        (key === 'WEBHOOK_TOKEN' ? 'put it in the Typeform webhook URL as ?token=… (deliveries with the old one are refused and kept in Rejected).' : 'give it to the uptime checker.'),
    );
  }
  if (has('SPREADSHEET_ID') && activeSpreadsheetId !== '' && props.SPREADSHEET_ID.trim() !== activeSpreadsheetId) {
    plan.lines.push(`NOTE: SPREADSHEET_ID names another spreadsheet (${props.SPREADSHEET_ID.trim()}), not this one: the web app and triggers use that one.`);
  }
  plan.lines.push(...readSettings({ ...props, ...plan.set }).problems.map((problem) => `PROBLEM: ${problem}`));
  return plan;
}

/** True when the Config sheet's values (header first) already hold a `*` row. */
export function hasDefaultConfigRow(values: readonly (readonly unknown[])[]): boolean {
  const [header, ...rows] = values;
  if (!header) return false;
  // Without a form_id column `at` is -1 and row[-1] is undefined, which is no `*`.
  const at = header.map((cell) => String(cell).trim().toLowerCase()).indexOf('form_id');
  return rows.some((row) => String(row[at]).trim() === ANY_FORM);
}

/** The `*` row: every form answered with the default prompt and mail, approval off, laid out along `header`. */
export function defaultConfigRow(header: readonly unknown[]): string[] {
  const values: Record<string, string> = {
    form_id: ANY_FORM,
    enabled: 'TRUE',
    prompt: DEFAULT_PROMPT,
    subject: DEFAULT_SUBJECT,
    body: DEFAULT_BODY,
    approval_required: 'FALSE',
  };
  return header.map((cell) => values[String(cell).trim().toLowerCase()] ?? '');
}
