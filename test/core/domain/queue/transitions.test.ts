// The state-machine table: every allowed move, who makes it, the words staff get when refused, and what it drives.
import { describe, expect, it } from 'vitest';
import { STATUSES } from '../../../../src/core/domain/queue/statuses';
import {
  canStaffMove,
  COLLAPSIBLE_STATUSES,
  isStaffMoveFromAnyUnfinished,
  isSystemMove,
  moversOf,
  sourcesOf,
  STAFF_TARGETS,
  staffMovesSentence,
  staffMoveRefusal,
  staffSourcesText,
  staffTargetsFrom,
  targetsFrom,
  TRANSITIONS,
  UNCHECKED_KEEPS,
} from '../../../../src/core/domain/queue/transitions';

const SYSTEM_MOVES: [string, string, string][] = [
  ['PENDING', 'GENERATING', 'claim for generation'],
  ['PENDING', 'DUPLICATE', 'collapse a redelivery'],
  ['PENDING', 'FAILED', 'no usable address: no Gemini call for a reply nobody can receive'],
  ['PENDING', 'NEEDS_REVIEW', 'address on the Suppressed sheet: no Gemini call for a reply that may not be mailed'],
  ['GENERATING', 'READY', 'reply written'],
  ['GENERATING', 'AWAITING_APPROVAL', 'reply written, approval on'],
  ['GENERATING', 'PENDING', 'retryable, systemic or stale'],
  ['GENERATING', 'FAILED', 'content blocked or attempts spent'],
  ['READY', 'SENDING', 'claim for sending'],
  ['READY', 'FAILED', 'recipient cannot be mailed'],
  ['READY', 'NEEDS_REVIEW', 'sent_at already filled'],
  ['READY', 'DUPLICATE', 'collapse a redelivery'],
  ['READY', 'AWAITING_APPROVAL', 'the reply breaks the reply policy, or approval was switched on for the form after the reply was written: a person decides'],
  ['AWAITING_APPROVAL', 'DUPLICATE', 'collapse a redelivery'],
  ['APPROVED', 'SENDING', 'claim for sending'],
  ['APPROVED', 'FAILED', 'recipient cannot be mailed'],
  ['APPROVED', 'NEEDS_REVIEW', 'sent_at already filled'],
  ['APPROVED', 'DUPLICATE', 'collapse a redelivery'],
  ['SENDING', 'SENT', 'mailed'],
  ['SENDING', 'FAILED', 'permanent mail error'],
  ['SENDING', 'NEEDS_REVIEW', 'unknown outcome or stale'],
  ['SENDING', 'READY', 'mail quota refused'],
  ['SENDING', 'APPROVED', 'mail quota refused an approved row'],
  ['NEEDS_REVIEW', 'READY', 'no copy in Sent after two looks, RECONCILE_RESEND'],
  ['NEEDS_REVIEW', 'APPROVED', 'the same for an approved row'],
];

/** Moves both may make: a person who checked by hand, and the Sent check that found the one copy. */
const SHARED_MOVES: [string, string][] = [['NEEDS_REVIEW', 'SENT']];

const STAFF_MOVES: [string, string][] = [
  ['AWAITING_APPROVAL', 'APPROVED'],
  ['FAILED', 'PENDING'],
  ['NEEDS_REVIEW', 'PENDING'],
  ['FAILED', 'SENT'],
  ...['PENDING', 'GENERATING', 'READY', 'AWAITING_APPROVAL', 'APPROVED', 'SENDING', 'NEEDS_REVIEW', 'FAILED'].map(
    (from): [string, string] => [from, 'SKIPPED'],
  ),
];

