// What "Process now" tells staff after a run: the counts, and in words why it stopped when it did not finish.
import { describe, expect, it } from 'vitest';
import { runOutcomeText } from '../../../src/core/runs/run-text';
import { newSummary, type StopReason } from '../../../src/core/processing/run-context';

const summary = (stoppedBecause: StopReason) => ({ ...newSummary(), generated: 2, sent: 1, deferred: 3, stoppedBecause });

describe('runOutcomeText', () => {
  it('a finished run: the counts only', () => {
    expect(runOutcomeText(summary('done'))).toBe('Generated 2, sent 1, failed 0, waiting 3, needs review 0, duplicates 0.');
  });

  it.each<[StopReason, RegExp]>([
    ['paused', /formqueue is paused: .* formqueue → Resume\.$/],
    ['budget', /the next run \(within a minute\) goes on/],
    ['sheets-unavailable', /tries again by itself every minute/],
    ['config-missing', /run formqueue → Set up \/ repair/],
    ['code-bug', /staff get a mail with the details/],
  ])('stopped because %s: says what happens next or what to do, never the internal reason', (reason, words) => {
    const text = runOutcomeText(summary(reason));
    expect(text).toMatch(/^Generated 2, sent 1, failed 0, waiting 3, needs review 0, duplicates 0\. /);
    expect(text).toMatch(words);
    expect(text).not.toContain(`(${reason})`);
  });
});
