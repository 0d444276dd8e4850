// The event_id of a row recovered from Typeform's Responses API, and whether such a row waits for approval.

export const RECONCILED_PREFIX = 'reconciled:';

/** A response has no webhook event_id; its token (the response id) makes a stable one. */
export function reconciledEventId(responseToken: string): string {
  return `${RECONCILED_PREFIX}${responseToken}`;
}

/** A row recovered from Typeform's Responses API rather than delivered by its webhook. */
export function isReconciledEventId(eventId: string): boolean {
  return eventId.startsWith(RECONCILED_PREFIX);
}

/**
 * Whether a recovered row waits for a person. It was queued only because no sheet, the Journal (every submission ever
 * accepted) nor the spill held its response, so formqueue never answered it, and the send ledger is checked again
 * before its mail. A young one (submitted less than `autoSendHours` ago) is answered as its form says; an older one,
 * or one whose submitted_at cannot be read, waits: a reply that late may surprise, or it was answered another way.
 * `autoSendHours` 0 holds every one (docs/reconciliation.md).
 */
export function recoveredNeedsApproval(eventId: string, submittedAt: number | null, now: number, autoSendHours: number): boolean {
  if (!isReconciledEventId(eventId)) return false;
  if (autoSendHours <= 0 || submittedAt === null) return true;
  return now - submittedAt >= autoSendHours * 3_600_000;
}
