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
    // No other figure of the run's summary is touched (an outcome with no counter counts nothing).
    expect(Object.keys(run.summary).sort()).toEqual(Object.keys(runOf(world([])).summary).sort());
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

describe('applyOutcome: incidents and pauses across rows', () => {
  const generating = (n: number) => pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, status: 'GENERATING', attempts: 2, claimedAt: CLAIM });

  it('a second row of the same incident joins the first one\'s finding, which keeps the first detail (the incident\'s own when given)', () => {
    const w = world([generating(1), generating(2)]);
    const run = runOf(w);
    const batch = newBatch();
    const findings: OutcomeFindings = new Map();
    applyOutcome(run, batch, run.rows[0], 'outage', { detail: 'row 2 waits', findings, incidentDetail: 'Gemini unreachable for 3 runs' });
    applyOutcome(run, batch, run.rows[1], 'outage', { detail: 'row 3 waits', findings, incidentDetail: 'other' });
    expect(Array.from(findings.entries())).toEqual([['GEMINI_UNAVAILABLE', { detail: 'Gemini unreachable for 3 runs', rows: [2, 3] }]]);
  });

  it('the first incident that paused generation stays the one named when a later one pauses too', () => {
    const w = world([generating(1), generating(2)]);
    const run = runOf(w);
    const batch = newBatch();
    applyOutcome(run, batch, run.rows[0], 'systemic', { detail: 'bad key', incident: 'GEMINI_KEY_INVALID', findings: new Map() });
    applyOutcome(run, batch, run.rows[1], 'outage', { detail: 'unreachable', findings: new Map() });
    expect(run.summary.generationHaltedBy).toBe('GEMINI_KEY_INVALID');
  });

  it('a systemic verdict that names no incident gathers none and pauses nothing; with no findings given, nothing is gathered', () => {
    const w = world([generating(1), generating(2)]);
    const run = runOf(w);
    const batch = newBatch();
    const findings: OutcomeFindings = new Map();
    applyOutcome(run, batch, run.rows[0], 'systemic', { detail: 'unknown', findings });
    expect(findings.size).toBe(0);
    expect(run.summary.generationHaltedBy).toBeNull();
    applyOutcome(run, batch, run.rows[1], 'outage', { detail: 'unreachable' });
    expect(run.summary.generationHaltedBy).toBe('GEMINI_UNAVAILABLE');
  });

  it('with no cells of its own, an outcome clears the claim and keeps the row\'s other cells', () => {
    const w = world([pendingRow({ status: 'GENERATING', attempts: 2, claimedAt: CLAIM, error: 'earlier' })]);
    const run = runOf(w);
    const batch = newBatch();
    const moved = applyOutcome(run, batch, run.rows[0], 'not-asked', { detail: 'the run ended first' });
    expect(moved).toMatchObject({ status: 'PENDING', claimedAt: null, attempts: 1, error: 'earlier' });
  });
});
