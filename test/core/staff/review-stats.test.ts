// The day's approvals counted for the daily summary: what is kept a day, what an unreadable value reads as, and the summary's lines.
import { describe, expect, it } from 'vitest';
import { addReviews, readReviews, reviewLines, type DayReviews, type StoredReviews } from '../../../src/core/staff/review-stats';

const MIN = 60_000;
const day = (patch: Partial<DayReviews> = {}): DayReviews => ({ day: '2026-12-01', asWritten: 1, edited: 0, skipped: 0, waits: [5], ...patch });

describe('readReviews', () => {
  it.each<[string, unknown, StoredReviews]>([
    ['a day with no earlier one', { today: day() }, { today: day(), previous: null }],
    ['an earlier day alone', { previous: day() }, { today: null, previous: day() }],
    ['both days', { today: day({ day: '2026-12-02' }), previous: day() }, { today: day({ day: '2026-12-02' }), previous: day() }],
    ['a day whose date is no text is dropped', { today: day({ day: 20261201 as unknown as string }), previous: day() }, { today: null, previous: day() }],
    ['a day with no list of waits is dropped', { today: day({ waits: 5 as unknown as number[] }), previous: day() }, { today: null, previous: day() }],
    ['a day that is no object is dropped', { today: '2026-12-01', previous: day() }, { today: null, previous: day() }],
  ])('%s', (_what, stored, expected) => {
    expect(readReviews(JSON.stringify(stored))).toEqual(expected);
  });

  it.each([undefined, null, '', '{broken', 'null', '"text"'])('%j reads as no reviews', (stored) => {
    expect(readReviews(stored)).toEqual({ today: null, previous: null });
  });
});

describe('addReviews', () => {
  it('the same day adds up, and the earlier day stays as it was', () => {
    const first = addReviews(JSON.stringify({ today: day({ day: '2026-12-02' }), previous: day() }), '2026-12-02', [{ kind: 'approved', edited: true, waitedMs: 20 * MIN }, { kind: 'skipped' }]);
    expect(readReviews(first)).toEqual({ today: { day: '2026-12-02', asWritten: 1, edited: 1, skipped: 1, waits: [5, 20] }, previous: day() });
    const second = addReviews(first, '2026-12-02', [{ kind: 'approved', edited: false, waitedMs: null }]);
    expect(readReviews(second)).toEqual({ today: { day: '2026-12-02', asWritten: 2, edited: 1, skipped: 1, waits: [5, 20] }, previous: day() });
  });

  it('a new day with nothing counted today keeps the earlier day', () => {
    const stored = addReviews(JSON.stringify({ today: null, previous: day() }), '2026-12-03', [{ kind: 'skipped' }]);
    expect(readReviews(stored)).toEqual({ today: { day: '2026-12-03', asWritten: 0, edited: 0, skipped: 1, waits: [] }, previous: day() });
  });

  it('waits are kept in whole minutes, rounded', () => {
    const stored = addReviews(undefined, '2026-12-01', [29_000, 90_000, 61 * MIN].map((waitedMs) => ({ kind: 'approved' as const, edited: false, waitedMs })));
    expect(readReviews(stored).today?.waits).toEqual([0, 2, 61]);
  });

  it('at most 400 waits are kept a day; every approval is still counted', () => {
    const approvals = Array.from({ length: 401 }, () => ({ kind: 'approved' as const, edited: false, waitedMs: 3 * MIN }));
    expect(readReviews(addReviews(undefined, '2026-12-01', approvals)).today).toEqual({ day: '2026-12-01', asWritten: 401, edited: 0, skipped: 0, waits: Array<number>(400).fill(3) });
  });
});

describe('reviewLines', () => {
  it.each<[string, number[], string]>([
    ['an odd number of waits, in the order approved: the middle one', [50, 10, 30], '; median wait for approval 30 min'],
    ['an even number: the mean of the middle two, rounded', [21, 10], '; median wait for approval 16 min'],
    ['an even number, in the order approved', [40, 10, 30, 20], '; median wait for approval 25 min'],
    ['one wait', [7], '; median wait for approval 7 min'],
    ['no wait known: no median', [], ''],
  ])('%s', (_what, waits, median) => {
    expect(reviewLines({ today: day({ asWritten: 3, edited: 2, skipped: 1, waits }), previous: null })).toEqual([`2026-12-01: 3 approved as written, 2 edited, 1 skipped${median}`]);
  });

  it('no day kept: no line', () => {
    expect(reviewLines({ today: null, previous: null })).toEqual([]);
  });
});
