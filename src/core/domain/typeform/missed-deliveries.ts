// What formqueue says everywhere staff look when TYPEFORM_TOKEN is not set: missed deliveries cannot be recovered, and how to fix it.

/** The plain statement, for Set up, the Self-test, the health view, doGet and the daily summary. */
export const MISSED_DELIVERIES_UNRECOVERABLE =
  'Missed Typeform deliveries cannot be recovered: TYPEFORM_TOKEN is not set, so a submission whose webhook never arrived ' +
  '(Google refused the call, Typeform gave up or disabled the webhook) is lost to formqueue, and a disabled webhook goes unnoticed. ' +
  'To fix it, set TYPEFORM_TOKEN (formqueue → Set a Script Property…) to a Typeform personal access token with responses:read, ' +
  'forms:read and webhooks:read: then the webhook is watched every 15 minutes and what it missed is recovered (docs/reconciliation.md).';

/** The statement when the token is not set; null when missed deliveries are recovered. */
export function missedDeliveriesNote(typeformTokenSet: boolean): string | null {
  return typeformTokenSet ? null : MISSED_DELIVERIES_UNRECOVERABLE;
}
