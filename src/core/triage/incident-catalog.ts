// What each incident code means to staff: its class, a scannable title, the next step, and when it is worth a mail.
import type { IncidentCode } from '../ports';

/** Who has to act: Google, time (a quota), whoever owns the settings, a person on a row, or the developer. */
export type IncidentClass = 'platform' | 'quota' | 'configuration' | 'needs-person' | 'code-bug';

export const INCIDENT_CLASS: Readonly<Record<IncidentCode, IncidentClass>> = {
  SHEETS_UNAVAILABLE: 'platform',
  GEMINI_DAILY_QUOTA: 'quota',
  GEMINI_RATE_LIMITED: 'quota',
  MAIL_QUOTA_EXHAUSTED: 'quota',
  MAIL_LIMIT_REACHED: 'quota',
  SPILL_BACKLOG: 'quota',
  GEMINI_KEY_INVALID: 'configuration',
  GEMINI_MODEL_NOT_FOUND: 'configuration',
  CONFIG_MISSING: 'configuration',
  CONFIG_INVALID: 'configuration',
  TEMPLATE_INVALID: 'configuration',
  REJECTED_DELIVERIES: 'configuration',
  NEEDS_REVIEW_ROWS: 'needs-person',
  CODE_BUG: 'code-bug',
};

export const CLASS_LABEL: Readonly<Record<IncidentClass, string>> = {
  platform: 'Google platform outage',
  quota: 'quota',
  configuration: 'configuration',
  'needs-person': 'needs a person',
  'code-bug': 'code bug',
};

/** Short enough for a subject line. */
export const INCIDENT_TITLE: Readonly<Record<IncidentCode, string>> = {
  SHEETS_UNAVAILABLE: 'Sheets unavailable',
  GEMINI_KEY_INVALID: 'Gemini API key invalid',
  GEMINI_MODEL_NOT_FOUND: 'Gemini model not found',
  GEMINI_DAILY_QUOTA: 'Gemini daily quota used up',
  GEMINI_RATE_LIMITED: 'Gemini rate limit persists',
  MAIL_QUOTA_EXHAUSTED: 'Mail quota exhausted',
  MAIL_LIMIT_REACHED: 'Mail safety limit reached',
  SPILL_BACKLOG: 'Deliveries waiting outside the sheet',
  REJECTED_DELIVERIES: 'Deliveries rejected',
  NEEDS_REVIEW_ROWS: 'Rows need a person',
  CONFIG_MISSING: 'Setting missing',
  CONFIG_INVALID: 'Setting invalid',
  TEMPLATE_INVALID: 'Template invalid',
  CODE_BUG: 'Unexpected error (code bug)',
};

/** What the condition is, in a sentence a person on duty understands without the code. */
export const WHAT_HAPPENED: Readonly<Record<IncidentCode, string>> = {
  SHEETS_UNAVAILABLE: "Google's spreadsheet service failed when formqueue read or wrote the Queue sheet.",
  GEMINI_KEY_INVALID: 'Gemini refused the API key (400 API_KEY_INVALID, 401 or 403): no reply can be generated.',
  GEMINI_MODEL_NOT_FOUND: 'Gemini does not know the configured model (404): no reply can be generated.',
  GEMINI_DAILY_QUOTA: "Gemini's daily quota or spend cap is used up (429): generation is paused until it resets.",
  GEMINI_RATE_LIMITED: 'Gemini keeps answering "too many requests" (429) over several runs.',
  MAIL_QUOTA_EXHAUSTED: "The Apps Script account's daily mail quota is used up: replies cannot be sent.",
  MAIL_LIMIT_REACHED: "formqueue's own safety limit on mails per run or per recipient held replies back.",
  SPILL_BACKLOG: 'Deliveries were kept in Script Properties because the Queue sheet could not take them.',
  REJECTED_DELIVERIES: 'Webhook deliveries were refused (bad token, malformed body or unknown form).',
  NEEDS_REVIEW_ROWS: 'Rows are waiting for a person: the system will not move them by itself.',
  CONFIG_MISSING: 'A required setting or sheet is missing.',
  CONFIG_INVALID: 'A setting has a value formqueue cannot use.',
  TEMPLATE_INVALID: 'A template in the Config sheet cannot be filled in.',
  CODE_BUG: 'formqueue hit an error it did not expect.',
};

