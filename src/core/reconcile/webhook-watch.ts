// The webhook watch's decisions: how each form's Typeform webhook stands, and when to recover what it did not deliver.
import { HOUR_MS, MINUTE_MS } from '../domain/time';
import type { ResponseWindow } from './typeform-window';

export const WEBHOOK_WATCH_PROPERTY = 'FQ_WEBHOOK_WATCH';
/** The watch trigger's period: a disabled webhook is seen within 15 minutes (docs/reconciliation.md). */
export const WATCH_EVERY_MINUTES = 15;
/** While a webhook is unhealthy, what Typeform holds and formqueue does not is recovered this often. */
export const RECOVERY_EVERY_MS = HOUR_MS;
/**
 * Responses reach the webhook "a few seconds before they appear in Typeform's database"
 * (https://www.typeform.com/developers/webhooks/): a recovery reads up to 5 minutes ago, never to the second.
 */
export const RESPONSES_LAG_MS = 5 * MINUTE_MS;
/** Each recovery window starts this long before the last one ended: a response stored late is still read. */
export const RECOVERY_OVERLAP_MS = 15 * MINUTE_MS;
/**
 * The first recovery of an outage starts this long before the watch last saw the webhook healthy: the delivery that
 * got the 404 (and disabled it) or the failures before the day-long rule disabled it happened before then.
 */
export const OUTAGE_MARGIN_MS = HOUR_MS;
/** The longest window one recovery reads: a watch that could not run for days reads the last two. */
const MAX_RECOVERY_SPAN_MS = 48 * HOUR_MS;

/** How a form's webhook stands for this deployment. */
export type WebhookHealth = 'enabled' | 'disabled' | 'none' | 'elsewhere' | 'unknown';

export interface WatchedHook {
  health: WebhookHealth;
  /** The webhook the health is about (the one pointing here, else the first); '' when there is none. */
  tag: string;
  url: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * From GET /forms/{id}/webhooks: a webhook whose URL starts with this web app's URL is ours (enabled if any of ours
 * is); none of ours but others → 'elsewhere' (deliveries go to another URL); none at all → 'none'. Without a web-app
 * URL to compare (no deployment known), any enabled webhook counts.
 */
export function watchedHook(text: string, webAppUrl: string): WatchedHook {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { health: 'unknown', tag: '', url: '' };
  }
  if (!isRecord(json) || !Array.isArray(json.items)) return { health: 'unknown', tag: '', url: '' };
  const hooks = json.items.filter(isRecord).map((hook) => ({ tag: String(hook.tag ?? ''), url: String(hook.url ?? ''), enabled: hook.enabled === true }));
  if (hooks.length === 0) return { health: 'none', tag: '', url: '' };
  const ours = webAppUrl === '' ? hooks : hooks.filter((hook) => hook.url.startsWith(webAppUrl));
  if (ours.length === 0) return { health: 'elsewhere', tag: hooks[0].tag, url: hooks[0].url };
  const hook = ours.find((candidate) => candidate.enabled) ?? ours[0];
  return { health: hook.enabled ? 'enabled' : 'disabled', tag: hook.tag, url: hook.url };
}

export interface FormWatch {
  formId: string;
  health: WebhookHealth;
}

export interface WatchRecord {
  /** The last watch. */
  at: number;
  /** Forms whose webhook was disabled, missing or pointing elsewhere at the last watch. */
  unhealthy: FormWatch[];
  /** Forms whose webhook the last watch switched back on (TYPEFORM_WEBHOOK_REENABLE). */
  reenabled: string[];
  /** Why a webhook could not be read or switched on. */
  errors: string[];
  /** The last watch that found every webhook enabled. */
  lastHealthyAt: number | null;
  /** Where the next recovery's window starts; null when nothing is owed. */
  recoverFrom: number | null;
  lastRecoveryAt: number | null;
  /** Submissions queued by recoveries since the outage began. */
  recovered: number;
}

export function emptyWatchRecord(): WatchRecord {
  return { at: 0, unhealthy: [], reenabled: [], errors: [], lastHealthyAt: null, recoverFrom: null, lastRecoveryAt: null, recovered: 0 };
}

