// The one state-machine table (DESIGN §4): every allowed move, and who may make it; staff refusals explained.
import { FINISHED_STATUSES, isStatus, STATUSES, type Status } from '../statuses';

export type Actor = 'system' | 'staff';

/** States a row can be collapsed from: nothing with an outside effect has happened or is in flight. */
export const COLLAPSIBLE_STATUSES: readonly Status[] = ['PENDING', 'READY', 'AWAITING_APPROVAL', 'APPROVED'];

/** States staff may skip: everything not finished (SKIPPED is the way a person ends a row). */
const UNFINISHED_STATUSES: readonly Status[] = STATUSES.filter((status) => !FINISHED_STATUSES.includes(status));

function staffSkips(): Partial<Record<Status, Actor>> {
  return { SKIPPED: 'staff' };
}

/**
 * Allowed moves: TRANSITIONS[from][to] names who may make it. A move that is absent is refused for everyone.
 * Each pair has exactly one actor, so a Log line's `by` always matches the table.
 */
export const TRANSITIONS: Readonly<Record<Status, Readonly<Partial<Record<Status, Actor>>>>> = {
  // PENDING → FAILED: no usable address, so no Gemini call is spent on a reply nobody can receive.
  PENDING: { GENERATING: 'system', FAILED: 'system', DUPLICATE: 'system', ...staffSkips() },
  GENERATING: {
    READY: 'system',
    AWAITING_APPROVAL: 'system',
    PENDING: 'system', // retryable, systemic (attempt restored) or stale: Gemini has no outside effect
    FAILED: 'system',
    ...staffSkips(),
  },
  // READY/APPROVED → NEEDS_REVIEW: sent_at is filled although the status says unsent; never mailed twice.
  READY: { SENDING: 'system', FAILED: 'system', NEEDS_REVIEW: 'system', DUPLICATE: 'system', ...staffSkips() },
  AWAITING_APPROVAL: { APPROVED: 'staff', DUPLICATE: 'system', ...staffSkips() },
  APPROVED: { SENDING: 'system', FAILED: 'system', NEEDS_REVIEW: 'system', DUPLICATE: 'system', ...staffSkips() },
  SENDING: {
    SENT: 'system',
    FAILED: 'system', // permanent: the platform refused before anything left
    NEEDS_REVIEW: 'system', // unknown outcome or stale: it may have reached the person
    READY: 'system', // mail quota refused the send; nothing left
    APPROVED: 'system', // the same for an approved row, so the approval is not lost
    ...staffSkips(),
  },
  SENT: {},
  NEEDS_REVIEW: { PENDING: 'staff', SENT: 'staff', ...staffSkips() },
  FAILED: { PENDING: 'staff', SENT: 'staff', ...staffSkips() },
  SKIPPED: {},
  DUPLICATE: {},
  TEST: {},
};

export function actorOf(from: string, to: string): Actor | null {
  if (!isStatus(from) || !isStatus(to)) return null;
  return TRANSITIONS[from][to] ?? null;
}

export function isSystemMove(from: string, to: string): boolean {
  return actorOf(from, to) === 'system';
}

export function canStaffMove(from: string, to: string): boolean {
  return actorOf(from, to) === 'staff';
}

const STAFF_TARGETS = 'APPROVED (from AWAITING_APPROVAL), PENDING or SENT (from FAILED or NEEDS_REVIEW), or SKIPPED';

/** Why staff may not make this move, in words for the person who tried; null when the move is allowed. */
export function staffMoveRefusal(from: string, to: string): string | null {
  if (canStaffMove(from, to)) return null;
  if (!isStatus(to)) return `"${to}" is not a status; choose one of ${STATUSES.join(', ')}`;
  if (!isStatus(from)) return `the row's status "${from}" is not a status; ask an admin to repair it before moving it`;
  if (from === to) return `the row is already ${to}`;
  if (from === 'SENT') return `SENT rows cannot go back to ${to}: the reply was already mailed`;
  if (from === 'DUPLICATE') return `DUPLICATE rows are final: the same submission is answered by an earlier row`;
  if (from === 'TEST') return `TEST rows are final: test deliveries are never mailed`;
  if (from === 'SKIPPED') return `SKIPPED rows are final: a person already decided not to answer this one`;
  if (actorOf(from, to) === 'system') return `only formqueue moves ${from} rows to ${to}`;
  if (to === 'APPROVED') return `only AWAITING_APPROVAL rows can be approved (this one is ${from})`;
  if (to === 'PENDING') return `only FAILED or NEEDS_REVIEW rows can be retried (this one is ${from})`;
  if (to === 'SENT') {
    return `only FAILED or NEEDS_REVIEW rows can be marked sent by hand (this one is ${from}; formqueue records its own sends)`;
  }
  if (to === 'SKIPPED') return `${from} rows are finished and cannot be skipped`;
  return `staff cannot move ${from} rows to ${to}; staff moves are ${STAFF_TARGETS}`;
}

/** Every state staff may leave a row in by hand: for the dropdown's help text and the console. */
export function staffTargetsFrom(from: string): Status[] {
  if (!isStatus(from)) return [];
  return STATUSES.filter((to) => TRANSITIONS[from][to] === 'staff');
}

export function isUnfinished(status: string): boolean {
  return (UNFINISHED_STATUSES as readonly string[]).includes(status);
}
