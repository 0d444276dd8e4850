// The Sent-folder check for a send claim whose outcome was never recorded (a row in SENDING, or parked in NEEDS_REVIEW
// for it): which rows, when to look, which copies count, and what a look decides (pure; the Gmail search is a port,
// src/gas/sent-mailbox.ts).
import type { Code } from '../domain/failures/codes';
import { standingSendClaim, unrecordedSendClaim } from '../domain/mail/mail-guard';
import type { SentCopy } from '../domain/ports';
import type { LogEntry } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { factsOf } from '../domain/mail/send-ledger';
import type { Settings } from '../domain/config/settings';
import { MINUTE_MS } from '../domain/time';

/** Sent search may lag behind the send: the second look comes at least this long after the first. */
export const SECOND_LOOK_AFTER_MS = 45 * MINUTE_MS;
/**
 * The search starts this long before the claim: Gmail compares `after:<seconds>` to the second and the clocks of
 * Apps Script and Gmail are not one clock. A wider window can only find more copies (→ a person), never fewer.
 */
export const SEARCH_MARGIN_MS = 60 * 1000;

/**
 * A run lasts at most 6 minutes (https://developers.google.com/apps-script/guides/services/quotas), so a claim's mail,
 * if it went, went before this long after the claim; a reply sent later than that was sent after it.
 */
export const CLAIM_SETTLED_AFTER_MS = 7 * MINUTE_MS;

/**
 * The second look's "no copy" when Sent does not show a later reply either: whether MailApp keeps a copy in Sent, and
 * how soon search finds it, Google does not document (docs/platform.md#unknowns, the `sentCopy` world), so an empty
 * search proves nothing by itself.
 */
export const NO_PROOF_IN_SENT =
  'no proof in Sent either way: no copy of this reply, and none of the replies sent after it either (Sent may keep no copies, or lag)';

/** Written in the row's `error` cell after an empty first look; the next run reads the look's time back from it. */
export const NO_COPY_YET = 'no copy in Sent yet at';
/** The Log detail of the one automatic resend (RECONCILE_RESEND); counted so there is never a second. */
export const RESEND_AFTER_CHECK = 'no copy in Sent after two looks; sent once more (RECONCILE_RESEND)';

/** What the row and the Log say about the claim and the looks so far. */
export interface SentCheckState {
  claimedAt: number;
  /** The status the row was claimed from (READY or APPROVED): where a resend puts it back. */
  claimedFrom: string;
  /** When a first look found no copy, or null before the first look. */
  firstEmptyLookAt: number | null;
  /** Automatic resends this submission already had. */
  resends: number;
  /** The account the claim was made as (its Log line's `sender`), '' when the line does not name one. */
  sender: string;
}

/** A stale-able SENDING row with a reference to search. */
export function isUnknownOutcome(row: Pick<QueueRow, 'status' | 'sentAt' | 'mailRef' | 'claimedAt'>): boolean {
  return row.status === 'SENDING' && row.sentAt === null && row.mailRef !== '' && row.claimedAt !== null;
}

/**
 * The reasons a row is parked in NEEDS_REVIEW with when nobody knows whether its mail went: the stale sweep with the
 * check off, a send error that may have mailed, a claim the Log shows unsettled. Any other NEEDS_REVIEW is a person's.
 */
export const UNKNOWN_OUTCOME_CODES: readonly Code[] = ['STALE_SENDING', 'MAIL_UNKNOWN', 'ALREADY_CLAIMED'];

/**
 * A NEEDS_REVIEW row parked with an unknown mail outcome (by the code its `error` starts with), or one whose first
 * look found no copy yet. Whether its claim still stands unmailed is the Log's to say (sentCheckState).
 */
export function isParkedUnknownOutcome(row: Pick<QueueRow, 'status' | 'sentAt' | 'mailRef' | 'error'>): boolean {
  if (row.status !== 'NEEDS_REVIEW' || row.sentAt !== null || row.mailRef === '') return false;
  return UNKNOWN_OUTCOME_CODES.some((code) => row.error.startsWith(`${code}: `)) || row.error.startsWith(`SENT_CHECK: ${NO_COPY_YET} `);
}

