// The event_id of a row recovered from Typeform's Responses API: marks it as reconciled, so it waits for approval.

export const RECONCILED_PREFIX = 'reconciled:';

/** A response has no webhook event_id; its token (the response id) makes a stable one. */
export function reconciledEventId(responseToken: string): string {
  return `${RECONCILED_PREFIX}${responseToken}`;
}

/** A recovered row is never mailed before a person approves it: nobody saw this submission arrive. */
export function isReconciledEventId(eventId: string): boolean {
  return eventId.startsWith(RECONCILED_PREFIX);
}
