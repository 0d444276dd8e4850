// The grid-capacity rule: warned from 80 % of the 10,000,000 cells, with the days left at the recent rate.
import { describe, expect, it } from 'vitest';
import { assessGrid, isGridCheckDue, parseGridSamples, type GridSample } from '../../../../src/core/domain/queue/grid-capacity';
import { DAY_MS, HOUR_MS } from '../../../../src/core/domain/time';

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

  it.each<[string, GridSample[], number, RegExp]>([
    ['exactly an hour of history gives a rate', [[T - HOUR_MS, 8000000]], 8000000, /did not grow over the last 1 hour\(s\)/],
    ['exactly a day of history is told in days', [[T - DAY_MS, 8000000]], 8000000, /did not grow over the last 1 day\(s\)/],
    ['full in two thirds of a day', [[T - DAY_MS, 9000000]], 9600000, /\(600,000 cells a day\) it is full in less than a day\./],
    ['full in exactly a day', [[T - DAY_MS, 9000000]], 9500000, /\(500,000 cells a day\) it is full in about 1 day\(s\)\./],
  ])('the warning at its boundaries: %s', (_name, samples, cells, warning) => {
    expect(assessGrid(samples, cells, T).warning).toMatch(warning);
  });

  it('keeps at most 30 samples, the newest', () => {
    const hourly: GridSample[] = Array.from({ length: 40 }, (_, i) => [T - (40 - i) * HOUR_MS, i]);
    const kept = assessGrid(hourly, 40, T).samples;
    expect(kept).toHaveLength(30);
    expect(kept[0]).toEqual([T - 29 * HOUR_MS, 11]);
    expect(kept[29]).toEqual([T, 40]);
  });

  it('a sample exactly a week old is still in the window; one taken at this instant or later (another clock) is not kept', () => {
    expect(assessGrid([[T - 7 * DAY_MS, 1], [T, 2], [T + HOUR_MS, 3]], 4, T).samples).toEqual([[T - 7 * DAY_MS, 1], [T, 4]]);
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
    expect(parseGridSamples('{"at": 1, "cells": 2}')).toEqual([]);
    expect(parseGridSamples('7')).toEqual([]);
    expect(parseGridSamples(undefined)).toEqual([]);
  });
});
