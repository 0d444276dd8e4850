// One incident as stored in a Script Property: its shape, compact JSON within 9 KB, and when staff hear of it.
import { isIncidentCode, type IncidentCode } from '../domain/failures/codes';
import { INCIDENTS } from './incident-catalog';
import { utf8Length } from '../domain/text';
import { MINUTE_MS } from '../domain/time';

export const INCIDENT_KEY_PREFIX = 'FQ_INCIDENT_';
/** Recently resolved incidents, for the daily summary. */
export const INCIDENT_HISTORY_KEY = 'FQ_INCIDENT_HISTORY';
/** The date key (given by the caller) of the last daily summary sent. */
export const DAILY_SUMMARY_SENT_KEY = 'FQ_DAILY_SUMMARY_SENT';

/** Row numbers kept per incident: the lowest ones (the oldest rows); `rowCount` keeps the size. */
export const MAX_ROWS_KEPT = 100;
export const MAX_DETAIL_CHARS = 1500;
/** Apps Script allows 9 KB per property value; stay well below it. */
export const MAX_VALUE_BYTES = 8000;

export type MailKind = 'first' | 'reminder' | 'recovery';

export interface Incident {
  code: IncidentCode;
  firstSeen: number;
  lastSeen: number;
  /** Every raise folded in. */
  count: number;
  /** Executions that raised it (a run raising it for ten rows counts once). */
  runs: number;
  /** Affected sheet rows, ascending, at most MAX_ROWS_KEPT. */
  rows: number[];
  /** Affected rows: exact until `rows` overflows, then a lower bound (never an overcount). */
  rowCount: number;
  /** The latest detail, redacted and short. */
  detail: string;
  lastMailedAt: number | null;
  mailsSent: number;
  state: 'open' | 'cleared';
  clearedAt: number | null;
  /** What was caught up since it began, by kind (e.g. "replies sent": 3), added up from each clear(). */
  caughtUp?: Record<string, number>;
}

/** A resolved incident, kept two days for the daily summary. */
export interface IncidentHistoryEntry {
  code: IncidentCode;
  firstSeen: number;
  clearedAt: number;
  count: number;
}

export function incidentKey(code: IncidentCode): string {
  return INCIDENT_KEY_PREFIX + code;
}

/** A stored value → incident; anything unreadable is dropped rather than breaking triage. */
export function incidentFromJson(json: string): Incident | null {
  try {
    const raw = JSON.parse(json) as Partial<Incident>;
    if (!raw || !isIncidentCode(raw.code) || typeof raw.firstSeen !== 'number') return null;
    const rows = Array.isArray(raw.rows) ? raw.rows.filter((row): row is number => Number.isInteger(row) && row > 0) : [];
    return {
      code: raw.code,
      firstSeen: raw.firstSeen,
      lastSeen: typeof raw.lastSeen === 'number' ? raw.lastSeen : raw.firstSeen,
      count: Number(raw.count) || 1,
      runs: Number(raw.runs) || 1,
      rows,
      rowCount: Math.max(Number(raw.rowCount) || 0, rows.length),
      detail: typeof raw.detail === 'string' ? raw.detail : '',
      lastMailedAt: typeof raw.lastMailedAt === 'number' ? raw.lastMailedAt : null,
      mailsSent: Number(raw.mailsSent) || 0,
      state: raw.state === 'cleared' ? 'cleared' : 'open',
      clearedAt: typeof raw.clearedAt === 'number' ? raw.clearedAt : null,
      caughtUp: raw.caughtUp && typeof raw.caughtUp === 'object' ? raw.caughtUp : undefined,
    };
  } catch {
    return null;
  }
}

/** One step smaller: the detail halved down to 100 characters, then the rows halved, then the detail, then the caught-up counts dropped. */
function shrunk(incident: Incident): Incident {
  if (incident.detail.length > 100) return { ...incident, detail: `${incident.detail.slice(0, Math.floor(incident.detail.length / 2))}…` };
  if (incident.rows.length > 0) return { ...incident, rows: incident.rows.slice(0, Math.floor(incident.rows.length / 2)) };
  if (incident.detail !== '') return { ...incident, detail: '' };
  return { ...incident, caughtUp: undefined };
}

/**
 * Compact JSON that always fits one property. Each step of shrunk() makes the record smaller, and without detail,
 * rows and caught-up counts it is a code and a few numbers (under 300 bytes), so the loop ends.
 */
export function incidentToJson(incident: Incident): string {
  let copy: Incident = { ...incident, rows: incident.rows.slice(0, MAX_ROWS_KEPT), detail: incident.detail.slice(0, MAX_DETAIL_CHARS) };
  let json = JSON.stringify(copy);
  while (utf8Length(json) > MAX_VALUE_BYTES) {
    copy = shrunk(copy);
    json = JSON.stringify(copy);
  }
  return json;
}

/** Whether staff should hear of it yet, by its code's mail rule (a per-minute rate limit only once it persists). */
export function isNotifiable(incident: Incident): boolean {
  const rule = INCIDENTS[incident.code].mails;
  if (rule.kind === 'at-once') return true;
  return incident.runs >= rule.runs && incident.lastSeen - incident.firstSeen >= rule.minutes * MINUTE_MS;
}

export function mergeRows(kept: readonly number[], added: readonly number[]): number[] {
  const all = new Set(kept);
  for (const row of added) if (Number.isInteger(row) && row > 0) all.add(row);
  return Array.from(all).sort((a, b) => a - b);
}

export function historyFromJson(json: string | undefined): IncidentHistoryEntry[] {
  if (!json) return [];
  try {
    const raw = JSON.parse(json) as unknown;
    return Array.isArray(raw)
      ? raw.filter((entry): entry is IncidentHistoryEntry => !!entry && isIncidentCode(entry.code) && typeof entry.clearedAt === 'number')
      : [];
  } catch {
    return [];
  }
}
