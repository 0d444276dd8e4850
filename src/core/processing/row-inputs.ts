// What processing needs to know about one row: its form's Config, its answers, and whether a claim is still ours.
import { blankFormConfig, configFor } from '../domain/config/form-config';
import type { FormConfig } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { answerValuesByRef } from '../domain/typeform/template-answers';
import type { ProcessingDeps } from './run-context';

/**
 * The Config a queued row is processed with. `enabled` is ignored: it decides what intake accepts, and an
 * accepted submission is answered even if its form was disabled since. Blank templates fall back to defaults later.
 */
export function processingConfigFor(formId: string, forms: readonly FormConfig[]): FormConfig {
  const enabledForms = forms.map((form) => ({ ...form, enabled: true }));
  return configFor(formId, enabledForms) ?? blankFormConfig(formId);
}

export function answersOf(deps: ProcessingDeps, row: QueueRow): Record<string, string> | null {
  const payload = deps.readPayload ? deps.readPayload(row) : row.payload;
  return answerValuesByRef(payload);
}

/** When Typeform says the submission was made (its payload's form_response.submitted_at), or null. */
export function submittedAtOf(deps: ProcessingDeps, row: QueueRow): number | null {
  try {
    const payload = deps.readPayload ? deps.readPayload(row) : row.payload;
    const at = Date.parse(String((JSON.parse(payload ?? '') as { form_response?: { submitted_at?: unknown } }).form_response?.submitted_at ?? ''));
    return Number.isFinite(at) ? at : null;
  } catch {
    return null;
  }
}

/** Claims are compared to the second: a sheet's date cell is not trusted to keep milliseconds. */
export function claimTime(now: number): number {
  return Math.floor(now / 1000) * 1000;
}

/** The row still says what this run wrote: same submission, same state, same claim time. */
export function isOurClaim(row: QueueRow | undefined, claimed: QueueRow): row is QueueRow {
  return (
    row !== undefined &&
    row.eventId === claimed.eventId &&
    row.status === claimed.status &&
    row.claimedAt !== null &&
    claimed.claimedAt !== null &&
    Math.floor(row.claimedAt / 1000) === Math.floor(claimed.claimedAt / 1000)
  );
}
