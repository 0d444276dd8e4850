// One record per incident code: its class, title, what happened, the next step, what raises it and when it is mailed.
import type { IncidentCode } from '../domain/failures/codes';
import { REJECTED_INCIDENT_THRESHOLD } from '../domain/typeform/rejection-kinds';
import { DEFAULT_APPROVAL_WAIT_HOURS } from '../domain/config/settings';
import { QUOTA_RUN_INCIDENTS } from './incident-catalog-runs';

/** Who has to act: Google, time (a quota), whoever owns the settings, a person on a row, or the developer. */
export type IncidentClass = 'platform' | 'quota' | 'configuration' | 'needs-person' | 'code-bug';

export const CLASS_LABEL: Readonly<Record<IncidentClass, string>> = {
  platform: 'Google platform outage',
  quota: 'quota',
  configuration: 'configuration',
  'needs-person': 'needs a person',
  'code-bug': 'code bug',
};

/**
 * A per-minute rate limit is normal and retried by itself: staff hear of it only once it persists,
 * i.e. seen in at least 3 runs spanning at least 15 minutes. A Gemini outage likewise (OUTAGE_PERSIST_*); every other code is mailed at once.
 */
export const RATE_LIMIT_PERSIST_RUNS = 3;
export const RATE_LIMIT_PERSIST_MINUTES = 15;

/** A Gemini outage is mailed once it outlasts a passing blip: seen in at least 3 runs spanning at least 10 minutes. */
export const OUTAGE_PERSIST_RUNS = 3;
export const OUTAGE_PERSIST_MINUTES = 10;

/** A cleared incident must stay clear this long before the recovery mail: a flapping condition stays one incident. */
export const RECOVERY_QUIET_MINUTES = 5;

/** When staff get the first mail: at once, or only once the condition has persisted over several runs. */
export type MailRule = { kind: 'at-once' } | { kind: 'once-persistent'; runs: number; minutes: number };

/**
 * What follows the first mail. 'reminders-and-recovery': reminders while it lasts and one "Resolved" mail when it
 * clears. 'recovery-only': no reminder (TRIAGE_REMINDER_MINUTES does not apply), one "Resolved" mail when it clears:
 * for rows needing a person, where rows joining the open incident are told by Queue health and the daily summary, so
 * a busy week is one mail, not one an hour. 'none': the first mail only; no reminder and no recovery mail (the incident
 * ends silently and the daily summary lists it), for a condition outsiders can cause again every hour, which would
 * otherwise mail staff every hour.
 */
export type FollowUps = 'reminders-and-recovery' | 'recovery-only' | 'none';

const AT_ONCE: MailRule = { kind: 'at-once' };

export interface IncidentRecord {
  class: IncidentClass;
  /** Short enough for a subject line. */
  title: string;
  /** What the condition is, in a sentence a person on duty understands without the code. */
  whatHappened: string;
  /** One concrete sentence: what staff do now, and what happens to the rows meanwhile. */
  nextStep: string;
  /** Which check opens it and what clears it (docs/triage.md prints it). */
  raisedBy: string;
  mails: MailRule;
  followUps: FollowUps;
  /**
   * Rows wait for the condition to end: when it clears, what later runs catch up (replies sent) is added to it
   * and told in its recovery mail.
   */
  holdsRowsBack: boolean;
  /** The daily summary's line for it ends with its detail: what it is about (e.g. what was recovered), not only that it happened. */
  summaryShowsDetail?: true;
  /** Its rows wait in AWAITING_APPROVAL for staff: respondents count as affected while any row does (assessApprovalImpact). */
  rowsAwaitApproval?: true;
  /**
   * It comes with requests in numbers that can make Google refuse executions, leaving no trace here: its mail never
   * says no user impact, and says what to check (assessRefusedCallsImpact).
   */
  mayHideRefusedCalls?: true;
}

