// Every code formqueue writes, in one vocabulary: thrown errors, a row's `error` cell, and incidents staff are told of.

/** Codes a thrown error carries (`codedError`); everything classifies by these, never by `instanceof`. */
export const ERROR_CODES = [
  'CONFIG_MISSING', // a required Script Property or sheet is absent
  'CONFIG_INVALID', // a setting has a value we cannot use
  'UNAUTHORIZED', // webhook token missing or wrong
  'MALFORMED_BODY', // not JSON, or not Typeform's shape
  'UNSUPPORTED_EVENT', // another event_type
  'UNKNOWN_FORM', // Config does not enable this form
  'SHEETS_UNAVAILABLE', // Google's spreadsheet service failed
  'LOCK_TIMEOUT', // a lock could not be had in time
  'SPILL_FULL', // the Script Properties spill has no room left
  'CELL_TOO_LARGE', // a value would not fit a cell
  'TEMPLATE_INVALID', // a template names an unknown placeholder
  'CODE_BUG', // anything we did not expect
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes a Queue row's `error` cell starts with (`CODE: summary`), so staff and filters can tell failures apart. */
export const ROW_ERROR_CODES = [
  'ALREADY_SENT', // READY/APPROVED with sent_at filled: parked in NEEDS_REVIEW
  'ALREADY_CLAIMED', // the Log shows a send claimed and never settled: parked in NEEDS_REVIEW
  'DUPLICATE', // the same submission is answered by another row or is archived
  'STALE_GENERATING', // a generation claim outlived its limit: back to PENDING
  'STALE_SENDING', // a sending claim outlived its limit: NEEDS_REVIEW, never resent
  'GEMINI_RETRYABLE', // timeout, 5xx, per-minute 429: retried with back-off
  'GEMINI_CONTENT', // Gemini blocked the prompt or wrote nothing
  'GEMINI_REJECTED', // Gemini refused the request (4xx): not retried
  'GEMINI_KEY_INVALID', // systemic: the row keeps its place
  'GEMINI_MODEL_NOT_FOUND', // systemic: the row keeps its place
  'GEMINI_DAILY_QUOTA', // systemic: the row keeps its place
  'GEMINI_UNAVAILABLE', // Gemini has been down over several runs: the row keeps its place
  'MAIL_PERMANENT', // the address or the mail cannot be sent
  'MAIL_QUOTA', // the send was refused by the daily quota: back to READY/APPROVED
  'MAIL_UNKNOWN', // the send failed in a way that may have mailed: NEEDS_REVIEW
  'SENT_CHECK', // RECONCILE_SENT_MAIL looked in Sent for a SENDING row: waiting for the second look, or a person must decide
  'TEMPLATE_INVALID', // the form's template or Config address cannot be used: the row waits
  'CONFIG_INVALID', // a Config address is not an address: the row waits
  'NO_REPLY', // READY/APPROVED with an empty result: no reply was written (a status set by hand that was never judged)
  'STAFF_EDIT_UNCHECKED', // a staff edit formqueue could not check (no previous value) parked the row in NEEDS_REVIEW
  'COPIED', // another row holds the same submission (a staff copy, a row pasted over another): a person keeps one
  'RESTORED', // the row was removed from Queue by hand before the submission finished: put back from the Journal in NEEDS_REVIEW
  'URLFETCH_DAILY_QUOTA', // systemic: Apps Script's daily URL Fetch quota is used up; the row keeps its place
  'SUPPRESSED', // the recipient is on the Suppressed sheet: NEEDS_REVIEW, never mailed while it is there
  'BOUNCED', // a SENT reply bounced (RECONCILE_BOUNCES): the address and the reason; the address is suppressed
  'SEND_WINDOW', // outside the form's send_hours: the row waits, with the time it may go
  'REPLY_POLICY', // the reply broke the reply policy (a link, an address, a look-alike…): AWAITING_APPROVAL until a person approves it
  'TEMPLATE_CHANGED', // the form's prompt, subject or body changed after the reply was written: AWAITING_APPROVAL until a person looks
] as const;

export type RowErrorCode = (typeof ROW_ERROR_CODES)[number];

/** Conditions staff are told about once, then reminded of, then told when they clear (docs/triage.md). */
export const INCIDENT_CODES = [
  'SHEETS_UNAVAILABLE',
  'GEMINI_KEY_INVALID',
  'GEMINI_MODEL_NOT_FOUND',
  'GEMINI_DAILY_QUOTA',
  'GEMINI_RATE_LIMITED',
  'GEMINI_UNAVAILABLE',
  'MAIL_QUOTA_EXHAUSTED',
  'MAIL_LIMIT_REACHED',
  'SPILL_BACKLOG',
  'GRID_NEARLY_FULL',
  'REJECTED_DELIVERIES',
  'ROWS_NEED_A_PERSON',
  'WEBHOOK_DISABLED',
  'SUBMISSIONS_RECOVERED',
  'ROWS_RESTORED',
  'SUBMISSIONS_IN_REJECTED',
  'CONFIG_MISSING',
  'CONFIG_INVALID',
  'TEMPLATE_INVALID',
  'SENT_CHECK_FAILED',
  // Apps Script's own daily quotas (incident-catalog-runs.ts)
  'RUNS_MISSED',
  'URLFETCH_DAILY_QUOTA',
  'CODE_BUG',
  'BOUNCE_CHECK_FAILED',
  // issue #29: a model in the list retired (its next one writes), and the daily token budget
  'GEMINI_MODEL_RETIRED',
  'GEMINI_BUDGET_REACHED',
  'NEW_RECIPIENT_CEILING',
  'CONFIG_SHEET_INVALID', // a cell of the Config sheet holds a value formqueue cannot use (config-check.ts)
] as const;

export type IncidentCode = (typeof INCIDENT_CODES)[number];

/** Any code formqueue writes; one spelling per condition across the three lists. */
export type Code = ErrorCode | RowErrorCode | IncidentCode;

export function isIncidentCode(value: unknown): value is IncidentCode {
  return (INCIDENT_CODES as readonly unknown[]).includes(value);
}
