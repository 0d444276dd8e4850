// Typeform's webhook sender as its published policy says: timeout, retry classes, disable thresholds, delivery log.
//
// Source [TF-WH] https://www.typeform.com/developers/webhooks/ (section "Timeout" and "Delivery retries"):
//   "If your webhook doesn't respond within 30 seconds, Typeform will mark the delivery as failed and trigger the retry
//    policy outlined below." —
//   "If 410 Gone or 404 Not Found HTTP status is received, no retry is performed, and the webhook is disabled immediately."
//   "If the 429 Too Many Requests, 408 Timeout, 503 Service Unavailable, or 423 Locked HTTP code is received, Typeform
//    will retry the request to your endpoint every 2-3 minutes for 10 hours."
//   "If any other HTTP code is received" a few retries follow with growing gaps, and a webhook whose deliveries all fail
//   over 24 hours with more than 300 attempts, or within 5 minutes with 100 attempts, is disabled.
// The exact gaps of the "any other code" class differ between copies of the page (docs/platform.md#typeform-webhooks);
// the copy of the same policy at https://help.moaform.com/hc/en-us/articles/28337527199129-Error-Management lists
// "five times using a back-off mechanism after 5, 10, 20, 60, and 120 minutes", which is what OTHER_GAPS_MIN models.
// "Browsable log: last 50 delivery attempts" and "Manual retry: not available":
// https://hookdeck.com/webhooks/platforms/guide-to-typeform-webhooks-features-and-best-practices
// What it does with the web app's 302 is not published: the `typeformRedirect` world (worlds.mjs) has both readings.
//
// No real waits: each attempt has a due time on the runtime clock; runDue() makes every attempt due by now, in due
// order, stamping each with its due time, so POST /api/clock (advanceClock) drives hours of retries in one call.

export const TIMEOUT_MS = 30_000;
/** "every 2-3 minutes": the gaps alternate 2 and 3 minutes, so each one is inside the published range. */
const SLOW_RETRY_GAPS_MIN = [2, 3];
const SLOW_RETRY_FOR_MS = 10 * 3600_000;
const SLOW_RETRY_CODES = new Set([408, 423, 429, 503]);
const DISABLE_AT_ONCE_CODES = new Set([404, 410]);
const OTHER_GAPS_MIN = [5, 10, 20, 60, 120];
const DAY_MS = 24 * 3600_000;
const FIVE_MIN_MS = 5 * 60_000;
/** "fails 100 % of the time over 24 hours with more than 300 attempts, or within 5 minutes with 100 attempts". */
const DAY_ATTEMPTS_TO_DISABLE = 301;
const FIVE_MIN_ATTEMPTS_TO_DISABLE = 100;
export const DELIVERY_LOG_SIZE = 50;

/**
 * Which retry class an attempt's outcome falls in.
 * @param {number} status 0 for no answer (timeout, connection refused) @param {'follow'|'fail'} redirect
 * @returns {'delivered'|'disable'|'slow-retry'|'retry'}
 */
export function classify(status, redirect = 'follow') {
  if (status >= 200 && status < 300) return 'delivered';
  if (DISABLE_AT_ONCE_CODES.has(status)) return 'disable';
  if (SLOW_RETRY_CODES.has(status)) return 'slow-retry';
  void redirect; // a 3xx reaches here only when it is counted as a failure: "any other HTTP code"
  return 'retry';
}

/**
 * When the next attempt is due after a failed one, or null when the sender gives up.
 * @param {'slow-retry'|'retry'} kind @param {number} failures failed attempts so far (1 after the first)
 * @param {number} firstAt the first attempt's time @param {number} at this attempt's time
 */
export function nextAttemptAt(kind, failures, firstAt, at) {
  if (kind === 'slow-retry') {
    const next = at + SLOW_RETRY_GAPS_MIN[(failures - 1) % SLOW_RETRY_GAPS_MIN.length] * 60_000;
    return next - firstAt <= SLOW_RETRY_FOR_MS ? next : null;
  }
  const gap = OTHER_GAPS_MIN[failures - 1];
  return gap === undefined ? null : at + gap * 60_000;
}

