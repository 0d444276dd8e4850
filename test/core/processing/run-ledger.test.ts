// The run's copy of the send ledger (run-ledger.ts): which keys are looked up in the Log, when, and what each row is answered.
import { describe, expect, it } from 'vitest';
import { ledgerOf, ledgerRecheck, submissionLedger } from '../../../src/core/processing/run-ledger';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { pendingRow, runOf, T0, world } from '../memory-ports';

const rowOf = (eventId: string, patch: Partial<QueueRow> = {}) => pendingRow({ eventId, responseToken: `tok-${eventId}`, ...patch });
const line = (eventId: string, detail: string, patch: Partial<LogEntry> = {}): LogEntry => ({ at: T0, eventId, from: 'READY', to: 'SENDING', by: 'system', detail, ...patch });
const identity = (eventId: string) => `tf:Wr1tE5sy:tok-${eventId}`;

describe('ledgerOf: one Log lookup for the keys the run does not know yet', () => {
  it('looks up each row\'s event_id and identity once, in row order, and keeps each key\'s lines (none for a key without any)', () => {
    const w = world([]);
    w.audit.append([line('a1', 'claimed a1'), line('x9', 'another submission')]);
    const run = runOf(w);
    const a1 = rowOf('a1'), b2 = rowOf('b2');
    ledgerOf(run, [a1, b2, a1]);
    expect(w.audit.lookups).toEqual([['a1', identity('a1'), 'b2', identity('b2')]]);
    expect([...run.ledger]).toEqual([
      ['a1', [line('a1', 'claimed a1')]],
      [identity('a1'), []],
      ['b2', []],
      [identity('b2'), []],
    ]);
  });

  it('keys already in the run\'s copy are not looked up again; only the new ones are', () => {
    const w = world([]);
    const run = runOf(w);
    ledgerOf(run, [rowOf('a1')]);
    ledgerOf(run, [rowOf('a1'), rowOf('b2')]);
    expect(w.audit.lookups).toEqual([['a1', identity('a1')], ['b2', identity('b2')]]);
  });

  it.each<[string, QueueRow[]]>([
    ['every key already known', [rowOf('a1')]],
    ['no rows', []],
    ['a row with neither event_id nor identity', [rowOf('', { responseToken: '' })]],
  ])('%s: the Log is not read at all', (_case, rows) => {
    const w = world([]);
    const run = runOf(w);
    run.ledger.set('a1', []);
    run.ledger.set(identity('a1'), []);
    ledgerOf(run, rows);
    expect(w.audit.lookups).toEqual([]);
    expect([...run.ledger.keys()]).toEqual(['a1', identity('a1')]);
  });

  it('an empty key is never looked up: a row without a token is found by its event_id alone, one without an event_id by its identity', () => {
    const w = world([]);
    const run = runOf(w);
    ledgerOf(run, [rowOf('a1', { responseToken: ' ' }), rowOf('', { responseToken: 'tok-b2' })]);
    expect(w.audit.lookups).toEqual([['a1', identity('b2')]]);
  });

  it('a key the Log leaves out of its answer is kept with no lines', () => {
    const w = world([]);
    w.audit.historiesOf = (keys) => {
      w.audit.lookups.push([...keys]);
      return new Map([['a1', [line('a1', 'only this key answered')]]]);
    };
    const run = runOf(w);
    ledgerOf(run, [rowOf('a1')]);
    expect([...run.ledger]).toEqual([
      ['a1', [line('a1', 'only this key answered')]],
      [identity('a1'), []],
    ]);
  });
});

describe('submissionLedger: the lines of a row\'s submission, by event_id and identity, each once', () => {
  it('looks the row up when the run does not know it yet, and answers its lines', () => {
    const w = world([]);
    w.audit.append([line('a1', 'claimed'), line('b2', 'not this submission')]);
    const run = runOf(w);
    expect(submissionLedger(run, rowOf('a1'))).toEqual([line('a1', 'claimed')]);
    expect(w.audit.lookups).toEqual([['a1', identity('a1')]]);
  });

  it('a line found by both keys is answered once; a line of another event_id with the same identity is the submission\'s too', () => {
    const w = world([]);
    const both = line('a1', 'claimed', { submission: identity('a1') });
    const recovered = line('reconciled:a1', 'sent from the recovered row', { at: T0 + 1, submission: identity('a1') });
    w.audit.append([both, recovered]);
    const run = runOf(w);
    expect(submissionLedger(run, rowOf('a1'))).toEqual([both, recovered]);
  });

  it('answers from the run\'s copy without reading the Log again, with the lines the run added to it', () => {
    const w = world([]);
    const run = runOf(w);
    run.ledger.set('a1', [line('a1', 'the run\'s own claim')]);
    run.ledger.set(identity('a1'), []);
    w.audit.append([line('a1', 'a line written since, not in the copy')]);
    expect(submissionLedger(run, rowOf('a1'))).toEqual([line('a1', 'the run\'s own claim')]);
    expect(w.audit.lookups).toEqual([]);
  });

  it('a row with no key has no ledger', () => {
    const w = world([]);
    w.audit.append([line('', 'a line with no event id')]);
    expect(submissionLedger(runOf(w), rowOf('', { responseToken: '' }))).toEqual([]);
  });
});

describe('ledgerRecheck: the row\'s ledger read from the Log again', () => {
  it('reads both keys even when the run knows them, answers the Log\'s lines each once, and replaces the run\'s copy', () => {
    const w = world([]);
    const run = runOf(w);
    run.ledger.set('a1', [line('a1', 'stale copy')]);
    run.ledger.set(identity('a1'), [line('a1', 'stale copy')]);
    const claimed = line('a1', 'claimed', { submission: identity('a1') });
    const person = line('a1', 'a person moved it', { at: T0 + 1, from: 'SENDING', to: 'READY', by: 'ana@example.org' });
    w.audit.append([claimed, person]);
    expect(ledgerRecheck(run, rowOf('a1'))).toEqual([claimed, person]);
    expect(w.audit.lookups).toEqual([['a1', identity('a1')]]);
    expect([...run.ledger]).toEqual([
      ['a1', [claimed, person]],
      [identity('a1'), [claimed]],
    ]);
  });

  it('a key the Log leaves out of its answer has no lines, in the answer and in the run\'s copy', () => {
    const w = world([]);
    w.audit.historiesOf = (keys) => {
      w.audit.lookups.push([...keys]);
      return new Map();
    };
    const run = runOf(w);
    run.ledger.set('a1', [line('a1', 'stale copy')]);
    expect(ledgerRecheck(run, rowOf('a1'))).toEqual([]);
    expect([...run.ledger]).toEqual([
      ['a1', []],
      [identity('a1'), []],
    ]);
  });

  it('looks up no empty key', () => {
    const w = world([]);
    const run = runOf(w);
    expect(ledgerRecheck(run, rowOf('a1', { responseToken: '' }))).toEqual([]);
    expect(w.audit.lookups).toEqual([['a1']]);
    expect([...run.ledger]).toEqual([['a1', []]]);
  });
});
