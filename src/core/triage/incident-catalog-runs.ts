// Incident records for Apps Script's own daily quotas (runs not made, URL Fetch used up); spread into INCIDENTS.
//
// Kept apart from incident-catalog.ts so each group of codes is one self-contained block.
import { RUNS_OVERDUE_AFTER_MS } from '../domain/queue/run-gap';
import { MINUTE_MS } from '../domain/time';
import type { IncidentRecord } from './incident-policy';

export const QUOTA_RUN_INCIDENTS = {
  RUNS_MISSED: {
    class: 'quota',
    title: 'Queue runs did not happen',
    whatHappened: 'processQueue did not run for a while although deliveries were waiting: Apps Script ran none of its trigger runs.',
    nextStep:
      "Nothing was lost: doPost kept recording deliveries, and this run works through them. The usual cause is the account's daily trigger runtime " +
      "(90 minutes a day on a consumer account, 6 hours on Workspace, shared by all the account's scripts; the Executions page shows \"Service using too much computer time for one day\"). " +
      "If it recurs, move other scripts' triggers off this account or run formqueue from a Google Workspace account; otherwise check in the Apps Script " +
      'editor (Triggers) that the processQueue trigger is there and enabled.',
    raisedBy:
      `processQueue, by the first full run after a gap of more than ${RUNS_OVERDUE_AFTER_MS / MINUTE_MS} minutes since the last one while a delivery or staff edit waited ` +
      '(FQ_LAST_SWEEP_AT and FQ_DIRTY or the spill; a full run comes at least every 15 minutes, and within a minute of a delivery, while its trigger runs). ' +
      'doGet answers `ok: false` with `runsOverdue` during the gap already. One mail, no reminder and no recovery mail; it ends silently at the next run once mailed (the daily summary lists it).',
    mails: { kind: 'at-once' },
    followUps: 'none',
    holdsRowsBack: false,
    summaryShowsDetail: true,
  },
  URLFETCH_DAILY_QUOTA: {
    class: 'quota',
    title: 'URL Fetch daily quota used up',
    whatHappened:
      "Apps Script's daily URL Fetch quota of the account is used up (\"Service invoked too many times for one day: urlfetch.\"): Gemini cannot be asked, so generation is paused.",
    nextStep:
      "Nothing to do unless replies are urgent: rows keep their place and attempts, and generation resumes by itself when the quota resets, 24 hours after the window's first call " +
      '(20,000 calls a day on a consumer account, 100,000 on Workspace). If it recurs, look for another script of this account that fetches a lot.',
    raisedBy:
      'processQueue, when UrlFetchApp refuses a Gemini request with `Service invoked too many times for one day: urlfetch.` The rows go back to PENDING with the attempt ' +
      'given back and are looked at again 5 minutes later, as for a used-up Gemini quota. Cleared by the next reply Gemini writes.',
    mails: { kind: 'at-once' },
    followUps: 'reminders-and-recovery',
    holdsRowsBack: true,
  },
} satisfies Record<string, IncidentRecord>;