/**
 * Whether the attempts (oldest first, each {at, ok}) make Typeform disable the webhook at `at`: all failed over the
 * last 24 h with more than 300 of them, or all failed within the last 5 minutes with 100 of them.
 * @param {{ at: number, ok: boolean }[]} attempts @param {number} at
 */
export function failingEnoughToDisable(attempts, at) {
  const within = (ms) => attempts.filter((a) => a.at > at - ms && a.at <= at);
  const day = within(DAY_MS);
  if (day.length >= DAY_ATTEMPTS_TO_DISABLE && day.every((a) => !a.ok)) return true;
  const five = within(FIVE_MIN_MS);
  return five.length >= FIVE_MIN_ATTEMPTS_TO_DISABLE && five.every((a) => !a.ok);
}

/** One POST as Typeform makes it, not following redirects; status 0 when no answer came in time. */
async function postOnce(url, body, timeoutMs) {
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Typeform Webhooks' },
      body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return { status: response.status, location: response.headers.get('location') ?? '' };
  } catch {
    return { status: 0, location: '' };
  }
}

/** The 302's target fetched with GET, as a client following redirects does (docs/platform.md#web-apps). */
async function followOnce(location, timeoutMs) {
  try {
    const response = await fetch(location, { method: 'GET', redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** The status an attempt ends with: a 3xx is followed with a GET in `follow` mode, and stays a 3xx in `fail`. */
async function statusOf({ post, follow, timeoutMs }, url, body, mode) {
  const answer = await post(url, body, timeoutMs);
  const redirected = answer.status >= 300 && answer.status < 400 && answer.location !== '';
  return redirected && mode === 'follow' ? follow(answer.location, timeoutMs) : answer.status;
}

/** Per webhook (form id + tag): recent attempts {at, ok} for the disable rule, and the delivery log Typeform shows. */
function createDeliveryRecords() {
  const attempts = new Map();
  const logs = new Map();
  const keyOf = (formId, tag) => `${formId}/${tag}`;
  return {
    log(job, entry) {
      const key = keyOf(job.formId, job.tag);
      const list = logs.get(key) ?? [];
      list.push({ at: new Date(entry.at).toISOString(), event_id: job.eventId, response_token: job.token, attempt: job.failures + 1, status: entry.status, outcome: entry.outcome });
      if (list.length > DELIVERY_LOG_SIZE) list.splice(0, list.length - DELIVERY_LOG_SIZE);
      logs.set(key, list);
    },
    /** Adds an attempt and answers the day of attempts the disable rule looks at. */
    recordAttempt(job, at, ok) {
      const key = keyOf(job.formId, job.tag);
      const list = (attempts.get(key) ?? []).filter((a) => a.at > at - DAY_MS);
      list.push({ at, ok });
      attempts.set(key, list);
      return list;
    },
    logOf: (formId, tag) => logs.get(keyOf(formId, tag)) ?? [],
    /** Typeform judges a re-enabled webhook afresh: failures before the re-enable no longer count (not published). */
    forgetFailures: (formId, tag) => { attempts.delete(keyOf(formId, tag)); },
  };
}

/**
 * The sender of one offline Typeform (offline-typeform.mjs store): submit() stores a response and queues its delivery
 * to the form's webhook; runDue() makes the attempts due by the runtime clock.
 * @param {{ store: any, now: () => number, redirect?: () => ('follow'|'fail'), timeoutMs?: number,
 *   post?: (url: string, body: string, timeoutMs: number) => Promise<{status: number, location: string}>,
 *   follow?: (location: string, timeoutMs: number) => Promise<number> }} options
 */
export function createTypeformSender({ store, now, redirect = () => 'follow', timeoutMs = TIMEOUT_MS, post = postOnce, follow = followOnce }) {
  /** @type {{ formId: string, tag: string, body: string, eventId: string, token: string, firstAt: number, dueAt: number, failures: number }[]} */
  let pending = [];
  const records = createDeliveryRecords();
  const { log } = records;
  const totals = { attempts: 0, delivered: 0, failed: 0, gaveUp: 0, disabled: 0, dropped: 0 };
  let running = null;

  /** Every time a webhook was disabled: {formId, tag, at} (the delivery log keeps only the last 50 attempts). */
  const disables = [];

  function disable(job, at) {
    store.setWebhookEnabled(job.formId, job.tag, false, at);
    totals.disabled += 1;
    disables.push({ formId: job.formId, tag: job.tag, at });
    // A disabled webhook sends nothing more: its queued retries are dropped (Typeform has no manual redelivery).
    const before = pending.length;
    pending = pending.filter((p) => !(p.formId === job.formId && p.tag === job.tag));
    totals.dropped += before - pending.length;
  }

  async function attempt(job) {
    const at = job.dueAt;
    const hook = store.webhookByTag(job.formId, job.tag);
    if (!hook || !hook.enabled) { totals.dropped += 1; return; }
    totals.attempts += 1;
    const mode = redirect();
    const status = await statusOf({ post, follow, timeoutMs }, hook.url, job.body, mode);
    const kind = classify(status, mode);
    const window = records.recordAttempt(job, at, kind === 'delivered');
    if (kind === 'delivered') {
      totals.delivered += 1;
      log(job, { at, status, outcome: 'delivered' });
      return;
    }
    totals.failed += 1;
    const disabledBy = kind === 'disable' ? 'failed: webhook disabled'
      : failingEnoughToDisable(window, at) ? 'failed: webhook disabled (every attempt failing)' : '';
    const next = disabledBy ? null : nextAttemptAt(kind, job.failures + 1, job.firstAt, at);
    log(job, { at, status, outcome: disabledBy || (next === null ? 'failed: no more retries' : `failed: retry at ${new Date(next).toISOString()}`) });
    if (disabledBy) disable(job, at);
    else if (next === null) totals.gaveUp += 1;
    else pending.push({ ...job, failures: job.failures + 1, dueAt: next });
  }

  async function drain() {
    for (;;) {
      const t = now();
      pending.sort((a, b) => a.dueAt - b.dueAt);
      const job = pending[0];
      if (!job || job.dueAt > t) return;
      pending.shift();
      await attempt(job);
    }
  }

  return {
    totals,
    disables,
    get pending() { return pending.length; },
    /**
     * A respondent submits: Typeform stores the response, then sends it to every enabled webhook of the form.
     * @param {string} body a webhook body (event_type form_response)
     */
    submit(body) {
      const item = store.recordDelivery(body);
      if (!item) throw new Error('submit needs a form_response webhook body with form_id and token');
      const json = JSON.parse(body);
      const formId = json.form_response.form_id;
      const at = now();
      for (const hook of store.webhooksOf(formId).filter((h) => h.enabled)) {
        pending.push({ formId, tag: hook.tag, body, eventId: String(json.event_id), token: item.token, firstAt: at, dueAt: at, failures: 0 });
      }
      return item;
    },
    /** Makes every attempt due by the runtime clock, in due order (one at a time; a call during a run waits for it). */
    async runDue() {
      while (running) await running;
      running = drain().finally(() => { running = null; });
      await running;
      return { ...totals, pending: pending.length };
    },
    /** The last attempts of a form's webhook (default: the first), newest last, as Typeform's delivery log shows them. */
    deliveryLog(formId, tag) {
      const hook = tag ? store.webhookByTag(formId, tag) : store.webhooksOf(formId)[0];
      return hook ? records.logOf(formId, hook.tag) : [];
    },
    forgetFailures: records.forgetFailures,
  };
}
