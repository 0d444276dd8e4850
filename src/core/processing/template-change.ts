// A form's template changed after a reply was drafted with the old one: its READY rows wait for a person, never mailed stale.
import type { FormConfig } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { errorSummary } from '../domain/failures/redact';
import { processingConfigFor } from './row-inputs';
import { applyOutcome } from './apply-outcome';
import { newBatch, type Run } from './run-context';
import { commitBatch } from './run-writes';

/**
 * What the last run saw of each form's template: `{ [form id]: fingerprint }`, kept in Script Properties with the
 * run's other marks. A READY row was drafted by an earlier run, which stored the fingerprint it drafted with.
 */
export const TEMPLATES_SEEN_PROPERTY = 'FQ_TEMPLATES_SEEN';

export type TemplatesSeen = Readonly<Record<string, string>>;

/** The texts that make the mail: the prompt the reply was drafted with, and the subject and body it is mailed in. */
export function templateFingerprint(form: Pick<FormConfig, 'prompt' | 'subject' | 'body'>): string {
  // FNV-1a, 32 bits: a change is what matters, not secrecy (the texts are in the sheet); Apps Script has no crypto digest in core.
  let hash = 0x811c9dc5;
  for (const char of JSON.stringify([form.prompt, form.subject, form.body])) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** The stored record, or {} when there is none or it is not one (a first run, or a hand edit). */
export function readTemplatesSeen(text: string | undefined): TemplatesSeen {
  try {
    const value = JSON.parse(text ?? '') as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

/** Each form id of Config and of the Queue's rows, with the fingerprint of the template that applies to it now. */
export function templatesNow(forms: readonly FormConfig[], rows: readonly QueueRow[]): Record<string, string> {
  const ids = new Set([...forms.map((form) => form.formId), ...rows.map((row) => row.formId)].filter((id) => id !== ''));
  return Object.fromEntries([...ids].map((id) => [id, templateFingerprint(processingConfigFor(id, forms))]));
}

/** The record to store, or null when it is what is stored already (no Script Properties write for nothing). */
export function templatesSeenToWrite(now: TemplatesSeen, storedText: string | undefined): string | null {
  const text = JSON.stringify(now);
  return text === (storedText ?? '') ? null : text;
}

export const TEMPLATE_CHANGED_DETAIL =
  "the form's template (prompt, subject or body) changed in Config after this reply was written: read it, then set APPROVED to mail it as it is, " +
  'or PENDING to have it written again with the new template';

/**
 * READY rows whose form's template is not the one the run before saw (the one they were drafted and checked with) go
 * to AWAITING_APPROVAL, their reply kept: a person reads them before anything is mailed. A form never seen before
 * holds nothing (its rows were drafted before the record existed). Runs before generation, so this run's own replies,
 * drafted with the new template, are mailed as usual. Records what this run saw, for the next, only once the holds are
 * written: a row whose hold was not written (a person changed it meanwhile, or Sheets failed) keeps its form's old
 * fingerprint, so the next run looks again, and this run does not mail it.
 */
export function holdStaleDrafts(run: Run, seen: TemplatesSeen): void {
  const now = templatesNow(run.forms, run.rows);
  const batch = newBatch();
  const stale = run.rows.filter((row) => row.status === 'READY' && !run.setAside.has(row.rowNumber) && seen[row.formId] !== undefined && seen[row.formId] !== now[row.formId]);
  for (const row of stale) {
    const error = errorSummary('TEMPLATE_CHANGED', TEMPLATE_CHANGED_DETAIL);
    applyOutcome(run, batch, row, 'held-for-person', { detail: `held for a person: ${TEMPLATE_CHANGED_DETAIL}`, patch: { error } });
  }
  const written = new Set(commitBatch(run, batch).map((row) => row.eventId));
  const record = { ...now };
  for (const row of stale.filter((r) => !written.has(r.eventId))) {
    run.setAside.add(row.rowNumber);
    record[row.formId] = seen[row.formId];
  }
  run.summary.templatesSeen = record;
}
