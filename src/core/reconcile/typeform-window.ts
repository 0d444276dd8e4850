// Which responses a reconciliation reads, how it pages through them, and how it paces its requests.
import { HOUR_MS } from '../domain/time';

/**
 * From 48 h to 12 h ago: Typeform retries a failed delivery for up to 10 h
 * (https://www.typeform.com/developers/webhooks/), so by 12 h every webhook that will ever come has come;
 * 36 h wide, a daily run sees each response at least once even after a missed night.
 */
export const WINDOW_FROM_HOURS = 48;
export const WINDOW_TO_HOURS = 12;
/** Typeform's largest page (https://www.typeform.com/developers/responses/reference/retrieve-responses/). */
export const PAGE_SIZE = 1000;
/**
 * "2 requests per second per account" for the Create and Responses APIs
 * (https://www.typeform.com/developers/get-started/#rate-limits): one request every 500 ms at most.
 */
export const MIN_REQUEST_GAP_MS = 500;
/** A 429 is waited out this many times (Retry-After, else 1 s) before the form is given up for this run. */
export const MAX_RATE_LIMIT_RETRIES = 3;

export interface ResponseWindow {
  /** Typeform's since/until: ISO 8601 UTC to the second, T between date and time (inclusive both ends). */
  since: string;
  until: string;
}

function typeformTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** The longest look back when checks could not run for days: Typeform's pages are read 1,000 responses at a time. */
export const MAX_CATCH_UP_DAYS = 30;

/**
 * From 48 h to 12 h ago; when the last complete check ended its window earlier than 48 h ago (no check could run for
 * more than 36 h), from where that window ended, so no response falls between two checks (at most MAX_CATCH_UP_DAYS).
 * `lastCompleteUntil`: the `until` of the last check that read every form (epoch ms), or null when unknown.
 */
export function responseWindow(now: number, lastCompleteUntil: number | null = null): ResponseWindow {
  const usual = now - WINDOW_FROM_HOURS * HOUR_MS;
  const from = lastCompleteUntil !== null && lastCompleteUntil < usual ? Math.max(lastCompleteUntil, now - MAX_CATCH_UP_DAYS * 24 * HOUR_MS) : usual;
  return { since: typeformTime(from), until: typeformTime(now - WINDOW_TO_HOURS * HOUR_MS) };
}

/** A window bound (Typeform's time, UTC) as epoch ms; null when it is not one. */
export function windowTime(bound: string): number | null {
  const ms = Date.parse(`${bound}Z`);
  return Number.isFinite(ms) ? ms : null;
}

/** The query of one page: the window, the largest page, and `before` the last token of the page before. */
export function pageQuery(window: ResponseWindow, before: string | null): Record<string, string> {
  const query: Record<string, string> = { since: window.since, until: window.until, page_size: String(PAGE_SIZE) };
  if (before !== null) query.before = before;
  return query;
}

/** Responses come newest first: a full page may have more behind its last token; a short page is the end. */
export function nextBefore(tokens: readonly string[]): string | null {
  return tokens.length < PAGE_SIZE ? null : (tokens[tokens.length - 1] ?? null);
}

/** How long to wait before the next request so no two are closer than MIN_REQUEST_GAP_MS. */
export function waitBeforeRequestMs(lastRequestAt: number | null, now: number): number {
  if (lastRequestAt === null) return 0;
  return Math.max(0, lastRequestAt + MIN_REQUEST_GAP_MS - now);
}

/** The wait a 429 asks for: its Retry-After in seconds, else one second. */
export function rateLimitWaitMs(retryAfterSeconds: number | null): number {
  return retryAfterSeconds !== null && retryAfterSeconds > 0 ? Math.min(retryAfterSeconds, 60) * 1000 : 1000;
}
