// Which rows need a person and why, and what staff do about each reason: the one rule and the staff-facing words.
import type { QueueRow } from '../domain/queue/queue-row';
import { NEEDS_PERSON_STATUSES, isStatus } from '../domain/queue/statuses';
import { HOUR_MS } from '../domain/time';

/** Why a row waits for a person; each has one label and one next step (NEEDS_PERSON_GUIDE). */
export const NEEDS_PERSON_REASONS = [
  'send-interrupted',
  'mail-outcome-unknown',
  'send-claim-unsettled',
  'already-sent',
  'sent-check-looks-again',
  'mailed-several-times',
  'no-copy-in-sent',
  'sent-from-another-account',
  'restored',
  'copied',
  'sent-check-unproven',
  'parked-by-edit',
  'no-address',
  'mail-refused',
  'prompt-blocked',
  'gemini-refused',
  'gemini-gave-up',
  'failed-other',
  'approval-overdue',
  'unknown-status',
  'suppressed',
] as const;

export type NeedsPersonReason = (typeof NEEDS_PERSON_REASONS)[number];

export interface ReasonGuide {
  /** Which rows: the status and what their `error` cell starts with. */
  when: string;
  /** A few words for the mail's row list. */
  label: string;
  /**
   * What to check, where, and what to set. Written for the staff who get triage mail, who usually cannot open the
   * Sent folder of the account formqueue runs as: the Log sheet and the respondent can answer instead.
   */
  step: string;
  /** What only the person who set formqueue up can do about it (a Script Property): the mail's operator footer. */
  operatorNote?: string;
}

/** Asking whether a reply arrived, without the deploying account's Sent folder. */
const ASK_WHETHER_IT_ARRIVED =
  'Ask the respondent (the address in recipient) whether a mail with this mail_ref arrived, or ask whoever deployed formqueue ' +
  "to search that account's Sent mail for the mail_ref. It arrived: set SENT. It did not: set PENDING (a new reply is written and mailed).";
/** The Sent check (src/core/processing/sent-check-step.ts) settles SENDING rows and rows parked with an unknown outcome. */
const SENT_CHECK_AUTOMATES = 'Whoever set formqueue up can switch on its Sent folder check, which settles such rows by itself.';
/** How the operator switches it on: in the footer, away from the staff's steps. */
const SENT_CHECK_SWITCH = 'Sent folder check: Script Property RECONCILE_SENT_MAIL=true (docs/oauth-scopes.md).';

