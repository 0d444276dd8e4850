// The review trail's rules: how much staff changed of the model's draft, and the words of an approval's Log line.
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { changedCharacters, isFirstEditSinceWritten, reviewApproval } from '../../../src/core/staff/review-trail';
import { addReviews, readReviews, reviewLines } from '../../../src/core/staff/review-stats';

const T0 = Date.UTC(2026, 11, 2, 9);
const line = (at: number, from: string, to: string, by: string, detail: string): LogEntry => ({ at, eventId: 'e1', from, to, by, detail });
const written = line(T0, 'GENERATING', 'AWAITING_APPROVAL', 'system', 'reply written; waits for approval');
const edit = line(T0 + 60_000, 'AWAITING_APPROVAL', 'AWAITING_APPROVAL', 'ana@example.com', 'result edited (40 characters)');

describe('how much staff changed', () => {
  it('counts the lines removed and added, each with its newline; lines left alone count nothing', () => {
    expect(changedCharacters('a\nb\nc', 'a\nb\nc')).toBe(0);
    expect(changedCharacters('hello\nworld\nbye', 'hello\nWORLD!\nbye')).toBe('world'.length + 1 + 'WORLD!'.length + 1);
    expect(changedCharacters('one\ntwo\nthree', 'zero\none\ntwo\nthree\nfour')).toBe('zero'.length + 1 + 'four'.length + 1);
    expect(changedCharacters('abc', '')).toBe(4 + 1);
  });
});

describe('an approval\'s review', () => {
  it('a reply never edited since it was written is approved as written, with the wait', () => {
    expect(reviewApproval([written], null, 'text', 'e1', T0 + 2 * 3600_000).detail).toBe('reply as Gemini wrote it; waited 2 h for approval');
  });

  it('an edited reply says how much changed against the kept draft, and where the draft is', () => {
    const review = reviewApproval([written, edit], 'Dear A,\nold line', 'Dear A,\nnew line', 'e1', T0 + 5 * 60_000);
    expect(review).toMatchObject({ edited: true, changed: 18, waitedMs: 5 * 60_000 });
    expect(review.detail).toContain('draft:e1');
  });

  it('an edit made before the reply was written again (Retry) does not count for the new reply', () => {
    const again = line(T0 + 120_000, 'GENERATING', 'AWAITING_APPROVAL', 'system', 'reply written; waits for approval');
    expect(reviewApproval([written, edit, again], null, 'x', 'e1', T0 + 180_000).edited).toBe(false);
    expect(isFirstEditSinceWritten([written, edit, again])).toBe(true);
    expect(isFirstEditSinceWritten([written, edit])).toBe(false);
  });
});

describe('the day\'s approvals for the daily summary', () => {
  it('counts approvals as written, edited and skips per day with the median wait; a new day keeps the last one', () => {
    let stored = addReviews(undefined, '2026-12-01', [
      { kind: 'approved', edited: false, waitedMs: 10 * 60_000 },
      { kind: 'approved', edited: true, waitedMs: 30 * 60_000 },
      { kind: 'approved', edited: true, waitedMs: 50 * 60_000 },
      { kind: 'skipped' },
    ]);
    expect(reviewLines(readReviews(stored))).toEqual(['2026-12-01: 1 approved as written, 2 edited, 1 skipped; median wait for approval 30 min']);
    stored = addReviews(stored, '2026-12-02', [{ kind: 'approved', edited: false, waitedMs: null }]);
    expect(reviewLines(readReviews(stored))).toEqual([
      '2026-12-01: 1 approved as written, 2 edited, 1 skipped; median wait for approval 30 min',
      '2026-12-02: 1 approved as written, 0 edited, 0 skipped',
    ]);
    expect(readReviews('{broken')).toEqual({ today: null, previous: null });
  });
});
