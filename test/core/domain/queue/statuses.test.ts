// The row states: one list, and every state has the colour and the line staff see.
import { describe, expect, it } from 'vitest';
import { FINISHED_STATUSES, isStatus, NEEDS_PERSON_STATUSES, STATUS_COLOURS, STATUS_MEANING, STATUSES } from '../../../../src/core/domain/queue/statuses';

describe('the states', () => {
  it('every state has a colour of its own and a line of meaning', () => {
    expect(Object.keys(STATUS_COLOURS)).toEqual([...STATUSES]);
    expect(Object.keys(STATUS_MEANING)).toEqual([...STATUSES]);
    expect(new Set(Object.values(STATUS_COLOURS)).size).toBe(STATUSES.length);
    for (const status of STATUSES) expect(STATUS_MEANING[status].length).toBeGreaterThan(0);
  });

  it('a finished state never waits for a person, and each finished one says so to staff', () => {
    expect(FINISHED_STATUSES.filter((status) => NEEDS_PERSON_STATUSES.includes(status))).toEqual([]);
    for (const status of FINISHED_STATUSES) expect(STATUS_MEANING[status]).toMatch(/finished/);
  });
});

describe('isStatus', () => {
  it('knows every state', () => {
    for (const status of STATUSES) expect(isStatus(status)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a state in lower case (a hand-typed cell)', 'sent'],
    ['a state with a blank after it', 'SENT '],
    ['an empty cell', ''],
    ['a number', 3],
    ['null', null],
  ])('refuses %s', (_what, value) => {
    expect(isStatus(value)).toBe(false);
  });
});