export const NEEDS_PERSON_GUIDE: Readonly<Record<NeedsPersonReason, ReasonGuide>> = {
  'send-interrupted': {
    when: 'NEEDS_REVIEW, error `STALE_SENDING`',
    label: 'sending was interrupted',
    step:
      'A run stopped while mailing this reply, so nobody knows whether it left. The Log sheet, filtered by the event_id, shows the ' +
      '"claimed for sending" line, then "about to send", and no SENT line after it. A run mails one row at a time, in order, and the rows ' +
      "it had not reached went back by themselves: this is the row to ask about first (the others of that run are not in doubt). " +
      `${ASK_WHETHER_IT_ARRIVED} ${SENT_CHECK_AUTOMATES}`,
    operatorNote: SENT_CHECK_SWITCH,
  },
  'mail-outcome-unknown': {
    when: 'NEEDS_REVIEW, error `MAIL_UNKNOWN`',
    label: 'mail outcome unknown',
    step: `Gmail gave an unclear answer while sending (the error cell and the Log line for the event_id quote it): the mail may or may not have gone. ${ASK_WHETHER_IT_ARRIVED} ${SENT_CHECK_AUTOMATES}`,
    operatorNote: SENT_CHECK_SWITCH,
  },
  'send-claim-unsettled': {
    when: 'NEEDS_REVIEW, error `ALREADY_CLAIMED`',
    label: 'an earlier send never settled',
    step:
      'The Log sheet shows a send of this submission that no later line settles (a paste over status or a cleared sent_at hid it): ' +
      `filter the Log by the event_id to see when it was claimed and who changed the row since. ${ASK_WHETHER_IT_ARRIVED} ${SENT_CHECK_AUTOMATES}`,
    operatorNote: SENT_CHECK_SWITCH,
  },
  'already-sent': {
    when: 'NEEDS_REVIEW, error `ALREADY_SENT`',
    label: 'sent_at is filled',
    step:
      'sent_at is filled, so a reply went out then: the Log line "mailed to the respondent (FQ-…)" for the event_id shows it (no such line ' +
      'means someone filled sent_at by hand: ask them). Set SENT, unless the respondent must get a new reply: then set PENDING.',
  },
  'sent-check-looks-again': {
    when: 'NEEDS_REVIEW, error `SENT_CHECK: no copy in Sent yet…`',
    label: 'the Sent check looks again',
    step:
      'The Sent folder check (RECONCILE_SENT_MAIL) found no copy yet and looks again after the time in the error cell; then it sets SENT ' +
      `itself, or says the row is safe to resend. Nothing to do meanwhile; to settle it sooner: ${ASK_WHETHER_IT_ARRIVED}`,
  },
  'mailed-several-times': {
    when: 'NEEDS_REVIEW, error `SENT_CHECK: mailed N times`',
    label: 'mailed more than once',
    step:
      "The Sent folder check found the reply more than once: the respondent got it, more than once. Set SENT; tell the respondent about the repeat if it matters.",
  },
  'no-copy-in-sent': {
    when: 'NEEDS_REVIEW, error `SENT_CHECK: no copy in Sent`',
    label: 'no copy in Sent',
    step: 'The Sent folder check found no copy after two looks: the reply did not leave. Set PENDING to write and mail it again.',
  },
  'sent-from-another-account': {
    when: 'NEEDS_REVIEW, error `SENT_CHECK: the claim was made by a run as …`',
    label: 'mailed, if at all, from another account',
    step:
      "The send was claimed by a run as another account (a staff member's Process now), so only that account's Sent folder can show " +
      'whether it left: that person searches their Sent mail for the mail_ref. Found: set SENT. Not found: set PENDING.',
  },
  restored: {
    when: 'NEEDS_REVIEW, error `RESTORED`',
    label: 'row removed by hand, put back',
    step:
      'Its row was deleted (or pasted over) before the submission was finished, and formqueue put it back from the Journal. Set PENDING to ' +
      'have it answered, or SKIPPED to drop it (deleting the row only brings it back). If the error names a send claim, look for its mail_ref first.',
  },
  copied: {
    when: 'NEEDS_REVIEW, FAILED or AWAITING_APPROVAL, error `COPIED`',
    label: 'a copy of another row',
    step:
      'Another row (named in the error cell) holds the same submission: a row was copied or pasted over another. Keep one and set SKIPPED on ' +
      'the others; whichever you keep is mailed once.',
  },
  'sent-check-unproven': {
    when: 'NEEDS_REVIEW, error `SENT_CHECK: no proof in Sent…`',
    label: 'Sent cannot tell',
    step:
      'The Sent folder check found no copy, but no later reply either, so the Sent folder cannot tell whether this one left (it may keep no copy of ' +
      `formqueue's mail, or show it late). ${ASK_WHETHER_IT_ARRIVED}`,
  },
  'parked-by-edit': {
    when: 'NEEDS_REVIEW, any other error (a paste or multi-cell edit parked it)',
    label: 'parked by a paste or multi-cell edit',
    step:
      'A paste or multi-cell edit parked the row so nothing unchecked is mailed; the Log line for the event_id says what changed and who did it. ' +
      'If sent_at is filled or the Log has a "mailed to the respondent" line, set SENT; otherwise set PENDING (a new reply is written and mailed), or SKIPPED.',
  },
  'no-address': {
    when: 'FAILED, error `MAIL_PERMANENT: no email address…`',
    label: 'no email address',
    step:
      'The submission gave no email address, so no reply was written. If the answers give another way to reach the person, type the address into ' +
      'recipient and set PENDING; or answer them another way and set SENT; or SKIPPED.',
  },
  'mail-refused': {
    when: 'FAILED, error `MAIL_PERMANENT`',
    label: 'mail refused',
    step: 'The mail was refused for good; the error cell says why (usually the address). Correct recipient and set PENDING, or SKIPPED.',
  },
  'prompt-blocked': {
    when: 'FAILED, error `GEMINI_CONTENT`',
    label: 'Gemini wrote no reply',
    step:
      'Gemini blocked the prompt or wrote nothing; the error cell says why and, when a setting is the cause, which one to change. Read the ' +
      'submission: answer the person yourself and set SENT, or set SKIPPED. PENDING asks Gemini again, which usually ends the same unless the ' +
      "form's prompt in Config changes.",
  },
  'gemini-refused': {
    when: 'FAILED, error `GEMINI_REJECTED`',
    label: 'Gemini refused the request',
    step: 'Gemini refused the request; the error cell has its reason (often the prompt or a setting). Fix what it names and set PENDING; or answer by hand and set SENT, or SKIPPED.',
  },
  'gemini-gave-up': {
    when: 'FAILED, error `GEMINI_RETRYABLE: gave up…`',
    label: 'Gemini kept failing',
    step: 'Gemini kept failing for this row (MAX_ATTEMPTS tries) while it answered others. Set PENDING to try again; if it fails again, answer by hand and set SENT, or SKIPPED.',
  },
  'failed-other': {
    when: 'FAILED, any other error',
    label: 'failed',
    step: 'Read the error cell and fix the cause if you can, then set PENDING to try again; SENT if you answered the person yourself; or SKIPPED.',
  },
  'approval-overdue': {
    when: 'AWAITING_APPROVAL for longer than `APPROVAL_WAIT_HOURS`',
    label: 'waiting for approval',
    step: 'The reply waits for approval. Read result, change it if you like, then set APPROVED (or use Approve selected); SKIPPED if it should not be answered.',
  },
  'unknown-status': {
    when: 'a status formqueue does not know (a paste)',
    label: 'status not known',
    step: 'The status cell holds a word formqueue does not know, so nothing moves this row. Pick the status it should have from the dropdown; the Log line for the event_id shows its last move.',
  },
  suppressed: {
    when: 'NEEDS_REVIEW, error `SUPPRESSED`',
    label: 'address on the Suppressed sheet',
    step:
      'The recipient is on the Suppressed sheet (the error cell says who added it and why: a bounce, or a person who asked not to be mailed), so ' +
      'no reply is mailed to it. Leave it: set SKIPPED (or SENT if you answered another way). If the line is a mistake or the address works again, ' +
      'remove it from Suppressed, correct recipient if needed, and set PENDING: a new reply is written and mailed.',
  },
};

