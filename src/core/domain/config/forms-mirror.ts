// Intake's copy of the Config sheet's forms in Script Properties, read with the settings: no Config read per delivery.
import type { FormConfig } from '../sheet-ports';
import { MINUTE_MS, SECOND_MS } from '../time';

/** What intake needs of a form: whether it is accepted and which answer is the recipient. */
export type IntakeForm = Pick<FormConfig, 'formId' | 'enabled' | 'recipientField'>;

/** The copy, written by processQueue runs after they read Config: `{ readAt, forms: [[formId, enabled 0|1, recipientField]] }`. */
export const FORMS_MIRROR_PROPERTY = 'FQ_INTAKE_FORMS';
/** When a person last edited the Config sheet (the on-edit trigger's clock): a copy read before that is stale. */
export const CONFIG_EDITED_PROPERTY = 'FQ_CONFIG_EDITED_AT';
/**
 * How long a copy is trusted. Edits Sheets reports to the on-edit trigger (typing, pasting, clearing a cell) end the
 * copy at once; a Config row deleted or changed by another program fires no on-edit trigger, so its copy may be this
 * old before intake reads Config again. processQueue runs rewrite the copy at half this age while they run.
 */
export const FORMS_MIRROR_MAX_AGE_MS = 5 * MINUTE_MS;
/** Executions run on different machines: a copy read within this of the last edit is treated as read before it. */
export const MIRROR_CLOCK_SKEW_MS = 5 * SECOND_MS;

interface Mirror {
  readAt: number;
  forms: IntakeForm[];
}

/** The stored copy, or null when there is none or it is not one (JSON.parse throws on undefined and ''). */
function parseMirror(text: string | undefined): Mirror | null {
  let value: { readAt?: unknown; forms?: unknown } | null;
  try {
    value = JSON.parse(text as string) as typeof value;
  } catch {
    return null;
  }
  if (typeof value?.readAt !== 'number' || !Array.isArray(value.forms)) return null;
  const forms: IntakeForm[] = [];
  for (const entry of value.forms as unknown[]) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[2] !== 'string') return null;
    forms.push({ formId: entry[0], enabled: entry[1] === 1, recipientField: entry[2] });
  }
  return { readAt: value.readAt, forms };
}

/** The copy's age when it can be trusted at `now`; null when there is none, it is unreadable, too old or older than the last edit. */
function trustedAge(snapshot: Record<string, string>, mirror: Mirror | null, now: number): number | null {
  if (!mirror) return null;
  const age = now - mirror.readAt;
  if (age < -MIRROR_CLOCK_SKEW_MS || age > FORMS_MIRROR_MAX_AGE_MS) return null;
  const editedAt = Number(snapshot[CONFIG_EDITED_PROPERTY]); // NaN when never edited
  if (Number.isFinite(editedAt) && mirror.readAt <= editedAt + MIRROR_CLOCK_SKEW_MS) return null;
  return age;
}

/**
 * The forms as the copy in `snapshot` has them, or null when intake must read the Config sheet itself. A form the copy
 * does not accept is always looked up in Config too (storeDelivery), so a form enabled a moment ago is never refused.
 */
export function mirroredForms(snapshot: Record<string, string>, now: number): IntakeForm[] | null {
  const mirror = parseMirror(snapshot[FORMS_MIRROR_PROPERTY]);
  return trustedAge(snapshot, mirror, now) === null ? null : (mirror as Mirror).forms;
}

function sameForms(a: readonly IntakeForm[], b: readonly IntakeForm[]): boolean {
  return a.length === b.length && a.every((form, i) => form.formId === b[i].formId && form.enabled === b[i].enabled && form.recipientField === b[i].recipientField);
}

/**
 * The copy to write after Config was read at `readAt` (taken before the read, so an edit during it ends the copy), or
 * null when the stored one is trusted, agrees with what was read and is under half its age.
 */
export function mirrorToWrite(snapshot: Record<string, string>, forms: readonly FormConfig[], readAt: number): string | null {
  const read: IntakeForm[] = forms.map((form) => ({ formId: form.formId, enabled: form.enabled, recipientField: form.recipientField }));
  const stored = parseMirror(snapshot[FORMS_MIRROR_PROPERTY]);
  const age = trustedAge(snapshot, stored, readAt);
  if (stored && age !== null && age < FORMS_MIRROR_MAX_AGE_MS / 2 && sameForms(stored.forms, read)) return null;
  return JSON.stringify({ readAt, forms: read.map((form) => [form.formId, form.enabled ? 1 : 0, form.recipientField]) });
}
