// The grid-capacity rule: warned from 80 % of the 10,000,000 cells, with the days left at the recent rate.
import { describe, expect, it } from 'vitest';
import { assessGrid, isGridCheckDue, parseGridSamples, type GridSample } from '../../src/core/grid-capacity';
import { DAY_MS, HOUR_MS } from '../../src/core/time';

const T = Date.UTC(2026, 11, 1);

describe('assessGrid', () => {
  it.each<[string, GridSample[], number, RegExp | null]>([
    ['a fresh spreadsheet is far from the limit', [], 200000, null],
    ['79 % is not yet warned', [[T - DAY_MS, 7800000]], 7900000, null],
    ['80 % with no history yet', [], 8000000, /8,000,000 of its 10,000,000 cells \(80 %\)\. Its growth rate is not known yet/],
    ['80 % growing 100,000 a day: 20 days left', [[T - 2 * DAY_MS, 7800000]], 8000000, /rate of the last 2 day\(s\) \(100,000 cells a day\) it is full in about 20 day\(s\)/],
    ['90 % that did not grow', [[T - 3 * HOUR_MS, 9000000]], 9000000, /did not grow over the last 3 hour\(s\)/],
  ])('%s', (_name, samples, cells, warning) => {
    const assessment = assessGrid(samples, cells, T);
    if (warning === null) expect(assessment.warning).toBeNull();
    else expect(assessment.warning).toMatch(warning);
  });

  it('keeps a week of samples, this one last', () => {
    const old: GridSample[] = [[T - 10 * DAY_MS, 1], [T - 6 * DAY_MS, 2], [T - HOUR_MS, 3]];
    expect(assessGrid(old, 4, T).samples).toEqual([[T - 6 * DAY_MS, 2], [T - HOUR_MS, 3], [T, 4]]);
  });
});

describe('isGridCheckDue and parseGridSamples', () => {
  it('measures at most every 6 hours, and reads garbage as no history', () => {
    expect(isGridCheckDue([], T)).toBe(true);
    expect(isGridCheckDue([[T - 5 * HOUR_MS, 1]], T)).toBe(false);
    expect(isGridCheckDue([[T - 6 * HOUR_MS, 1]], T)).toBe(true);
    expect(parseGridSamples('not json')).toEqual([]);
    expect(parseGridSamples('[[1,2],["x",3],[4,5]]')).toEqual([[1, 2], [4, 5]]);
  });
});
