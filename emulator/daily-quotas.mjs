// Apps Script's daily quotas per user: each a window that opens at the user's first request and resets 24 h later.
//
// "Quotas are per user and reset 24 hours after the first request" and the figures per account kind are on
// https://developers.google.com/apps-script/guides/services/quotas (Email recipients per day 100 / 1,500, Triggers total
// runtime 90 min / 6 hr, URL Fetch calls 20,000 / 100,000, consumer / Workspace). Error texts, as real executions report
// them (the quotas page lists none of these three):
// - mail: "Service invoked too many times for one day: email." (GmailApp/MailApp failures quoted in
//   https://github.com/shabuthomas/gmail-delay-send/issues/34 and many more);
// - trigger runtime: "Service using too much computer time for one day", the error of every refused time-based run in
//   Google's failure summary mails (https://github.com/webdigi/GmailScheduler/issues/31,
//   https://github.com/btoews/OctoGAS/issues/16; start and end in the same minute: refused before the script runs);
// - URL Fetch: "Service invoked too many times for one day: urlfetch."
//   (https://github.com/bumbleshoot/automate-habitica/issues/10).

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The quotas page's figures by account kind (host option `account`). */
export const ACCOUNT_LIMITS = Object.freeze({
  consumer: Object.freeze({ mailRecipients: 100, triggerRuntimeMs: 90 * 60 * 1000, urlFetchCalls: 20000 }),
  workspace: Object.freeze({ mailRecipients: 1500, triggerRuntimeMs: 6 * 60 * 60 * 1000, urlFetchCalls: 100000 }),
});

export const MAIL_QUOTA_EXCEEDED = 'Service invoked too many times for one day: email.';
export const TRIGGER_RUNTIME_EXCEEDED = 'Service using too much computer time for one day';
export const URLFETCH_QUOTA_EXCEEDED = 'Service invoked too many times for one day: urlfetch.';

/** @typedef {{ since: number, used: number }} QuotaWindow  when the user's first request of the window came, and what it used */
/** @typedef {Record<string, QuotaWindow>} QuotaTable  user email → their window */

/** What `user` used in their window as of `now`: 0 when they have none or it is 24 h old. Opens no window. */
export function usedIn(/** @type {QuotaTable} */ table, /** @type {string} */ user, /** @type {number} */ now) {
  const w = table[user];
  return w && now - w.since < DAY_MS ? w.used : 0;
}

/** Counts `amount` against `user`'s window, opening a new one at `now` when there is none or it is 24 h old. */
export function spend(/** @type {QuotaTable} */ table, /** @type {string} */ user, /** @type {number} */ now, /** @type {number} */ amount) {
  let w = table[user];
  if (!w || now - w.since >= DAY_MS) w = table[user] = { since: now, used: 0 };
  w.used += amount;
  return w;
}

/** When `user`'s window resets (host ms), or null when they have no open one at `now`. */
export function resetsAt(/** @type {QuotaTable} */ table, /** @type {string} */ user, /** @type {number} */ now) {
  const w = table[user];
  return w && now - w.since < DAY_MS ? w.since + DAY_MS : null;
}

/**
 * A saved table back as windows. A table saved before quotas were windows holds a calendar day per user
 * ({ day: 'YYYY-MM-DD', used }): its window is taken to have opened at that day's UTC midnight.
 * @param {Record<string, any> | undefined} saved @returns {QuotaTable}
 */
export function restoreTable(saved) {
  /** @type {QuotaTable} */
  const table = {};
  for (const [user, w] of Object.entries(saved ?? {})) {
    const since = typeof w?.since === 'number' ? w.since : Date.parse(`${w?.day}T00:00:00Z`);
    if (Number.isFinite(since)) table[user] = { since, used: Number(w.used) || 0 };
  }
  return table;
}
