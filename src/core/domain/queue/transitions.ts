// The one state-machine table: every allowed move and who may make it; the guard, menu, dropdown help and docs derive from it.
import { FINISHED_STATUSES, isStatus, STATUSES, type Status } from './statuses';

export type Actor = 'system' | 'staff';
/** Who may make a move: one actor, or both (a person who checked by hand, or the Sent check that found the copy). */
export type Movers = Actor | 'staff and system';

/** States staff may skip: everything not finished (SKIPPED is the way a person ends a row). */
const UNFINISHED_STATUSES: readonly Status[] = STATUSES.filter((status) => !FINISHED_STATUSES.includes(status));

function staffSkips(): Partial<Record<Status, Movers>> {
  return { SKIPPED: 'staff' };
}

/**
 * Allowed moves: TRANSITIONS[from][to] names who may make it. A move that is absent is refused for everyone.
 * A Log line's `by` (system, or a person) always matches the table.
 */
export const TRANSITIONS: Readonly<Record<Status, Readonly<Partial<Record<Status, Movers>>>>> = {
  // PENDING → FAILED: no usable address, so no Gemini call is spent on a reply nobody can receive.
  // PENDING → NEEDS_REVIEW: the address is on the Suppressed sheet; no Gemini call for a reply that may not be mailed.
  PENDING: { GENERATING: 'system', FAILED: 'system', DUPLICATE: 'system', NEEDS_REVIEW: 'system', ...staffSkips() },
  GENERATING: {
    READY: 'system',
    AWAITING_APPROVAL: 'system',
    PENDING: 'system', // retryable, systemic (attempt restored) or stale: Gemini has no outside effect
    FAILED: 'system',
    ...staffSkips(),
  },
  // READY/APPROVED → NEEDS_REVIEW: sent_at is filled although the status says unsent; never mailed twice.
  // READY → AWAITING_APPROVAL: the reply breaks the reply policy (a READY row from before it, or one staff edited),
  // or approval was switched on for the form after the reply was written; either way a person decides.
  READY: { SENDING: 'system', FAILED: 'system', NEEDS_REVIEW: 'system', DUPLICATE: 'system', AWAITING_APPROVAL: 'system', ...staffSkips() },
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
  // The system's moves out of NEEDS_REVIEW are the Sent check's alone (RECONCILE_SENT_MAIL), for a row parked with an
  // unknown mail outcome whose Log still shows the send claim: one copy in Sent → SENT; none after two looks and
  // RECONCILE_RESEND → back to the state it was claimed from, once (sent-check.ts). Never on the status alone.
  NEEDS_REVIEW: { PENDING: 'staff', SENT: 'staff and system', READY: 'system', APPROVED: 'system', ...staffSkips() },
  FAILED: { PENDING: 'staff', SENT: 'staff', ...staffSkips() },
  SKIPPED: {},
  DUPLICATE: {},
  TEST: {},
};

/** Why the system makes a move, where the target alone does not say it (the docs print these). */
export const SYSTEM_MOVE_NOTES: Readonly<Partial<Record<Status, Readonly<Partial<Record<Status, string>>>>>> = {
  PENDING: { GENERATING: 'claimed', NEEDS_REVIEW: 'address suppressed' },
  READY: { SENDING: 'claimed', AWAITING_APPROVAL: 'reply policy, or approval switched on' },
  APPROVED: { SENDING: 'claimed' },
  GENERATING: { AWAITING_APPROVAL: 'approval on, or the reply policy' },
  SENDING: { READY: 'mail quota, the reply policy, or the send window closed', APPROVED: 'mail quota, or the send window closed' },
  NEEDS_REVIEW: { SENT: 'one copy in Sent', READY: 'no copy in Sent, resent once', APPROVED: 'no copy in Sent, resent once' },
};

/**
 * System moves made only on evidence a paste cannot write (the Log's send claim and the Sent folder), never because
 * of the status: a multi-cell edit may leave their source state as typed (UNCHECKED_KEEPS).
 */
const EVIDENCE_MOVES_FROM: readonly Status[] = ['NEEDS_REVIEW'];

interface StaffMoveWords {
  /** "only … rows can be <passive>". */
  passive: string;
  /** A word after the state in docs/states.md, when the state alone does not say what the move is for. */
  docs?: string;
  /** Said after "this one is X" in a refusal, when the reason needs more. */
  refusalTail?: string;
  /** The Log line's detail; `by` is the staff member. */
  log(by: string): string;
}

/** The words for each state staff may move a row to: refusals and Log lines use them. */
export const STAFF_MOVE_WORDS: Readonly<Partial<Record<Status, StaffMoveWords>>> = {
  APPROVED: { passive: 'approved', log: () => 'approved' },
  PENDING: { passive: 'retried', docs: 'retry', log: () => 'retry: generate and mail again' },
  SENT: { passive: 'marked sent by hand', docs: 'checked by hand', refusalTail: 'formqueue records its own sends', log: (by) => `marked sent by ${by} after checking by hand` },
  SKIPPED: { passive: 'skipped', log: () => 'skipped: will not be answered' },
};

