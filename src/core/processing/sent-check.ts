// The Sent-folder check for a SENDING claim whose outcome was never recorded: when to look, which copies count, and
// what a look decides (pure; the Gmail search is a port, src/gas/sent-mailbox.ts).
import { standingSendClaim } from '../mail-guard';
import type { LogEntry, SentCopy } from '../ports';
import type { QueueRow } from '../queue-row';
import type { Settings } from '../settings';
import { MINUTE_MS } from '../time';

/** Sent search may lag behind the send: the second look comes at least this long after the first. */
export const SECOND_LOOK_AFTER_MS = 45 * MINUTE_MS;
/**
 * The search starts this long before the claim: Gmail compares `after:<seconds>` to the second and the clocks of
 * Apps Script and Gmail are not one clock. A wider window can only find more copies (→ a person), never fewer.
 */
export const SEARCH_MARGIN_MS = 60 * 1000;

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
}

/** A stale-able SENDING row with a reference to search: the only rows the check is for. */
export function isUnknownOutcome(row: Pick<QueueRow, 'status' | 'sentAt' | 'mailRef' | 'claimedAt'>): boolean {
  return row.status === 'SENDING' && row.sentAt === null && row.mailRef !== '' && row.claimedAt !== null;
}

export function sentCheckState(row: Pick<QueueRow, 'claimedAt' | 'error'>, history: readonly LogEntry[]): SentCheckState | null {
  if (row.claimedAt === null) return null;
  const claim = standingSendClaim(history);
  const noted = new RegExp(`${NO_COPY_YET} (\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z)`).exec(row.error);
  const firstAt = noted ? Date.parse(noted[1]) : NaN;
  return {
    claimedAt: row.claimedAt,
    claimedFrom: claim?.from ?? 'READY',
    // A note from before this claim (or one a person edited into nonsense) counts as no look: one more look, never fewer.
    firstEmptyLookAt: Number.isFinite(firstAt) && firstAt >= row.claimedAt ? firstAt : null,
    resends: history.filter((entry) => entry.by === 'system' && entry.detail.includes(RESEND_AFTER_CHECK)).length,
  };
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

export type SentCheckDecision =
  | { kind: 'sent'; sentAt: number; detail: string }
  | { kind: 'review'; detail: string }
  | { kind: 'look-again'; note: string }
  | { kind: 'resend'; to: 'READY' | 'APPROVED'; detail: string };

/**
 * What one look decides from the copies that count: exactly 1 → SENT; 2 or more → a person; none at the first look →
 * look again; none at the second → safe to resend: once by itself with RECONCILE_RESEND, never a second time.
 */
export function decideLook(input: {
  look: 1 | 2;
  copies: readonly SentCopy[];
  state: SentCheckState;
  resendAllowed: boolean;
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
  if (input.resendAllowed && state.resends === 0 && (state.claimedFrom === 'READY' || state.claimedFrom === 'APPROVED')) {
    return { kind: 'resend', to: state.claimedFrom, detail: RESEND_AFTER_CHECK };
  }
  return { kind: 'review', detail: 'no copy in Sent: safe to resend — set PENDING' };
}
