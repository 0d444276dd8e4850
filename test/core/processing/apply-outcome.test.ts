// applyOutcome, for every class of the outcome table: the row's state, its attempts, the run's counter, the incident
// noted with the row, and the pause, each as the table says.
import { describe, expect, it } from 'vitest';
import { applyOutcome, type OutcomeFindings } from '../../../src/core/processing/apply-outcome';
import { newBatch } from '../../../src/core/processing/run-context';
import { commitBatch } from '../../../src/core/processing/run-writes';
import { CLAIMED_FROM, OUTCOME_CLASSES, outcomeRule } from '../../../src/core/domain/queue/outcomes';
import { pendingRow, runOf, T0, world } from '../memory-ports';

const CLAIM = T0 - 60_000;

describe('applyOutcome', () => {
  it.each(OUTCOME_CLASSES)('%s', (outcome) => {
    const rule = outcomeRule(outcome);
    const from = rule.from[rule.from.length - 1];
    const claimedFrom = from === 'SENDING' || from === 'NEEDS_REVIEW' ? 'APPROVED' : undefined;
    const w = world([pendingRow({ status: from, attempts: 3, claimedAt: CLAIM, result: 'Dear Mina' })]);
    const run = runOf(w);
    const batch = newBatch();
    const findings: OutcomeFindings = new Map();
    const moved = applyOutcome(run, batch, run.rows[0], outcome, { detail: 'why', patch: { error: 'E: why' }, claimedFrom, findings, incident: 'GEMINI_KEY_INVALID' });
    const counted = { ...run.summary };
    commitBatch(run, batch);

    expect(moved.status).toBe(rule.to === CLAIMED_FROM ? 'APPROVED' : rule.to);
    expect(w.queue.row(2)).toMatchObject({ status: moved.status, claimedAt: null, error: 'E: why' });
    expect(w.queue.row(2).attempts).toBe(rule.attempt === 'not charged' ? 2 : 3);
    expect(w.audit.batches.flat().map((entry) => [entry.from, entry.to, entry.by, entry.detail])).toEqual([[from, moved.status, 'system', 'why']]);
    const counters = ['generated', 'failed', 'deferred', 'needsReview', 'sent', 'duplicates'] as const;
    const before = Object.fromEntries(counters.map((name) => [name, rule.counted === 'at once' && name === rule.counter ? 1 : 0]));
    expect(Object.fromEntries(counters.map((name) => [name, counted[name]]))).toEqual(before);
    expect(Object.fromEntries(counters.map((name) => [name, run.summary[name]]))).toEqual(Object.fromEntries(counters.map((name) => [name, name === rule.counter ? 1 : 0])));
    const incident = rule.incident === 'named by the verdict' ? 'GEMINI_KEY_INVALID' : rule.incident;
    expect(Array.from(findings.entries())).toEqual(incident === null ? [] : [[incident, { detail: 'why', rows: [2] }]]);
    expect(run.summary.generationHaltedBy).toBe(rule.pauses === 'generation' ? incident : null);
  });

  it('a move the state table does not give the system is refused (CODE_BUG), nothing recorded', () => {
    const w = world([pendingRow({ status: 'SENT' })]);
    const run = runOf(w);
    const batch = newBatch();
    expect(() => applyOutcome(run, batch, run.rows[0], 'duplicate', { detail: 'x' })).toThrow(/from SENT to DUPLICATE/);
    expect(batch.rows).toEqual([]);
  });
});
