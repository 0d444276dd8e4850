// The triage tests' settings, secrets and "run" helper: each run is one execution, as processQueue would wire it.
import { FakeClock, type MemoryProperties } from '../memory-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { readSettings } from '../../../src/core/domain/config/settings';
import type { Settings } from '../../../src/core/domain/config/settings';
import { computeHealth, healthWhenUnreadable } from '../../../src/core/triage/health';
import type { NeedsPersonRow } from '../../../src/core/triage/health';
import { IncidentBook } from '../../../src/core/triage/incidents';
import { planTriageMails } from '../../../src/core/triage/triage-mail';
import type { PlannedTriageMail, TriagePlan } from '../../../src/core/triage/triage-mail';

export const API_KEY = 'AIzaSyD3m0Key_0123456789abcdefghijklmn';
export const WEBHOOK_TOKEN = 'wh-tok-7f3a9c1e5b2d4f6a8c0e';
export const SPREADSHEET_URL = 'https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF/edit';

export function testSettings(extra: Record<string, string> = {}): Settings {
  return readSettings({ STAFF_EMAILS: 'duty@example.org, lead@example.org', GEMINI_API_KEY: API_KEY, WEBHOOK_TOKEN, ...extra }).settings;
}

/** A listed row needing a person, as computeHealth makes one (no mail_ref or error unless given). */
export function needsRow(rowNumber: number, status: string, link: string | null, extra: Partial<NeedsPersonRow> = {}): NeedsPersonRow {
  const reason = status === 'FAILED' ? 'failed-other' : status === 'NEEDS_REVIEW' ? 'parked-by-edit' : status === 'AWAITING_APPROVAL' ? 'approval-overdue' : 'unknown-status';
  return { rowNumber, status, link, reason, eventId: `ev-${rowNumber}`, mailRef: '', error: '', waitingSince: null, ...extra };
}

export interface RunOptions {
  quota?: number;
  rows?: QueueRow[] | null;
  settings?: Settings;
}

/** One execution: load the book, let the caller raise/clear, plan, "send", mark, commit. */
export function runOnce(props: MemoryProperties, at: number, act: (book: IncidentBook) => void, options: RunOptions = {}): TriagePlan & { sent: PlannedTriageMail[] } {
  const settings = options.settings ?? testSettings();
  const book = new IncidentBook(props, new FakeClock(at), { knownSecrets: [API_KEY, WEBHOOK_TOKEN] });
  act(book);
  const rows = options.rows === undefined ? [] : options.rows;
  const health = rows === null ? healthWhenUnreadable(at, book.lastKnownHealth(at)) : computeHealth(rows, at, SPREADSHEET_URL, 0);
  if (health.readable) book.rememberHealth(health);
  const plan = planTriageMails(book.all(), health, at, settings, { remainingMailQuota: options.quota ?? 100 });
  for (const mail of plan.mails) book.markMailed(mail.code, mail.kind, at);
  book.commit();
  return { ...plan, sent: plan.mails };
}
