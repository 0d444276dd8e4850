// One record per incident code: its class, title, what happened, the next step, what raises it and when it is mailed.
import type { IncidentCode } from '../domain/failures/codes';
import { REJECTED_INCIDENT_THRESHOLD } from '../domain/typeform/rejection-kinds';
import { DEFAULT_APPROVAL_WAIT_HOURS } from '../domain/config/settings';
import { QUOTA_RUN_INCIDENTS } from './incident-catalog-runs';
import { GEMINI_INCIDENT_RECORDS } from './incident-catalog-gemini';
import { AT_ONCE, RATE_LIMIT_PERSIST_MINUTES, RATE_LIMIT_PERSIST_RUNS, type IncidentRecord } from './incident-policy';

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
  ...GEMINI_INCIDENT_RECORDS,
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