export const INCIDENTS: Readonly<Record<IncidentCode, IncidentRecord>> = {
  SHEETS_UNAVAILABLE: {
    class: 'platform',
    title: 'Sheets unavailable',
    whatHappened: "Google's spreadsheet service failed when formqueue read or wrote the Queue sheet.",
    nextStep: "Nothing to do while it is short: Google's spreadsheet service is failing, new deliveries are kept in Script Properties and moved into Queue when Sheets answers again. If it lasts over an hour, check the Google Workspace status dashboard.",
    raisedBy: "processQueue, when a Sheets call fails with `Service Spreadsheets failed…`, `Error code INTERNAL`, a time-out and the like (opening the spreadsheet or any read or write during the run). Cleared by the first run that reads the Queue again.",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  GEMINI_UNAVAILABLE: {
    class: 'platform',
    title: 'Gemini unavailable',
    whatHappened: 'Gemini has not answered at all (5xx errors or time-outs) for every row asked, over several runs: no reply can be generated.',
    nextStep: 'Nothing to do while it lasts: rows keep their place and attempts, and are generated and sent by themselves once Gemini answers again. If it lasts over an hour, check the Gemini API status page (https://aistudio.google.com/status).',
    raisedBy: `processQueue, by every generation round in which no request got any answer (each one 5xx, 408, a time-out or no connection). In the first such run rows are charged an attempt as for any retry; from the next one on (once at least two rows were held back) the rows go back to PENDING with the attempt given back and generation is looked at again 5 minutes later, so an outage never turns rows FAILED. One row whose own request keeps failing while others get answers is charged as usual. Staff hear of it once it is seen in at least ${OUTAGE_PERSIST_RUNS} runs spanning at least ${OUTAGE_PERSIST_MINUTES} minutes; any answer from Gemini (even a 429) clears it, written at once (a run killed after that answer does not keep it open).`,
    mails: { kind: 'once-persistent', runs: OUTAGE_PERSIST_RUNS, minutes: OUTAGE_PERSIST_MINUTES },
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  GEMINI_KEY_INVALID: {
    class: 'configuration',
    title: 'Gemini API key invalid',
    whatHappened: 'Gemini refused the API key (400 API_KEY_INVALID, 401 or 403): no reply can be generated.',
    nextStep: 'Create a key in Google AI Studio and set Script Property GEMINI_API_KEY; rows keep their place and will be generated once the key works.',
    raisedBy: "processQueue, when Gemini answers 401, 403, 400 with reason `API_KEY_INVALID`, or 400 `FAILED_PRECONDITION` (billing or region). Generation stops for that run; the rows go back to PENDING with the attempt given back and are looked at again 5 minutes later (or at the next delivery). Cleared by the next successful generation.",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  GEMINI_MODEL_NOT_FOUND: {
    class: 'configuration',
    title: 'Gemini model not found',
    whatHappened: 'Gemini does not know the configured model (404): no reply can be generated.',
    nextStep: "The model id is retired or mistyped: set Script Property GEMINI_MODEL (or the Config sheet's model cell) to a current Gemini model; rows keep their place and will be generated once it works.",
    raisedBy: "processQueue, when Gemini answers 404 for the model. The rows are kept as for a bad key.",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  GEMINI_DAILY_QUOTA: {
    class: 'quota',
    title: 'Gemini daily quota used up',
    whatHappened: "Gemini's daily quota or spend cap is used up (429): generation is paused until it resets.",
    nextStep: "Nothing to do unless replies are urgent: rows keep their place and generation resumes when Gemini's daily quota resets (midnight Pacific time); to go faster, raise the quota or spend cap in Google AI Studio.",
    raisedBy: "processQueue, when Gemini answers 429 naming a per-day quota. The rows are kept as for a bad key.",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  GEMINI_RATE_LIMITED: {
    class: 'quota',
    title: 'Gemini rate limit persists',
    whatHappened: 'Gemini keeps answering "too many requests" (429) over several runs.',
    nextStep: 'Rows retry with back-off by themselves; if this keeps coming back, lower Script Property GEMINI_CONCURRENCY or raise the rate limit of the key in Google AI Studio.',
    raisedBy: `processQueue, on every Gemini 429 that names no per-day quota, with the rows it sent back to PENDING (each row is still retried with back-off, uses an attempt, and becomes FAILED after \`MAX_ATTEMPTS\`). Staff hear of it only once it is seen in at least ${RATE_LIMIT_PERSIST_RUNS} runs spanning at least ${RATE_LIMIT_PERSIST_MINUTES} minutes; a burst that passes sooner is dropped without mail. A reply written by Gemini clears it.`,
    mails: { kind: 'once-persistent', runs: RATE_LIMIT_PERSIST_RUNS, minutes: RATE_LIMIT_PERSIST_MINUTES },
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  MAIL_QUOTA_EXHAUSTED: {
    class: 'quota',
    title: 'Mail quota exhausted',
    whatHappened: "The Apps Script account's daily mail quota is used up: replies cannot be sent.",
    nextStep: "Nothing to do: the account's daily mail quota is used up. Google gives it back 24 hours after the first mail of that quota day, not at midnight; READY rows keep their place and are mailed once it returns. If this happens often, run formqueue from a Google Workspace account (1,500 recipients a day).",
    raisedBy: "processQueue, when the account's remaining daily mail quota cannot cover the next reply. That row and the ones after it stay READY/APPROVED and are sent on a later run.",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  MAIL_LIMIT_REACHED: {
    class: 'quota',
    title: 'Mail safety limit reached',
    whatHappened: "formqueue's own safety limit on mails per run or per recipient held replies back.",
    nextStep: 'A safety limit held mails back (MAX_MAILS_PER_RUN or MAX_MAILS_PER_RECIPIENT_PER_DAY): look at the linked rows for a loop or a flood; raise the Script Property only if the volume is genuine. Held rows wait and go out later.',
    raisedBy: "processQueue, when `MAX_MAILS_PER_RUN` (default 50) or `MAX_MAILS_PER_RECIPIENT_PER_DAY` (default 5) holds replies back.",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  SPILL_BACKLOG: {
    class: 'quota',
    title: 'Deliveries waiting outside the sheet',
    whatHappened: 'Deliveries were kept in Script Properties because the Queue sheet could not take them.',
    nextStep: 'Deliveries wait in Script Properties because the Queue sheet could not take them; they move into Queue by themselves. If the backlog keeps growing, check that SPREADSHEET_ID opens and the Queue sheet exists.',
    raisedBy: "processQueue, when the deliveries kept in Script Properties take more than 200,000 characters (the spill holds 400,000).",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  GRID_NEARLY_FULL: {
    class: 'quota',
    title: 'Spreadsheet nearly full',
    whatHappened: "The spreadsheet's grid is past 80 % of the 10,000,000 cells Sheets allows; at the limit no row can be added and deliveries wait outside the sheet.",
    nextStep: 'Copy old rows of Archive, Log and Payloads to another spreadsheet and delete them from this one (Archive rows are no longer needed for dedupe after Typeform stops retrying, 10 hours); the detail says how many days are left at the current rate.',
    raisedBy: 'processQueue, at most every 6 hours, when all sheets together have 8,000,000 grid cells or more (empty cells count). Cleared below that.',
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: false,
  },
  REJECTED_DELIVERIES: {
    class: 'configuration',
    title: 'Deliveries rejected',
    whatHappened:
      'Webhook deliveries were refused: for their token or shape (missing or wrong token, not a Typeform delivery), or, though they came with the webhook token, for Config, size or an error of ours (unknown form, field too large, internal error).',
    nextStep:
      "Read the reasons in the Rejected sheet. Unknown form: enable the form in Config (or remove the webhook from that form in Typeform), then accept each of its rows with formqueue → Accept rejected delivery. Field too large or internal error: forward the row to whoever maintains formqueue. A token rotation: put the current WEBHOOK_TOKEN in the webhook URL in Typeform (Connect → Webhooks), or keep the old one in WEBHOOK_TOKEN_PREVIOUS until Typeform uses the new one. Partial responses: untick \"partial responses\" on the Typeform webhook to stop them.",
    raisedBy: `processQueue, from the day's count of rejected deliveries (the script's time zone; doPost counts each one with its kind in the Tally sheet and raises nothing itself; every full run adds them up): at once for one finished submission refused although it came with the webhook token (unknown form, field too large, internal error), since that respondent gets no reply until staff accept it; otherwise at ${REJECTED_INCIDENT_THRESHOLD} rejections in the day. Partial responses are counted and named in its detail and the daily summary, but never open it, alone or added to others: Typeform sends one for every unfinished form when the webhook subscribes to them, and nobody waits for a reply to those. Its mail never says no user impact: past 30 simultaneous executions Google refuses calls before formqueue runs, so a burst may have hidden a real delivery; it says what to check. Cleared when the day ends and its count starts over, so a new day is a new incident: with no reminder and no recovery mail, staff get at most one mail a day, however long the rejections go on (the daily summary carries them).`,
    mails: AT_ONCE,
    followUps: 'none',
    holdsRowsBack: false,
    mayHideRefusedCalls: true,
  },
  ROWS_NEED_A_PERSON: {
    class: 'needs-person',
    title: 'Rows need a person',
    whatHappened: 'Rows are waiting for a person (FAILED, NEEDS_REVIEW, or AWAITING_APPROVAL for longer than APPROVAL_WAIT_HOURS): formqueue will not move them by itself.',
    nextStep:
      "Open each linked row and do what \"What to do\" below says for its reason; none needs the Sent folder of the account formqueue runs as (the Log sheet, filtered by the row's event_id, and the respondent tell whether a mail went out).",
    raisedBy: `processQueue, by every full run that finds a row FAILED or NEEDS_REVIEW (an unknown mail outcome, a stale SENDING row, a Gemini refusal, a missing address, a multi-cell edit…), AWAITING_APPROVAL for \`APPROVAL_WAIT_HOURS\` (default ${DEFAULT_APPROVAL_WAIT_HOURS}) or longer, counted from its \`updated_at\`, or with a status formqueue does not know. Cleared when no such row is left. No reminders: rows that join the open incident are listed by Queue health and the daily summary, not mailed again.`,
    mails: AT_ONCE,
    followUps: 'recovery-only',
    holdsRowsBack: false,
  },
  WEBHOOK_DISABLED: {
    class: 'configuration',
    title: 'Typeform webhook disabled',
    whatHappened: "Typeform's webhook for a form is disabled, gone, or points at another URL than this deployment's, so new submissions no longer reach formqueue (Typeform disables a webhook after a 404/410, or when every attempt fails for a day with more than 300 of them). While it lasts, formqueue recovers the submissions from Typeform every hour.",
    nextStep: 'In Typeform open the form → Connect → Webhooks, switch the webhook to ON and check its URL is the web app URL with the token Set up gave it (or set TYPEFORM_WEBHOOK_REENABLE=true, with a token that has webhooks:write, and formqueue switches a disabled one back on by itself). Submissions that came in meanwhile are recovered hourly; formqueue → Check Typeform for missed submissions runs the daily check now.',
    raisedBy: "processQueue, from the newest look at Typeform's Webhooks API (with TYPEFORM_TOKEN set): the watchTypeformWebhook trigger every 15 minutes, or the daily reconcileTypeform check and the menu item: this form's webhook is listed with `enabled: false`, none is listed, or none points at this web app. Cleared by the first look that finds it enabled and pointing here.",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: false,
  },
  SUBMISSIONS_RECOVERED: {
    class: 'needs-person',
    title: 'Missed submissions recovered',
    whatHappened: 'Typeform holds submissions whose webhook never became a row (Google refused the call, Typeform gave up, a token was wrong); the Typeform check added them to Queue.',
    nextStep: 'Open Queue and filter event_id starting with "reconciled:": each waits in AWAITING_APPROVAL with its reply written; set APPROVED to mail it, or SKIPPED if it was already answered another way.',
    raisedBy: 'processQueue, for 24 hours after a Typeform check (daily trigger or menu) that queued at least one submission no sheet held. Cleared 24 hours after that check.',
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: false,
    summaryShowsDetail: true,
    rowsAwaitApproval: true,
  },
  ROWS_RESTORED: {
    class: 'needs-person',
    title: 'Removed submissions restored',
    whatHappened:
      'Rows of submissions that were not finished were removed from Queue by hand (deleted, or pasted over with another row); formqueue put each back from the Journal, the record of every accepted submission that staff edits cannot reach.',
    nextStep:
      'Open each linked row (NEEDS_REVIEW, reason RESTORED): set PENDING to have it answered, or SKIPPED to drop it on purpose. To drop a submission, set SKIPPED: deleting its row only brings it back.',
    raisedBy: 'processQueue, by a full run that finds a journaled submission with no row in Queue or Archive whose Log does not show it finished (SENT, SKIPPED or a test). One mail per run that restores; no reminder, no recovery mail.',
    mails: AT_ONCE,
    followUps: 'none',
    holdsRowsBack: false,
    summaryShowsDetail: true,
  },
  SUBMISSIONS_IN_REJECTED: {
    class: 'needs-person',
    title: 'Submissions waiting in Rejected',
    whatHappened:
      'The Typeform check found finished submissions that formqueue holds only in the Rejected sheet (refused when they arrived: a form Config did not enable, a field too long, an error of ours): they get no reply until staff accept them there.',
    nextStep:
      'Open the Rejected sheet and find each row by a response token named below (Edit → Find); do what its reason says (e.g. enable the form in Config), then put the cursor on the row and choose formqueue → Accept rejected delivery.',
    raisedBy:
      "processQueue, for 24 hours after a Typeform check (daily trigger or menu) that found at least one finished response of its window only in Rejected: a Rejected body that is a delivery of that response (the same `form_response.token`, parsed, not a partial: a partial can never be accepted, so a finished response whose partial alone is in Rejected is recovered instead). The check queues none of them (staff accept them there). With no reminder and no recovery mail: cleared when a check finds none, or 24 hours after the check.",
    mails: AT_ONCE,
    followUps: 'none',
    holdsRowsBack: false,
    summaryShowsDetail: true,
  },
  CONFIG_MISSING: {
    class: 'configuration',
    title: 'Setting missing',
    whatHappened: 'A required setting or sheet is missing.',
    nextStep: 'Add the setting named above in the Apps Script editor (Project Settings → Script Properties) or recreate the missing sheet with the formqueue menu; rows keep their place and continue once it is set.',
    raisedBy: "processQueue, when `GEMINI_API_KEY`, `STAFF_EMAILS` or `WEBHOOK_TOKEN` is empty, `SPREADSHEET_ID` is not set (and Apps Script gives no active spreadsheet), the Queue sheet lacks one of its columns, or a sheet formqueue needs (Queue, Config, Log, …) is missing: the detail names it and says to run Set up / repair. The rows wait untouched; without `GEMINI_API_KEY` Gemini is not called at all (replies already written are still sent).",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  CONFIG_INVALID: {
    class: 'configuration',
    title: 'Setting invalid',
    whatHappened: 'A setting has a value formqueue cannot use.',
    nextStep: 'Fix the value named above (Project Settings → Script Properties, or the Config sheet); the safe default is used meanwhile.',
    raisedBy: "processQueue, when a numeric Script Property is not a whole number in its range, `GEMINI_BASE_URL` is not https:// (plain http:// only to localhost), or `WEBHOOK_TOKEN`, `WEBHOOK_TOKEN_PREVIOUS` or `HEALTH_TOKEN` is shorter than 32 random characters (such a token opens nothing); the default is used meanwhile.",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: false,
  },
  TEMPLATE_INVALID: {
    class: 'configuration',
    title: 'Template invalid',
    whatHappened: 'A template in the Config sheet cannot be filled in.',
    nextStep: 'Fix the template cell named above in the Config sheet (known: the field refs and ids of the form, {{hidden.<name>}}, {{variables.<key>}}, {{score}}, {{answers}}, {{result}}, {{mail_ref}}); a placeholder a submission left empty is never mailed blank, so change the template not to need it or skip that row. The rows wait and continue once it is fixed.',
    raisedBy: "processQueue, when a prompt or mail template in the Config sheet names an unknown placeholder, a mail template names one that a submission left empty (only that row waits). Only that form's rows wait. (An invalid address in Config is CONFIG_SHEET_INVALID.)",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  SENT_CHECK_FAILED: {
    class: 'configuration',
    title: 'Sent folder cannot be searched',
    whatHappened: 'RECONCILE_SENT_MAIL is on, but searching the Sent folder for rows whose send outcome was never recorded keeps failing.',
    nextStep: 'Check that appsscript.json enables the Gmail advanced service and grants gmail.readonly, then run formqueue → Set up / repair and accept the consent screen (docs/oauth-scopes.md); or set RECONCILE_SENT_MAIL off and check those rows by hand. The rows stay in SENDING and nothing is mailed meanwhile.',
    raisedBy: `processQueue, when a Sent-folder look is due and Gmail.Users.Messages.list or get throws (scope missing, service not enabled, Gmail error). Staff hear of it only once it is seen in at least ${RATE_LIMIT_PERSIST_RUNS} runs spanning at least ${RATE_LIMIT_PERSIST_MINUTES} minutes. A run whose due looks all succeed clears it.`,
    mails: { kind: 'once-persistent', runs: RATE_LIMIT_PERSIST_RUNS, minutes: RATE_LIMIT_PERSIST_MINUTES },
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  ...QUOTA_RUN_INCIDENTS,
  CODE_BUG: {
    class: 'code-bug',
    title: 'Unexpected error (code bug)',
    whatHappened: 'formqueue hit an error it did not expect.',
    nextStep: 'Rows were left untouched. Forward this mail (the stack is redacted) to whoever maintains formqueue; if the same rows keep failing, use the formqueue menu → Pause until it is fixed.',
    raisedBy: "processQueue, for any exception formqueue did not expect. The run stops where it was (rows are moved in whole steps, so none is left half-written; the rest are untouched) and the next tick runs again, so a bug that persists is folded into the same incident.",
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  BOUNCE_CHECK_FAILED: {
    class: 'configuration',
    title: 'Bounce notices cannot be read',
    whatHappened: "RECONCILE_BOUNCES is on, but searching the inbox for Gmail's delivery-failure notices keeps failing.",
    nextStep:
      'Check that appsscript.json enables the Gmail advanced service and grants gmail.readonly, then run formqueue → Set up / repair and accept the consent screen (docs/oauth-scopes.md); or set RECONCILE_BOUNCES off. Replies are still mailed meanwhile; an address that bounces is not suppressed until the check works again (staff can add it to Suppressed by hand).',
    raisedBy: `processQueue, when a bounce check is due (every BOUNCE_CHECK_MINUTES) and Gmail.Users.Messages.list or get throws. Staff hear of it only once it is seen in at least ${RATE_LIMIT_PERSIST_RUNS} runs spanning at least ${RATE_LIMIT_PERSIST_MINUTES} minutes. The next check that succeeds clears it.`,
    mails: { kind: 'once-persistent', runs: RATE_LIMIT_PERSIST_RUNS, minutes: RATE_LIMIT_PERSIST_MINUTES },
    followUps: 'reminders-and-recovery',
    holdsRowsBack: false,
  },
  GEMINI_MODEL_RETIRED: {
    class: 'configuration',
    title: 'Gemini model retired',
    whatHappened: 'Gemini answered 404 (not found) for a model in the list; replies are written by the next model of the list.',
    nextStep:
      'Nothing is waiting: replies go on with the model named above. Take the retired id out of Script Property GEMINI_MODEL (or the form\'s Config model cell) and, if you want a spare again, add a current model after the one now used; check its price (GEMINI_PRICES).',
    raisedBy:
      'processQueue, when Gemini answers 404 for a model and the row\'s list has another one: that row is asked again with it in the same run, and is charged no attempt. The retired id is skipped for a week (Script Property FQ_MODELS_RETIRED), then asked once more. Ends (silently) once no model list in use names a retired id. When every model of a list is retired, GEMINI_MODEL_NOT_FOUND is raised instead.',
    mails: AT_ONCE,
    followUps: 'none',
    holdsRowsBack: false,
    summaryShowsDetail: true,
  },
  GEMINI_BUDGET_REACHED: {
    class: 'quota',
    title: 'Daily token budget reached',
    whatHappened: "Today's replies have spent the daily token budget (Script Property DAILY_TOKEN_BUDGET): no new reply is written until tomorrow.",
    nextStep:
      'Nothing to do unless replies are urgent: waiting rows stay PENDING and are written from the first run of the next calendar day (script time zone); replies already written, and approved ones, are still mailed. To go on today, raise or clear DAILY_TOKEN_BUDGET.',
    raisedBy:
      "processQueue, before a generation round, when the tokens spent today (prompt, output and thinking, as Gemini reported them; Script Property FQ_TOKENS) and by this run reach DAILY_TOKEN_BUDGET while a row waits to be generated. Cleared by the first run under the budget (the next day's, or after the budget is raised).",
    mails: AT_ONCE,
    followUps: 'recovery-only',
    holdsRowsBack: true,
  },
  NEW_RECIPIENT_CEILING: {
    class: 'quota',
    title: 'Many new recipients at once',
    whatHappened: 'More replies than usual were due to addresses formqueue has never mailed; the ones past the ceiling wait.',
    nextStep:
      'Look at the linked rows: a flood of submissions naming strangers (the public form used as a relay) looks like this. Skip the rows that are abuse; if the volume is genuine, raise MAX_NEW_RECIPIENTS_PER_HOUR or MAX_NEW_RECIPIENTS_PER_DAY. Waiting rows stay READY and go out as the ceiling allows.',
    raisedBy:
      'processQueue, when a reply to an address Queue shows no earlier mail to would pass `MAX_NEW_RECIPIENTS_PER_HOUR` (default 50) or `MAX_NEW_RECIPIENTS_PER_DAY` (default 200) distinct new addresses in a rolling hour or day.',
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
  CONFIG_SHEET_INVALID: {
    class: 'configuration',
    title: 'Config sheet entry invalid',
    whatHappened: 'A cell of the Config sheet holds a value formqueue cannot read as meant (the form and column are named above).',
    nextStep:
      'Open the Config sheet and fix the cell named above (its note says what is wrong): tick or clear the checkbox in enabled and approval_required, write real addresses in reply_to and bcc. Meanwhile nothing goes out unreviewed: a form whose approval_required cannot be read waits for approval, and rows a bad address stops wait and continue once it is fixed.',
    raisedBy:
      'processQueue, by every full run that reads Config and finds a yes/no column (`enabled`, `approval_required`) holding neither yes nor no (`approval_required` then counts as on, `enabled` as off), or a `reply_to` or `bcc` that is not a list of addresses (that form\'s rows wait unmailed). The on-edit trigger notes the same problems on the cell as it is typed, and model names and placeholders too. Cleared by the first run that finds Config readable.',
    mails: AT_ONCE,
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
};

export function isGoogleError(code: IncidentCode): boolean {
  return INCIDENTS[code].class === 'platform';
}

/** Whether anything follows the first mail: a recovery mail, and perhaps reminders (see FollowUps). */
export function hasFollowUps(code: IncidentCode): boolean {
  return INCIDENTS[code].followUps !== 'none';
}

/** Whether an open incident is mailed again every TRIAGE_REMINDER_MINUTES while it is seen (see FollowUps). */
export function remindsWhileOpen(code: IncidentCode): boolean {
  return INCIDENTS[code].followUps === 'reminders-and-recovery';
}

/** Codes during which rows wait for the condition to end (see IncidentRecord.holdsRowsBack). */
export function holdsRowsBack(code: IncidentCode): boolean {
  return INCIDENTS[code].holdsRowsBack;
}
