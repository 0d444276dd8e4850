// Retry timing for generation: capped exponential back-off with jitter, and the one retry-or-give-up decision.
import type { Random } from '../domain/ports';
import type { Settings } from '../domain/config/settings';

/** No retry waits longer than this, whatever the attempt: a queued reply an hour late is the worst we accept. */
export const MAX_BACKOFF_SECONDS = 3600;

/** ±20 %: enough to spread rows that failed together (one 503 burst) across different runs, still predictable for staff. */
export const JITTER_FRACTION = 0.2;

/**
 * When a PENDING row may be generated again after its `attempt`-th try failed (attempt counts from 1):
 * RETRY_BASE_SECONDS·2^(attempt−1), times a jitter factor uniform in [0.8, 1.2), capped at MAX_BACKOFF_SECONDS,
 * and never earlier than Gemini's own RetryInfo.retryDelay (which may exceed the cap: Gemini knows best).
 */
export function nextAttemptAt(
  attempt: number,
  now: number,
  settings: Pick<Settings, 'retryBaseSeconds'>,
  random: Random,
  retryAfterSeconds?: number,
): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  const exponential = settings.retryBaseSeconds * Math.pow(2, Math.min(exponent, 30));
  const jitter = 1 - JITTER_FRACTION + 2 * JITTER_FRACTION * random.next();
  const delaySeconds = Math.min(exponential * jitter, MAX_BACKOFF_SECONDS);
  const floorSeconds = retryAfterSeconds !== undefined && retryAfterSeconds > 0 ? retryAfterSeconds : 0;
  return now + Math.round(Math.max(delaySeconds, floorSeconds) * 1000);
}

export type RetryDecision = 'retry' | 'give-up';

/** After `attempts` tries (this one included) failed retryably: try again, or hand the row to a person. */
export function decideRetry(attempts: number, maxAttempts: number): RetryDecision {
  return attempts < maxAttempts ? 'retry' : 'give-up';
}