/** The rows the check is for: in SENDING, or parked in NEEDS_REVIEW, with the outcome of their claim unknown. */
export function isSentCheckCandidate(row: Pick<QueueRow, 'status' | 'sentAt' | 'mailRef' | 'claimedAt' | 'error'>): boolean {
  return isUnknownOutcome(row) || isParkedUnknownOutcome(row);
}

function firstEmptyLookNoted(error: string): number {
  const noted = new RegExp(`${NO_COPY_YET} (\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z)`).exec(error);
  return noted ? Date.parse(noted[1]) : NaN;
}

/**
 * The claim and the looks so far, or null when there is nothing to check. A SENDING row carries its claim time; a
 * parked row's was cleared, so the Log's claim line is the record, and only while it stands with no SENT after it.
 */
export function sentCheckState(row: Pick<QueueRow, 'status' | 'claimedAt' | 'error'>, history: readonly LogEntry[]): SentCheckState | null {
  const parked = row.status === 'NEEDS_REVIEW';
  const claim = parked ? unrecordedSendClaim(history) : standingSendClaim(history);
  const claimedAt = parked ? (claim?.at ?? null) : row.claimedAt;
  if (claimedAt === null) return null;
  const firstAt = firstEmptyLookNoted(row.error);
  return {
    claimedAt,
    claimedFrom: claim?.from ?? 'READY',
    // A note from before this claim (or one a person edited into nonsense) counts as no look: one more look, never fewer.
    firstEmptyLookAt: Number.isFinite(firstAt) && firstAt >= claimedAt ? firstAt : null,
    resends: history.filter((entry) => entry.by === 'system' && entry.detail.includes(RESEND_AFTER_CHECK)).length,
    sender: claim === null ? '' : (factsOf(claim.detail).sender ?? ''),
  };
}

/**
 * The one rule for whose Sent folder can settle a claim: MailApp sends from the account the claiming execution ran as
 * (the trigger's creator, or the staff member who chose Process now), and the check can search only the mailbox of
 * the account it runs as. A claim made as another account (or one the Log does not name) is never judged from this
 * mailbox, where "no copy" would prove nothing: a person is told which Sent folder to look in.
 */
export function otherMailboxReview(state: Pick<SentCheckState, 'sender'>, searching: string, mailRef: string): SentCheckDecision | null {
  if (state.sender.toLowerCase() === searching.toLowerCase()) return null;
  // An account without a name cannot take "'s": "an account the Log does not name's Sent folder" is no sentence.
  const sender = state.sender === '' ? 'an account the Log does not name' : state.sender;
  const senderFolder = state.sender === '' ? "that account's Sent folder" : `${state.sender}'s Sent folder`;
  const searchedFolder = searching === '' ? 'the Sent folder of the account this run runs as' : `${searching}'s`;
  return {
    kind: 'review',
    detail:
      `the claim was made by a run as ${sender}, so the mail, if it went, is in ${senderFolder}; the check can search only ${searchedFolder}. ` +
      `Look for ${mailRef} there: set SENT if it is there, PENDING for a new reply if it is not`,
  };
}

/**
 * When a parked row's next look is due as far as the row alone says (for the tick gate), or null when the row does
 * not say: the second look 45 minutes after a noted first one; a first look no sooner than STALE_SENDING_MINUTES
 * after it was parked (its claim came before). Only future times: a look that is due now was this run's to make.
 */
export function parkedLookAt(row: Pick<QueueRow, 'error' | 'updatedAt'>, now: number, settings: Pick<Settings, 'staleSendingMinutes'>): number | null {
  const firstAt = firstEmptyLookNoted(row.error);
  const at = Number.isFinite(firstAt) ? firstAt + SECOND_LOOK_AFTER_MS : row.updatedAt === null ? null : row.updatedAt + settings.staleSendingMinutes * MINUTE_MS;
  return at !== null && at > now ? at : null;
}

export type LookDue = { kind: 'not-yet'; at: number } | { kind: 'look'; look: 1 | 2 };