export function readWatchRecord(snapshot: Readonly<Record<string, string>>): WatchRecord | null {
  try {
    const json = JSON.parse(snapshot[WEBHOOK_WATCH_PROPERTY]) as Partial<WatchRecord>;
    if (typeof json.at !== 'number') return null;
    const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
    return {
      at: json.at,
      unhealthy: Array.isArray(json.unhealthy) ? json.unhealthy.filter(isRecord).map((form) => ({ formId: String(form.formId), health: String(form.health) as WebhookHealth })) : [],
      reenabled: Array.isArray(json.reenabled) ? json.reenabled.map(String) : [],
      errors: Array.isArray(json.errors) ? json.errors.map(String) : [],
      lastHealthyAt: num(json.lastHealthyAt),
      recoverFrom: num(json.recoverFrom),
      lastRecoveryAt: num(json.lastRecoveryAt),
      recovered: Number(json.recovered) || 0,
    };
  } catch {
    return null;
  }
}

/** A webhook Typeform disabled can be switched back on; a missing one or one pointing elsewhere is for a person. */
export function mayReenable(health: WebhookHealth): boolean {
  return health === 'disabled';
}

export interface WatchPlan {
  record: WatchRecord;
  /** The window to recover now, or null. */
  recovery: ResponseWindow | null;
  /** The unhealthy forms changed (processQueue must raise or clear the incident). */
  changed: boolean;
}

function typeformTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/**
 * This watch's record and recovery. An outage opens a recovery owed from before the webhook was last seen healthy;
 * while one is owed, a recovery runs at once and then hourly, each window overlapping the last, up to RESPONSES_LAG_MS
 * ago. The first recovery after every webhook is healthy again closes it: everything since then was delivered.
 */
export function planWatch(previous: WatchRecord | null, now: number, forms: readonly FormWatch[], reenabled: readonly string[], errors: readonly string[]): WatchPlan {
  const prev = previous ?? emptyWatchRecord();
  // 'unknown' (Typeform could not be read) is neither: it raises nothing and proves nothing.
  const unhealthy = forms.filter((form) => form.health !== 'enabled' && form.health !== 'unknown');
  const healthy = forms.every((form) => form.health === 'enabled');
  const record: WatchRecord = { ...prev, at: now, unhealthy, reenabled: [...reenabled], errors: [...errors] };
  if (healthy) record.lastHealthyAt = now;
  const outageOpens = unhealthy.length > 0 && prev.recoverFrom === null;
  if (outageOpens) {
    record.recoverFrom = (prev.lastHealthyAt ?? now) - OUTAGE_MARGIN_MS;
    record.recovered = 0;
  }
  const changed = unhealthy.map((form) => `${form.formId}:${form.health}`).join() !== prev.unhealthy.map((form) => `${form.formId}:${form.health}`).join();
  const due = record.recoverFrom !== null && (outageOpens || prev.lastRecoveryAt === null || now - prev.lastRecoveryAt >= RECOVERY_EVERY_MS);
  if (!due || record.recoverFrom === null) return { record, recovery: null, changed };
  const until = now - RESPONSES_LAG_MS;
  const since = Math.max(record.recoverFrom, until - MAX_RECOVERY_SPAN_MS);
  return { record, recovery: { since: typeformTime(since), until: typeformTime(until) }, changed };
}

/** The record after a recovery of `window` queued `recovered` submissions (complete: every form was read). */
export function afterRecovery(plan: WatchPlan, now: number, recovered: number, complete: boolean): WatchRecord {
  const record = { ...plan.record, lastRecoveryAt: now, recovered: plan.record.recovered + recovered };
  if (!complete || plan.recovery === null) return record;
  const until = Date.parse(`${plan.recovery.until}Z`);
  const healthy = record.lastHealthyAt === record.at;
  return { ...record, recoverFrom: healthy ? null : until - RECOVERY_OVERLAP_MS };
}

/** The words of the WEBHOOK_DISABLED incident for what the watch found. */
export function watchDetail(record: WatchRecord): string {
  const how: Record<WebhookHealth, string> = {
    enabled: 'enabled',
    disabled: 'disabled',
    none: 'missing',
    elsewhere: "pointing at another URL than this deployment's",
    unknown: 'unreadable',
  };
  const forms = record.unhealthy.map((form) => `${form.formId} (${how[form.health]})`).join(', ');
  const back = record.reenabled.length > 0 ? `; switched back on by formqueue: ${record.reenabled.join(', ')}` : '';
  const recovered = record.recovered > 0 ? `; ${record.recovered} submission(s) recovered from Typeform so far` : '';
  return `the Typeform webhook of form ${forms} (watch ${new Date(record.at).toISOString()})${back}${recovered}`;
}
