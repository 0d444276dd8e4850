// One run's bookkeeping: its copy of the send ledger (its own Log lines added), incidents, the budget; its writes are in run-writes.test.ts.
import { describe, expect, it } from 'vitest';
import { clearGoneIncidents, isOverBudget, markGone, raiseIncident } from '../../../src/core/processing/run-context';
import { appendLog } from '../../../src/core/processing/run-writes';
import { ledgerOf, ledgerRecheck, submissionLedger } from '../../../src/core/processing/run-ledger';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { pendingRow, runOf, T0, world } from '../memory-ports';

const rowOf = (eventId: string, patch: Partial<QueueRow> = {}) => pendingRow({ eventId, responseToken: `tok-${eventId}`, ...patch });
const line = (eventId: string, detail = 'x') => ({ at: T0, eventId, from: 'PENDING', to: 'GENERATING', by: 'system', detail });

describe('the run\'s copy of the send ledger', () => {
  it('looks up the Log once for the event ids and identities not yet known (no empty key, no repeats) and answers each row asked', () => {
    const w = world([]);
    w.audit.append([line('a1', 'old')]);
    const run = runOf(w);
    const a1 = rowOf('a1'), b2 = rowOf('b2');
    ledgerOf(run, [a1, b2, a1, rowOf('', { responseToken: '' })]);
    expect(w.audit.lookups).toEqual([['a1', 'tf:Wr1tE5sy:tok-a1', 'b2', 'tf:Wr1tE5sy:tok-b2']]);
    expect(submissionLedger(run, a1)).toEqual([line('a1', 'old')]);
    expect(submissionLedger(run, b2)).toEqual([]);
    ledgerOf(run, [b2, a1]);
    expect(w.audit.lookups).toHaveLength(1);
  });

  it('a row\'s ledger holds the lines of every row of its submission, whatever their event_id, each line once', () => {
    const w = world([]);
    const first = rowOf('a1');
    const recovered = rowOf('reconciled:tok-a1', { responseToken: 'tok-a1' });
    w.audit.append([{ ...line('a1', 'claimed'), submission: 'tf:Wr1tE5sy:tok-a1' }, line('other', 'not this submission')]);
    const run = runOf(w);
    expect(submissionLedger(run, recovered).map((entry) => entry.detail)).toEqual(['claimed']);
    expect(submissionLedger(run, first).map((entry) => entry.detail)).toEqual(['claimed']);
    expect(ledgerRecheck(run, first).map((entry) => entry.detail)).toEqual(['claimed']);
  });

  it('keeps the run\'s own Log lines for the keys it looked up, and only those', () => {
    const w = world([]);
    const run = runOf(w);
    const a1 = rowOf('a1');
    ledgerOf(run, [a1]);
    appendLog(run, [line('a1', 'ours'), line('z9', 'not looked up'), { ...line('x7', 'same submission, another event'), submission: 'tf:Wr1tE5sy:tok-a1' }]);
    expect(w.audit.entries).toHaveLength(3);
    expect(submissionLedger(run, a1).map((entry) => entry.detail)).toEqual(['ours', 'same submission, another event']);
    expect(run.ledger.has('z9')).toBe(false);
  });

  it('a key the Log leaves out of its answer (the Sheets Log leaves out an empty id) has no lines', () => {
    const w = world([]);
    w.audit.historiesOf = () => new Map();
    const run = runOf(w);
    expect(submissionLedger(run, rowOf('a1'))).toEqual([]);
    expect(ledgerRecheck(run, rowOf('', { responseToken: '' }))).toEqual([]);
  });

  it('ledgerRecheck reads the Log again and replaces the copy', () => {
    const w = world([]);
    const run = runOf(w);
    const a1 = rowOf('a1');
    ledgerOf(run, [a1]);
    w.audit.append([line('a1', 'a person\'s line')]);
    expect(ledgerRecheck(run, a1)).toEqual([line('a1', 'a person\'s line')]);
    expect(run.ledger.get('a1')).toEqual([line('a1', 'a person\'s line')]);
    expect(ledgerRecheck(run, rowOf('none'))).toEqual([]);
  });
});

describe('incidents and the budget', () => {
  it('an incident found gone is cleared at the end unless the same run raised it', () => {
    const w = world([]);
    const run = runOf(w);
    raiseIncident(run, 'GEMINI_MODEL_NOT_FOUND', 'form A');
    markGone(run, ['GEMINI_MODEL_NOT_FOUND', 'MAIL_QUOTA_EXHAUSTED']);
    clearGoneIncidents(run);
    expect(w.incidents.cleared).toEqual(['MAIL_QUOTA_EXHAUSTED']);
    expect(w.incidents.raised).toEqual([{ code: 'GEMINI_MODEL_NOT_FOUND', detail: 'form A', rows: [] }]);
  });

  it('raiseIncident passes the rows on', () => {
    const w = world([]);
    raiseIncident(runOf(w), 'MAIL_QUOTA_EXHAUSTED', 'd', [4, 5]);
    expect(w.incidents.raised[0].rows).toEqual([4, 5]);
  });

  it.each([
    [T0 + 59_999, false],
    [T0 + 60_000, true],
    [T0 + 60_001, true],
  ])('at %d the run is over its budget: %s (the deadline itself is over)', (now, over) => {
    const w = world([]);
    w.clock.time = now;
    expect(isOverBudget(runOf(w, T0 + 60_000))).toBe(over);
  });
});