/** Who may move a row from `from` to `to` (none when the move is refused for everyone). */
export function moversOf(from: string, to: string): Actor[] {
  if (!isStatus(from) || !isStatus(to)) return [];
  const movers = TRANSITIONS[from][to];
  if (movers === undefined) return [];
  return movers === 'staff and system' ? ['staff', 'system'] : [movers];
}

function mayMove(actor: Actor, from: string, to: string): boolean {
  return moversOf(from, to).includes(actor);
}

export function isSystemMove(from: string, to: string): boolean {
  return mayMove('system', from, to);
}

export function canStaffMove(from: string, to: string): boolean {
  return mayMove('staff', from, to);
}

/** Every state `actor` may move a row to from `from`, in STATUSES order. */
export function targetsFrom(from: string, actor: Actor): Status[] {
  // No test of `from` here: moversOf gives no mover for a value that is not a status.
  return STATUSES.filter((to) => mayMove(actor, from, to));
}

/** Every state staff may leave a row in by hand: for the dropdown's help text and the console. */
export function staffTargetsFrom(from: string): Status[] {
  return targetsFrom(from, 'staff');
}

/** The states from which `actor` may move a row to `to`, in STATUSES order. */
export function sourcesOf(to: Status, actor: Actor): Status[] {
  return STATUSES.filter((from) => mayMove(actor, from, to));
}

/** Every state staff may move some row to, in STATUSES order. */
export const STAFF_TARGETS: readonly Status[] = STATUSES.filter((to) => sourcesOf(to, 'staff').length > 0);

/** True when staff may move every unfinished row to `to` (SKIPPED): no "from" needs naming. */
export function isStaffMoveFromAnyUnfinished(to: Status): boolean {
  const sources = sourcesOf(to, 'staff');
  return UNFINISHED_STATUSES.every((from) => from === to || sources.includes(from));
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

function alphabetical(items: readonly string[]): string[] {
  return [...items].sort();
}

/** "FAILED or NEEDS_REVIEW": the states staff may move a row to `to` from, for refusals and the menu. */
export function staffSourcesText(to: Status): string {
  return orList(alphabetical(sourcesOf(to, 'staff')));
}

/** "APPROVED (from AWAITING_APPROVAL), PENDING or SENT (from FAILED or NEEDS_REVIEW), or SKIPPED": every staff move, from the table. */
export function staffMovesSentence(): string {
  const groups: { targets: Status[]; sources: string }[] = [];
  for (const to of STAFF_TARGETS) {
    const sources = isStaffMoveFromAnyUnfinished(to) ? '' : alphabetical(sourcesOf(to, 'staff')).join(' or ');
    const group = groups.find((candidate) => candidate.sources === sources);
    if (group) group.targets.push(to);
    else groups.push({ targets: [to], sources });
  }
  // Moves from named states first, in the order those states come; the move allowed from anywhere last.
  const firstSource = (sources: string) => (sources === '' ? Infinity : Math.min(...sources.split(' or ').map((s) => STATUSES.indexOf(s as Status))));
  groups.sort((a, b) => firstSource(a.sources) - firstSource(b.sources));
  const parts = groups.map((group) => `${orList(group.targets)}${group.sources === '' ? '' : ` (from ${group.sources})`}`);
  return parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')}, or ${parts[parts.length - 1]}`;
}

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
  if (isSystemMove(from, to)) return `only formqueue moves ${from} rows to ${to}`;
  // A finished row, the only kind staff cannot skip, was answered above: every unfinished one may be skipped.
  const words = STAFF_MOVE_WORDS[to];
  if (words === undefined) return `staff cannot move ${from} rows to ${to}; staff moves are ${staffMovesSentence()}`;
  const tail = words.refusalTail === undefined ? '' : `; ${words.refusalTail}`;
  return `only ${staffSourcesText(to)} rows can be ${words.passive} (this one is ${from}${tail})`;
}

/**
 * States a row can be collapsed from: those the table lets the system move to DUPLICATE (nothing with an
 * outside effect has happened or is in flight).
 */
export const COLLAPSIBLE_STATUSES: readonly Status[] = sourcesOf('DUPLICATE', 'system');

/**
 * Statuses a multi-cell edit may leave as typed, although Sheets gives no previous value to check the move
 * against: the system never moves a row out of them because of its status (no mail can follow from the paste;
 * NEEDS_REVIEW is left only on the Log's and the Sent folder's evidence), and they belong to a person's part of
 * the table (staff move rows into them or out of them). Anything else is parked in NEEDS_REVIEW.
 */
export const UNCHECKED_KEEPS: readonly Status[] = STATUSES.filter(
  (status) =>
    (targetsFrom(status, 'system').length === 0 || EVIDENCE_MOVES_FROM.includes(status)) &&
    (targetsFrom(status, 'staff').length > 0 || sourcesOf(status, 'staff').length > 0),
);
