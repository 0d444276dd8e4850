// Webhook authentication by URL token: Apps Script shows doPost no headers, so Typeform's signature cannot be checked (see docs/platform.md#web-apps).
import { tokenProblem } from '../domain/config/settings';

/** Compares in time that depends only on the lengths, so a caller learns nothing from how long a wrong token takes. */
export function constantTimeEquals(given: string, expected: string): boolean {
  let difference = given.length ^ expected.length;
  // Past the end of `given`, charCodeAt is NaN and `| 0` makes it 0: the loop length never depends on the guess.
  for (let i = 0; i < expected.length; i++) difference |= (given.charCodeAt(i) | 0) ^ expected.charCodeAt(i);
  return difference === 0;
}

export type TokenVerdict = 'current' | 'previous' | 'wrong' | 'missing' | 'not_configured' | 'weak';

/**
 * Checks the URL token against WEBHOOK_TOKEN and, during a rotation, WEBHOOK_TOKEN_PREVIOUS. A configured token
 * too short or too plain to resist guessing opens nothing ('weak'); a weak previous token is simply not accepted.
 */
export function checkWebhookToken(given: string | undefined, current: string, previous: string): TokenVerdict {
  if (current === '') return 'not_configured';
  if (tokenProblem(current) !== null) return 'weak';
  if (given === undefined || given === '') return 'missing';
  // Both comparisons always run, so timing does not tell which token matched.
  const matchesCurrent = constantTimeEquals(given, current);
  // An unset previous token ('') never matches: `given` is not empty here.
  const matchesPrevious = tokenProblem(previous) === null && constantTimeEquals(given, previous);
  if (matchesCurrent) return 'current';
  if (matchesPrevious) return 'previous';
  return 'wrong';
}
