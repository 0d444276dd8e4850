// The review trail's rules: how much staff changed of the model's draft, and the words of an approval's Log line.
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { changedCharacters, isFirstEditSinceWritten, isResultEdit, reviewApproval } from '../../../src/core/staff/review-trail';
import { addReviews, readReviews, reviewLines } from '../../../src/core/staff/review-stats';

const T0 = Date.UTC(2026, 11, 2, 9);
const line = (at: number, from: string, to: string, by: string, detail: string): LogEntry => ({ at, eventId: 'e1', from, to, by, detail });
const written = line(T0, 'GENERATING', 'AWAITING_APPROVAL', 'system', 'reply written; waits for approval');
/** The reply written READY (no approval asked for). */
const writtenReady = line(T0, 'GENERATING', 'READY', 'system', 'reply written');
const edit = line(T0 + 60_000, 'AWAITING_APPROVAL', 'AWAITING_APPROVAL', 'ana@example.com', 'result edited (40 characters)');
const readyEdit = line(T0 + 60_000, 'READY', 'READY', 'ana@example.com', 'result edited (16 characters)');
/** The system's move of a READY reply to approval (the reply policy, or approval switched on): no new reply. */
const policy = line(T0 + 120_000, 'READY', 'AWAITING_APPROVAL', 'system', 'approval switched on for the form');

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

describe('how much staff changed, at the edges', () => {
  it.each<[string, string, string, number]>([
    ['a doubled line taken out counts that line', 'Regards\nRegards', 'Regards', 'Regards'.length + 1],
    ['a line doubled counts the copy', 'Regards', 'Regards\nRegards', 'Regards'.length + 1],
    ['two small edits far apart count only their two lines each way', 'Hi\nA\nsame\nsame\nB\nBye', 'Hi\nA2\nsame\nsame\nB2\nBye', 2 + 3 + 2 + 3],
  ])('%s', (_what, before, after, changed) => {
    expect(changedCharacters(before, after)).toBe(changed);
  });

  /** A reply of `middle` lines (one of them shared with the other reply) between two common lines at each end. */
  const reply = (word: string, middle: number) => {
    const lines = Array.from({ length: middle }, (_, i) => (i === 500 ? 'a line both keep' : `${word} line ${i}`));
    return { text: ['Dear Ana,', 'Thanks for writing.', ...lines, 'Best,', 'The team'].join('\n'), size: lines.reduce((sum, text) => sum + text.length + 1, 0) };
  };
  const shared = 'a line both keep'.length + 1;

  it('up to a million line pairs the lines are diffed: the common lines at both ends and the shared line in the middle count nothing', () => {
    const before = reply('old', 1000);
    const after = reply('new', 1000);
    expect(changedCharacters(before.text, after.text)).toBe(before.size + after.size - 2 * shared);
  });

  it('above a million line pairs the changed middle counts whole, its shared line too', () => {
    const before = reply('old', 1001);
    const after = reply('new', 1001);
    expect(changedCharacters(before.text, after.text)).toBe(before.size + after.size);
  });
});

describe('an approval\'s review, exactly', () => {
  const refusedMove = line(T0 + 60_000, 'AWAITING_APPROVAL', 'AWAITING_APPROVAL', 'ana@example.com', 'refused status edit: only formqueue moves AWAITING_APPROVAL rows to SENDING');
  const multiCellEdit = line(T0 + 60_000, 'AWAITING_APPROVAL', 'AWAITING_APPROVAL', 'ana@example.com', 'result edited (multi-cell edit)');

  it.each<[string, LogEntry[], string | null, number, ReturnType<typeof reviewApproval>]>([
    ['no Log line of the reply being written: as written, with no wait', [], null, T0, { edited: false, changed: null, waitedMs: null, detail: 'reply as Gemini wrote it' }],
    [
      'edited by a multi-cell edit, so no draft kept: edited, how much unknown',
      [written, multiCellEdit],
      null,
      T0 + 5 * 60_000,
      { edited: true, changed: null, waitedMs: 5 * 60_000, detail: "reply edited by staff (the model's draft was not kept: a multi-cell edit); waited 5 min for approval" },
    ],
    [
      'written READY, edited, then sent for approval by the form\'s setting: edited, the wait counted from the reply written',
      [writtenReady, readyEdit, policy],
      'Dear A,\nold line',
      T0 + 10 * 60_000,
      {
        edited: true,
        changed: 18,
        waitedMs: 10 * 60_000,
        detail: "reply edited by staff: 18 characters changed (removed and added lines) against the model's draft of 16 (the draft is in Payloads as draft:e1); waited 10 min for approval",
      },
    ],
    ['written READY and sent for approval unedited: as written, the wait counted from the reply written', [writtenReady, policy], null, T0 + 3600_000, { edited: false, changed: null, waitedMs: 3600_000, detail: 'reply as Gemini wrote it; waited 1 h for approval' }],
    ['a person\'s line that is no result edit (a refused status edit) is no edit', [written, refusedMove], null, T0 + 90_000, { edited: false, changed: null, waitedMs: 90_000, detail: 'reply as Gemini wrote it; waited 1 min for approval' }],
    ['an approval before the line\'s time (clocks apart) waited nothing', [written], null, T0 - 5000, { edited: false, changed: null, waitedMs: 0, detail: 'reply as Gemini wrote it; waited 0 s for approval' }],
  ])('%s', (_what, history, draft, now, expected) => {
    expect(reviewApproval(history, draft, 'Dear A,\nnew line', 'e1', now)).toEqual(expected);
  });

  it('thousands are written with a separator', () => {
    const draft = 'x'.repeat(1500);
    expect(reviewApproval([written, edit], draft, 'y', 'e1', T0 + 60_000).detail).toBe(
      "reply edited by staff: 1,503 characters changed (removed and added lines) against the model's draft of 1,500 (the draft is in Payloads as draft:e1); waited 1 min for approval",
    );
  });
});

describe('which Log lines the review trail reads', () => {
  it.each<[string, LogEntry, boolean]>([
    ['a person\'s result edit', edit, true],
    ['a person\'s result edit of several cells', line(T0, 'READY', 'READY', 'staff (unknown)', 'result edited (multi-cell edit)'), true],
    ['a person\'s other line', line(T0, 'AWAITING_APPROVAL', 'APPROVED', 'ana@example.com', 'approved'), false],
    ['a system line in the same words (none is written so: only a person edits)', line(T0, 'READY', 'READY', 'system', 'result edited (12 characters)'), false],
  ])('%s is a result edit: %s', (_what, entry, expected) => {
    expect(isResultEdit(entry)).toBe(expected);
  });

  it.each<[string, LogEntry[], boolean]>([
    ['no Log line of the reply being written: not known to hold the model\'s text', [], false],
    ['only the line of the reply written', [written], true],
    ['the reply written READY', [writtenReady], true],
    ['an edit logged since', [written, edit], false],
    ['an edit while READY, then a move for approval (no new reply)', [writtenReady, readyEdit, policy], false],
    ['an edit, then a try that wrote no reply (GENERATING → PENDING)', [written, edit, line(T0 + 120_000, 'GENERATING', 'PENDING', 'system', 'Gemini unavailable; retried later')], false],
    ['an edit, then a person\'s line that looks like a reply written (no new reply)', [written, edit, line(T0 + 120_000, 'GENERATING', 'AWAITING_APPROVAL', 'ana@example.com', 'typed into the Log')], false],
  ])('%s → %s', (_what, history, expected) => {
    expect(isFirstEditSinceWritten(history)).toBe(expected);
  });
});
