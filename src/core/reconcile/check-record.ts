// What the last Typeform check found, kept in a Script Property for processQueue's triage and the daily summary.
import { disabledWebhookForms, recoveredCount, type ReconcileReport } from './typeform-reconcile';

export const TYPEFORM_CHECK_PROPERTY = 'FQ_TYPEFORM_CHECK';
/** Tokens named in the record (the rest are counted): Script Properties are small. */
const MAX_NAMED_TOKENS = 20;

export interface TypeformCheckRecord {
  at: number;
  since: string;
  until: string;
  recovered: number;
  /** The first recovered tokens, for the mails. */
  tokens: string[];
  /** Finished responses found only in the Rejected sheet, where staff can accept them (not queued by the check). */
  inRejected: number;
  /** The first of them, for the mails. */
  inRejectedTokens: string[];
  /** Forms whose Typeform webhook is disabled or missing. */
  disabled: string[];
  /** Forms that could not be checked, with why. */
  errors: string[];
  complete: boolean;
  /** The `until` of the last check that read every form (this one's when complete): where the next window may start. */
  coveredUntil?: string;
}

/** `inRejectedTokens`: the tokens the check's Rejected look said yes to (the report counts them per form, naming none). */
export function checkRecordOf(report: ReconcileReport, inRejectedTokens: readonly string[] = [], previousCoveredUntil = ''): TypeformCheckRecord {
  return {
    coveredUntil: report.complete ? report.window.until : previousCoveredUntil,
    at: report.at,
    since: report.window.since,
    until: report.window.until,
    recovered: recoveredCount(report),
    tokens: report.forms.flatMap((form) => form.recovered).slice(0, MAX_NAMED_TOKENS),
    inRejected: report.forms.reduce((sum, form) => sum + form.inRejected, 0),
    inRejectedTokens: inRejectedTokens.slice(0, MAX_NAMED_TOKENS),
    disabled: disabledWebhookForms(report),
    errors: report.forms.filter((form) => form.error !== '').map((form) => `${form.formId}: ${form.error}`),
    complete: report.complete,
  };
}

/**
 * What a check recovered, in the words of the SUBMISSIONS_RECOVERED incident (its mail and the daily summary): how
 * many, from which window, where they wait, and the first response tokens to find them by.
 */
export function recoveredDetail(check: TypeformCheckRecord): string {
  const more = check.recovered > check.tokens.length ? ', …' : '';
  return `${check.recovered} submission(s) of ${check.since}–${check.until} UTC recovered from Typeform, waiting in AWAITING_APPROVAL (response tokens ${check.tokens.join(', ')}${more})`;
}

/**
 * What a check found only in Rejected, in the words of the SUBMISSIONS_IN_REJECTED incident (its mail and the daily
 * summary): how many, from which window, what to do, and the first response tokens to find the rows by.
 */
export function inRejectedDetail(check: TypeformCheckRecord): string {
  const more = check.inRejected > check.inRejectedTokens.length ? ', …' : '';
  const tokens = check.inRejectedTokens.length > 0 ? ` (response tokens ${check.inRejectedTokens.join(', ')}${more})` : '';
  const are = check.inRejected === 1 ? '1 response of' : `${check.inRejected} responses of`;
  return `${are} ${check.since}–${check.until} UTC ${check.inRejected === 1 ? 'is' : 'are'} in Rejected only: accept ${check.inRejected === 1 ? 'it' : 'them'} there${tokens}`;
}

/** The stored record, or null when there is none or it cannot be read. */
export function readCheckRecord(snapshot: Readonly<Record<string, string>>): TypeformCheckRecord | null {
  try {
    // No property parses as no JSON either (JSON.parse(undefined) and JSON.parse('') throw).
    const json = JSON.parse(snapshot[TYPEFORM_CHECK_PROPERTY]) as Partial<TypeformCheckRecord>;
    if (typeof json.at !== 'number') return null;
    return {
      at: json.at,
      since: String(json.since ?? ''),
      until: String(json.until ?? ''),
      recovered: Number(json.recovered) || 0,
      tokens: Array.isArray(json.tokens) ? json.tokens.map(String) : [],
      inRejected: Number(json.inRejected) || 0,
      inRejectedTokens: Array.isArray(json.inRejectedTokens) ? json.inRejectedTokens.map(String) : [],
      disabled: Array.isArray(json.disabled) ? json.disabled.map(String) : [],
      errors: Array.isArray(json.errors) ? json.errors.map(String) : [],
      complete: json.complete !== false,
      coveredUntil: String(json.coveredUntil ?? (json.complete !== false ? (json.until ?? '') : '')),
    };
  } catch {
    return null;
  }
}
