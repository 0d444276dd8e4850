// The words of staff moves (Log lines, source lists) and the table's answers for a value that is not a status.
import { describe, expect, it } from 'vitest';
import { STATUSES } from '../../../../src/core/domain/queue/statuses';
import { canStaffMove, moversOf, STAFF_MOVE_WORDS, staffMoveRefusal, staffSourcesText, targetsFrom } from '../../../../src/core/domain/queue/transitions';

describe('the Log words of each staff move', () => {
  it.each([
    ['APPROVED', 'approved'],
    ['PENDING', 'retry: generate and mail again'],
    ['SENT', 'marked sent by ana@example.org after checking by hand'],
    ['SKIPPED', 'skipped: will not be answered'],
  ] as const)('a move to %s is logged as "%s"', (to, line) => {
    expect(STAFF_MOVE_WORDS[to]?.log('ana@example.org')).toBe(line);
  });

  it('only the states staff may move rows to have words', () => {
    expect(Object.keys(STAFF_MOVE_WORDS).sort()).toEqual(['APPROVED', 'PENDING', 'SENT', 'SKIPPED']);
  });

  it('every state the table lets staff move a row to has words, so no staff move is logged without them', () => {
    const targets = new Set(STATUSES.flatMap((from) => STATUSES.filter((to) => canStaffMove(from, to))));
    expect([...targets].sort()).toEqual(Object.keys(STAFF_MOVE_WORDS).sort());
  });
});

describe('a value that is not a status', () => {
  it.each([
    ['oops', 'SENT'],
    ['SENT', 'oops'],
    ['', 'PENDING'],
  ])('%j → %j has no mover', (from, to) => {
    expect(moversOf(from, to)).toEqual([]);
  });

  it('is left for nobody', () => {
    expect(targetsFrom('oops', 'staff')).toEqual([]);
    expect(targetsFrom('oops', 'system')).toEqual([]);
  });

  it('as the row\'s status, refuses every move with a request to repair it', () => {
    for (const to of STATUSES) expect(staffMoveRefusal('Sent!', to)).toBe('the row\'s status "Sent!" is not a status; ask an admin to repair it before moving it');
  });
});

describe('staffSourcesText', () => {
  it('lists many sources alphabetically with commas and a last "or"', () => {
    expect(staffSourcesText('SKIPPED')).toBe('APPROVED, AWAITING_APPROVAL, FAILED, GENERATING, NEEDS_REVIEW, PENDING, READY or SENDING');
  });

  it('one source alone, and none', () => {
    expect(staffSourcesText('APPROVED')).toBe('AWAITING_APPROVAL');
    expect(staffSourcesText('READY')).toBe('');
  });
});