describe('transitions', () => {
  it.each(SYSTEM_MOVES)('the system moves %s → %s (%s), staff may not', (from, to) => {
    expect(moversOf(from, to)).toEqual(['system']);
    expect(isSystemMove(from, to)).toBe(true);
    expect(canStaffMove(from, to)).toBe(false);
    expect(staffMoveRefusal(from, to)).toBe(`only formqueue moves ${from} rows to ${to}`);
  });

  it.each(STAFF_MOVES)('staff may move %s → %s, the system may not', (from, to) => {
    expect(canStaffMove(from, to)).toBe(true);
    expect(isSystemMove(from, to)).toBe(false);
    expect(staffMoveRefusal(from, to)).toBeNull();
  });

  it.each(SHARED_MOVES)('staff and the system may both move %s → %s', (from, to) => {
    expect(moversOf(from, to)).toEqual(['staff', 'system']);
    expect(isSystemMove(from, to)).toBe(true);
    expect(canStaffMove(from, to)).toBe(true);
    expect(staffMoveRefusal(from, to)).toBeNull();
  });

  it('the table holds exactly the moves listed above and nothing else', () => {
    const listed = new Set([...SYSTEM_MOVES, ...STAFF_MOVES, ...SHARED_MOVES].map(([f, t]) => `${f}>${t}`));
    const inTable = Object.entries(TRANSITIONS).flatMap(([from, moves]) => Object.keys(moves).map((to) => `${from}>${to}`));
    expect(new Set(inTable)).toEqual(listed);
  });

  it.each(['SENT', 'SKIPPED', 'DUPLICATE', 'TEST'])('%s is final: no move leaves it', (from) => {
    for (const to of STATUSES) expect(moversOf(from, to)).toEqual([]);
  });

  it.each([
    ['SENT', 'PENDING', 'SENT rows cannot go back to PENDING: the reply was already mailed'],
    ['SENT', 'SKIPPED', 'SENT rows cannot go back to SKIPPED: the reply was already mailed'],
    ['DUPLICATE', 'PENDING', 'DUPLICATE rows are final: the same submission is answered by an earlier row'],
    ['TEST', 'PENDING', 'TEST rows are final: test deliveries are never mailed'],
    ['SKIPPED', 'PENDING', 'SKIPPED rows are final: a person already decided not to answer this one'],
    ['READY', 'APPROVED', 'only AWAITING_APPROVAL rows can be approved (this one is READY)'],
    ['AWAITING_APPROVAL', 'PENDING', 'only FAILED or NEEDS_REVIEW rows can be retried (this one is AWAITING_APPROVAL)'],
    ['READY', 'SENT', 'only FAILED or NEEDS_REVIEW rows can be marked sent by hand (this one is READY; formqueue records its own sends)'],
    ['PENDING', 'PENDING', 'the row is already PENDING'],
    ['PENDING', 'DONE', '"DONE" is not a status; choose one of ' + STATUSES.join(', ')],
    ['FAILED', 'READY', 'staff cannot move FAILED rows to READY; staff moves are APPROVED (from AWAITING_APPROVAL), PENDING or SENT (from FAILED or NEEDS_REVIEW), or SKIPPED'],
  ])('staff moving %s → %s is refused with the reason: %s', (from, to, reason) => {
    expect(canStaffMove(from, to)).toBe(false);
    expect(staffMoveRefusal(from, to)).toBe(reason);
  });

  it('lists what staff may choose from a state, for the console', () => {
    expect(staffTargetsFrom('FAILED')).toEqual(['PENDING', 'SENT', 'SKIPPED']);
    expect(staffTargetsFrom('AWAITING_APPROVAL')).toEqual(['APPROVED', 'SKIPPED']);
    expect(staffTargetsFrom('SENT')).toEqual([]);
    expect(staffTargetsFrom('NEEDS_REVIEW')).toEqual(['PENDING', 'SENT', 'SKIPPED']);
  });
});

describe('what the table drives', () => {
  it('the states staff may pick, the collapsible states and the multi-cell keeps all come from the table', () => {
    expect(STAFF_TARGETS).toEqual(['PENDING', 'APPROVED', 'SENT', 'SKIPPED']);
    expect(COLLAPSIBLE_STATUSES).toEqual(['PENDING', 'READY', 'AWAITING_APPROVAL', 'APPROVED']);
    expect(UNCHECKED_KEEPS).toEqual(['SENT', 'NEEDS_REVIEW', 'FAILED', 'SKIPPED']);
  });

  it('NEEDS_REVIEW stays a state a paste may leave: the system leaves it only on the Log\'s and the Sent folder\'s evidence', () => {
    expect(targetsFrom('NEEDS_REVIEW', 'system')).toEqual(['READY', 'APPROVED', 'SENT']);
    expect(UNCHECKED_KEEPS).toContain('NEEDS_REVIEW');
  });

  it('the dropdown help names every staff move with its sources', () => {
    expect(staffMovesSentence()).toBe('APPROVED (from AWAITING_APPROVAL), PENDING or SENT (from FAILED or NEEDS_REVIEW), or SKIPPED');
  });

  it('a staff move added to the table shows up in the sources the menu and refusals name', () => {
    expect(sourcesOf('PENDING', 'staff')).toEqual(['NEEDS_REVIEW', 'FAILED']);
    expect(staffSourcesText('PENDING')).toBe('FAILED or NEEDS_REVIEW');
    expect(isStaffMoveFromAnyUnfinished('SKIPPED')).toBe(true);
    expect(isStaffMoveFromAnyUnfinished('SENT')).toBe(false);
  });
});
