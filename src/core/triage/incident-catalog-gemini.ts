// Incident records for Gemini: no answer, a refused key or model, its quotas and rate limit, a retired model, the token budget; spread into INCIDENTS.
import { AT_ONCE, OUTAGE_PERSIST_MINUTES, OUTAGE_PERSIST_RUNS, RATE_LIMIT_PERSIST_MINUTES, RATE_LIMIT_PERSIST_RUNS, type IncidentRecord } from './incident-policy';

export const GEMINI_INCIDENT_RECORDS = {
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
} satisfies Record<string, IncidentRecord>;