/** When an AWAITING_APPROVAL row began to wait: updated_at (its move there, or a person's last edit of it), else received_at. */
export function approvalWaitingSince(row: Pick<QueueRow, 'updatedAt' | 'receivedAt'>): number | null {
  return row.updatedAt ?? row.receivedAt;
}

/** The error cell's leading code (`CODE: summary`), if it starts with one. */
function errorCode(error: string): string | undefined {
  return /^\s*([A-Z][A-Z_]+):/.exec(error)?.[1];
}

function reviewReason(error: string): NeedsPersonReason {
  switch (errorCode(error)) {
    case 'RESTORED':
      return 'restored';
    case 'COPIED':
      return 'copied';
    case 'STALE_SENDING':
      return 'send-interrupted';
    case 'MAIL_UNKNOWN':
      return 'mail-outcome-unknown';
    case 'ALREADY_CLAIMED':
      return 'send-claim-unsettled';
    case 'ALREADY_SENT':
      return 'already-sent';
    case 'SUPPRESSED':
      return 'suppressed';
    case 'SENT_CHECK':
      if (/\bthe claim was made by a run as\b/.test(error)) return 'sent-from-another-account';
      if (/\bno copy in Sent yet\b/.test(error)) return 'sent-check-looks-again';
      if (/\bmailed \d+ times\b/.test(error)) return 'mailed-several-times';
      if (/\bno proof in Sent\b/.test(error)) return 'sent-check-unproven';
      if (/\bno copy in Sent\b/.test(error)) return 'no-copy-in-sent';
      return 'parked-by-edit';
    default:
      return 'parked-by-edit';
  }
}

function failedReason(error: string): NeedsPersonReason {
  switch (errorCode(error)) {
    case 'COPIED':
      return 'copied';
    case 'MAIL_PERMANENT':
      return /\bno email address\b/.test(error) ? 'no-address' : 'mail-refused';
    case 'GEMINI_CONTENT':
      return 'prompt-blocked';
    case 'GEMINI_REJECTED':
      return 'gemini-refused';
    case 'GEMINI_RETRYABLE':
      return 'gemini-gave-up';
    default:
      return 'failed-other';
  }
}

/**
 * The one rule for "needs a person": FAILED, NEEDS_REVIEW, a status formqueue does not know, and AWAITING_APPROVAL
 * once it has waited `approvalWaitHours` (a younger one is simply waiting its turn; one with no time at all counts,
 * as nobody can show it is young). Null for every other row. `status` is the trimmed cell.
 */
export function needsPersonReason(
  row: Pick<QueueRow, 'error' | 'updatedAt' | 'receivedAt'>,
  status: string,
  now: number,
  approvalWaitHours: number,
): NeedsPersonReason | null {
  if (!isStatus(status)) return 'unknown-status';
  if (!NEEDS_PERSON_STATUSES.includes(status)) return null;
  if (status === 'NEEDS_REVIEW') return reviewReason(row.error);
  if (status === 'FAILED') return failedReason(row.error);
  // AWAITING_APPROVAL, the list's one other state: a copy waits for a person at once.
  if (errorCode(row.error) === 'COPIED') return 'copied';
  const since = approvalWaitingSince(row);
  return since === null || now - since >= approvalWaitHours * HOUR_MS ? 'approval-overdue' : null;
}
