// runProcessing's own rules, one per case: the stale sweep's codes and counts, the budget and the mail-quota halt
// between rounds, when the next tick is due, and how failures while ending the run are reported.
import { describe, expect, it } from 'vitest';
import { codedError } from '../../../src/core/domain/failures/errors';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { formConfig, pendingRow, T0, world } from '../memory-ports';

const start = { startedAt: T0 };
const MINUTE = 60_000;
/** A run whose budget is already spent does only the housekeeping before the rounds. */
const spent = { startedAt: T0 - 300_000 };
const row = (n: number, patch: Partial<QueueRow> = {}) => pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, ...patch });

describe('the stale sweep', () => {
  it.each<[string, Partial<QueueRow>, string, RegExp, number]>([
    ['a stale GENERATING claim', { status: 'GENERATING', claimedAt: T0 - 11 * MINUTE }, 'PENDING', /^STALE_GENERATING: /, 0],
    ['a stale SENDING claim', { status: 'SENDING', claimedAt: T0 - 16 * MINUTE, result: 'r', mailRef: 'FQ-AAAAAA' }, 'NEEDS_REVIEW', /^STALE_SENDING: /, 1],
  ])('%s goes to %s with its code, counted only when a person must look', (_what, patch, status, error, needsReview) => {
    const w = world([row(1, patch)]);
    const summary = runProcessing(w.deps, spent);
    expect(w.queue.row(2)).toMatchObject({ status, claimedAt: null });
    expect(w.queue.row(2).error).toMatch(error);
    expect(summary.needsReview).toBe(needsReview);
  });
});

describe('between rounds', () => {
  it('a run with no budget left runs no send step (nothing about mail limits is concluded)', () => {
    const w = world([row(1, { status: 'READY', result: 'r', mailRef: 'FQ-AAAAAA' })]);
    const summary = runProcessing(w.deps, spent);
    expect(summary.stoppedBecause).toBe('budget');
    expect(w.mailer.quotaChecks).toBe(0);
    expect(w.incidents.cleared).not.toContain('MAIL_LIMIT_REACHED');
  });

  it('once the mail quota halts sending, later rounds do not try to send again', () => {
    const w = world([row(1, { status: 'READY', result: 'r', mailRef: 'FQ-AAAAAA' }), row(2), row(3)], { GEMINI_CONCURRENCY: '1' });
    w.mailer.quota = 0;
    const summary = runProcessing(w.deps, start);
    expect(summary).toMatchObject({ sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED', generated: 2, sent: 0 });
    expect(w.mailer.quotaChecks).toBe(1);
  });

  it('a send step that spends the budget ends the run before a generation round', () => {
    const w = world([row(1, { status: 'READY', result: 'r', mailRef: 'FQ-AAAAAA' }), row(2)], { RUN_BUDGET_SECONDS: '60' });
    w.mailer.failWith = () => {
      w.clock.advance(61_000);
      return undefined;
    };
    const summary = runProcessing(w.deps, start);
    expect(w.gemini.calls).toEqual([]);
    expect(summary).toMatchObject({ sent: 1, stoppedBecause: 'budget' });
  });
});

describe('the round guard', () => {
  it('a run whose rounds never run out of work ends after 500 rounds, on a clock that stands still', () => {
    const w = world([row(1)], {}, [formConfig({ approvalRequired: true })]);
    let inserted = 0;
    // Before every write a new due submission is inserted above the rest: each round has a claim of its own to make.
    w.queue.beforeWriteRows = (_rows, queue) => {
      inserted++;
      queue.reorder((rows) => [{ ...row(1000 + inserted), rowNumber: 0 }, ...rows]);
    };
    const summary = runProcessing(w.deps, start);
    expect(summary.rounds).toBe(500);
    expect(w.gemini.calls).toHaveLength(500);
    expect(summary.stoppedBecause).toBe('done');
  });
});

describe('nextDueAt', () => {
  it.each<[string, Partial<QueueRow>[], number | null]>([
    ['nothing waiting', [{ status: 'SENT', sentAt: T0 - MINUTE }], null],
    ['the earliest of two back-offs', [{ nextAttemptAt: T0 + 5 * MINUTE }, { nextAttemptAt: T0 + 2 * MINUTE }], T0 + 2 * MINUTE],
    ['the earliest of two back-offs, the other way round', [{ nextAttemptAt: T0 + 2 * MINUTE }, { nextAttemptAt: T0 + 5 * MINUTE }], T0 + 2 * MINUTE],
    ['a claim going stale before a back-off ends', [{ nextAttemptAt: T0 + 30 * MINUTE }, { status: 'GENERATING', claimedAt: T0 - 5 * MINUTE }], T0 + 5 * MINUTE],
  ])('%s', (_what, patches, due) => {
    const w = world(patches.map((patch, i) => row(i + 1, patch)));
    expect(runProcessing(w.deps, start).nextDueAt).toBe(due);
  });

  it('a template problem holds its rows until the recheck, not at once', () => {
    const w = world([row(1)], {}, [formConfig({ formId: 'Wr1tE5sy', prompt: 'Hi {{nickname}}' })]);
    expect(runProcessing(w.deps, start).nextDueAt).toBe(T0 + 5 * MINUTE);
  });
});

describe('ending the run', () => {
  it('a failure clearing incidents after a complete run is reported as the run’s end', () => {
    const w = world([row(1, { status: 'SENT', sentAt: T0 - MINUTE })]);
    w.incidents.clear = () => {
      throw new TypeError('incident store broke');
    };
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('code-bug');
    expect(w.incidents.codes()).toEqual(['CODE_BUG']);
  });

  it('a failure clearing incidents after a run that already failed does not replace the first failure', () => {
    // The prompt rendered (TEMPLATE_INVALID is gone), then Sheets failed on the re-read before the claim.
    const w = world([row(1)], {}, [formConfig({ approvalRequired: true })]);
    w.queue.failOn = { method: 'readRows', error: codedError('SHEETS_UNAVAILABLE', 'Service Spreadsheets failed') };
    w.incidents.clear = () => {
      throw new TypeError('incident store broke');
    };
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('sheets-unavailable');
  });

  it('a clock that fails leaves nextDueAt null and the run still returns', () => {
    const w = world([row(1)]);
    w.deps.clock = {
      now: () => {
        throw new TypeError('clock broke');
      },
    };
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('code-bug');
    expect(summary.nextDueAt).toBeNull();
  });

  it('an incident store that cannot raise leaves the run ending quietly', () => {
    const w = world([row(1)]);
    w.queue.failOn = { method: 'readAll', error: new TypeError('bug') };
    w.incidents.raise = () => {
      throw new Error('cannot raise');
    };
    expect(runProcessing(w.deps, start).stoppedBecause).toBe('code-bug');
  });
});