/** The first look no sooner than STALE_SENDING_MINUTES after the claim; the second at least 45 minutes after the first. */
export function lookDue(state: SentCheckState, now: number, settings: Pick<Settings, 'staleSendingMinutes'>): LookDue {
  const at = state.firstEmptyLookAt === null ? state.claimedAt + settings.staleSendingMinutes * MINUTE_MS : state.firstEmptyLookAt + SECOND_LOOK_AFTER_MS;
  if (now < at) return { kind: 'not-yet', at };
  return { kind: 'look', look: state.firstEmptyLookAt === null ? 1 : 2 };
}

/** The Gmail query for a row's copies: its reference as a phrase, sent after the claim (less the margin), in seconds. */
export function sentQuery(mailRef: string, claimedAt: number): string {
  return `in:sent "${mailRef}" after:${Math.floor((claimedAt - SEARCH_MARGIN_MS) / 1000)}`;
}

/** The bare addresses of a To header ("Ann <a@x.org>, b@y.org" → a@x.org, b@y.org), lower case. */
function addressesOf(header: string): string[] {
  return header
    .split(',')
    .map((part) => (/<([^>]+)>/.exec(part)?.[1] ?? part).trim().toLowerCase())
    .filter((address) => address !== '');
}

/** A search hit counts only if it carries the reference in its subject or body and went to the row's recipient. */
export function countsAsCopy(copy: SentCopy, mailRef: string, recipient: string): boolean {
  const ref = mailRef.toLowerCase();
  const carriesRef = copy.subject.toLowerCase().includes(ref) || copy.body.toLowerCase().includes(ref);
  return carriesRef && addressesOf(copy.to).includes(recipient.trim().toLowerCase());
}

/**
 * The reply whose copy in Sent proves the folder complete up to the claim: one formqueue sent (SENT, with its mail_ref
 * and sent_at) after the claim's mail would have gone, the earliest such (the likeliest to be found by now). Its copy
 * found means search has indexed mail sent after the claim, so the claim's own copy, had it gone, would be found too.
 */
export function laterReply(rows: readonly QueueRow[], claimedAt: number): QueueRow | null {
  let best: QueueRow | null = null;
  for (const row of rows) {
    if (row.status !== 'SENT' || row.mailRef === '' || row.sentAt === null || row.sentAt < claimedAt + CLAIM_SETTLED_AFTER_MS) continue;
    if (best === null || row.sentAt < (best.sentAt as number)) best = row;
  }
  return best;
}

export type SentCheckDecision =
  | { kind: 'sent'; sentAt: number; detail: string }
  | { kind: 'review'; detail: string }
  | { kind: 'look-again'; note: string }
  | { kind: 'resend'; to: 'READY' | 'APPROVED'; detail: string };

/**
 * What one look decides from the copies that count: exactly 1 → SENT; 2 or more → a person; none at the first look →
 * look again; none at the second → safe to resend (once by itself with RECONCILE_RESEND, never a second time), but
 * only when Sent shows a reply sent after the claim (`laterReplyInSent`, see laterReply); without that proof, a person.
 */
export function decideLook(input: {
  look: 1 | 2;
  copies: readonly SentCopy[];
  state: SentCheckState;
  resendAllowed: boolean;
  /** At the second look with no copy: whether Sent shows a formqueue reply sent after the claim. */
  laterReplyInSent: boolean;
  now: number;
  iso: (ms: number) => string;
}): SentCheckDecision {
  const { copies, state } = input;
  if (copies.length === 1) return { kind: 'sent', sentAt: copies[0].sentAt, detail: `confirmed in Sent (message id ${copies[0].id})` };
  if (copies.length > 1) {
    return { kind: 'review', detail: `mailed ${copies.length} times (message ids ${copies.map((copy) => copy.id).join(', ')}); a person must look` };
  }
  if (input.look === 1) {
    return { kind: 'look-again', note: `${NO_COPY_YET} ${input.iso(input.now)}; looking again after ${input.iso(input.now + SECOND_LOOK_AFTER_MS)}` };
  }
  if (!input.laterReplyInSent) return { kind: 'review', detail: NO_PROOF_IN_SENT };
  if (input.resendAllowed && state.resends === 0 && (state.claimedFrom === 'READY' || state.claimedFrom === 'APPROVED')) {
    return { kind: 'resend', to: state.claimedFrom, detail: RESEND_AFTER_CHECK };
  }
  return { kind: 'review', detail: 'no copy in Sent: safe to resend — set PENDING' };
}