/** One concrete sentence per code: what staff do now, and what happens to the rows meanwhile. */
export const NEXT_STEP: Readonly<Record<IncidentCode, string>> = {
  SHEETS_UNAVAILABLE:
    "Nothing to do while it is short: Google's spreadsheet service is failing, new deliveries are kept in Script Properties and moved into Queue when Sheets answers again. If it lasts over an hour, check the Google Workspace status dashboard.",
  GEMINI_KEY_INVALID:
    'Create a key in Google AI Studio and set Script Property GEMINI_API_KEY; rows keep their place and will be generated once the key works.',
  GEMINI_MODEL_NOT_FOUND:
    "The model id is retired or mistyped: set Script Property GEMINI_MODEL (or the Config sheet's model cell) to a current Gemini model; rows keep their place and will be generated once it works.",
  GEMINI_DAILY_QUOTA:
    "Nothing to do unless replies are urgent: rows keep their place and generation resumes when Gemini's daily quota resets (midnight Pacific time); to go faster, raise the quota or spend cap in Google AI Studio.",
  GEMINI_RATE_LIMITED:
    'Rows retry with back-off by themselves; if this keeps coming back, lower Script Property GEMINI_CONCURRENCY or raise the rate limit of the key in Google AI Studio.',
  MAIL_QUOTA_EXHAUSTED:
    "Nothing to do today: the account's daily mail quota is used up; READY rows keep their place and are mailed once the quota returns. If this happens often, run formqueue from a Google Workspace account (1,500 recipients a day).",
  MAIL_LIMIT_REACHED:
    'A safety limit held mails back (MAX_MAILS_PER_RUN or MAX_MAILS_PER_RECIPIENT_PER_DAY): look at the linked rows for a loop or a flood; raise the Script Property only if the volume is genuine. Held rows wait and go out later.',
  SPILL_BACKLOG:
    'Deliveries wait in Script Properties because the Queue sheet could not take them; they move into Queue by themselves. If the backlog keeps growing, check that SPREADSHEET_ID opens and the Queue sheet exists.',
  REJECTED_DELIVERIES:
    "Read the reasons in the Rejected sheet. After a token rotation, put the current WEBHOOK_TOKEN in the webhook URL in Typeform (Connect → Webhooks), or keep the old one in WEBHOOK_TOKEN_PREVIOUS until Typeform uses the new one.",
  NEEDS_REVIEW_ROWS:
    "Open each linked row: for NEEDS_REVIEW, check the script account's Sent mail — set status SENT if the reply went out, PENDING to send it again; for FAILED, read the error column, then set PENDING to retry or SKIPPED; approve AWAITING_APPROVAL rows by setting APPROVED.",
  CONFIG_MISSING:
    'Add the setting named above in the Apps Script editor (Project Settings → Script Properties) or recreate the missing sheet with the formqueue menu; rows keep their place and continue once it is set.',
  CONFIG_INVALID:
    'Fix the value named above (Project Settings → Script Properties, or the Config sheet); the safe default is used meanwhile.',
  TEMPLATE_INVALID:
    'Fix the template cell named above in the Config sheet (known: the field refs and ids of the form, {{hidden.<name>}}, {{variables.<key>}}, {{score}}, {{answers}}, {{result}}, {{mail_ref}}); a placeholder a submission left empty is never mailed blank, so change the template not to need it or skip that row. The rows wait and continue once it is fixed.',
  CODE_BUG:
    'Rows were left untouched. Forward this mail (the stack is redacted) to whoever maintains formqueue; if the same rows keep failing, use the formqueue menu → Pause until it is fixed.',
};

/**
 * A per-minute rate limit is normal and retried by itself: staff hear of it only once it persists,
 * i.e. seen in at least 3 runs spanning at least 15 minutes. Every other code is mailed at once.
 */
export const RATE_LIMIT_PERSIST_RUNS = 3;
export const RATE_LIMIT_PERSIST_MINUTES = 15;

/** A cleared incident must stay clear this long before the recovery mail: a flapping condition stays one incident. */
export const RECOVERY_QUIET_MINUTES = 5;

/**
 * Codes during which rows wait for the condition to end: when one clears, what later runs catch up (replies sent,
 * deliveries moved in from the spill) is added to it and told in its recovery mail.
 */
export const HOLDS_ROWS_BACK: readonly IncidentCode[] = [
  'SHEETS_UNAVAILABLE',
  'GEMINI_KEY_INVALID',
  'GEMINI_MODEL_NOT_FOUND',
  'GEMINI_DAILY_QUOTA',
  'GEMINI_RATE_LIMITED',
  'MAIL_QUOTA_EXHAUSTED',
  'MAIL_LIMIT_REACHED',
  'SPILL_BACKLOG',
  'CONFIG_MISSING',
  'TEMPLATE_INVALID',
  'CODE_BUG',
];

export function isGoogleError(code: IncidentCode): boolean {
  return INCIDENT_CLASS[code] === 'platform';
}
