// Back-off values with a fixed Random, and the one retry-or-give-up decision.
import { describe, expect, it } from 'vitest';
import { decideRetry, MAX_BACKOFF_SECONDS, nextAttemptAt } from '../../../src/core/processing/backoff';
import { fixedRandom, T0 } from '../memory-ports';

const base = { retryBaseSeconds: 60 };
const delaySeconds = (attempt: number, random: number, retryAfter?: number) =>
  (nextAttemptAt(attempt, T0, base, fixedRandom(random), retryAfter) - T0) / 1000;

describe('nextAttemptAt', () => {
  it.each([
    [1, 0.5, 60],
    [2, 0.5, 120],
    [3, 0.5, 240],
    [4, 0.5, 480],
    [1, 0, 48],
    [1, 0.999999, 72],
    [3, 0, 192],
    [7, 0.5, MAX_BACKOFF_SECONDS],
    [30, 0, MAX_BACKOFF_SECONDS],
  ])('attempt %i with random %f waits %f s (base·2^(attempt−1), ±20 %% jitter, capped)', (attempt, random, seconds) => {
    expect(delaySeconds(attempt, random)).toBeCloseTo(seconds, 2);
  });

  it("never retries earlier than Gemini's retryDelay", () => {
    expect(delaySeconds(1, 0.5, 90)).toBe(90);
    expect(delaySeconds(3, 0.5, 17)).toBe(240);
  });

  it.each([[0], [-30], [Number.NaN]])('a retryDelay of %f is no floor at all', (retryAfter) => {
    expect(delaySeconds(1, 0.5, retryAfter)).toBe(60);
  });

  it('a retryDelay beyond the cap is honoured: Gemini knows when its quota returns', () => {
    expect(delaySeconds(1, 0.5, 7200)).toBe(7200);
  });
});

describe('decideRetry', () => {
  it.each([
    [1, 5, 'retry'],
    [4, 5, 'retry'],
    [5, 5, 'give-up'],
    [6, 5, 'give-up'],
    [1, 1, 'give-up'],
  ])('after %i attempts of %i: %s', (attempts, max, decision) => {
    expect(decideRetry(attempts, max)).toBe(decision);
  });
});
