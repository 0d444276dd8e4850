// A batch of row moves and their Log lines, and how a held batch and the next one become one list of row writes.
import { describe, expect, it } from 'vitest';
import { combine, countWhenWritten, newBatch, type Batch, type CountedOutcome } from '../../../src/core/processing/batch';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { queueRow, T0 } from '../fakes/rows';

const line = (eventId: string, from: string, to: string): LogEntry => ({ at: T0, eventId, from, to, by: 'system', detail: `${from} to ${to}` });

/** Records one move in `batch` as moveRow does: the row as it will be, as read, and its Log line. */
function record(batch: Batch, read: QueueRow, to: string, counter?: CountedOutcome): QueueRow {
  const moved = { ...read, status: to };
  batch.rows.push(moved);
  batch.read.push(read);
  batch.entries.push(line(read.eventId, read.status, to));
  if (counter !== undefined) countWhenWritten(batch, counter);
  return moved;
}

describe('newBatch and countWhenWritten', () => {
  it('a new batch holds no rows, lines, read rows or counters', () => {
    expect(newBatch()).toEqual({ rows: [], entries: [], read: [], counts: new Map() });
  });

  it('each new batch is its own: a move recorded in one is not in the next', () => {
    const first = newBatch();
    record(first, queueRow('PENDING'), 'GENERATING', 'generated');
    expect(newBatch()).toEqual({ rows: [], entries: [], read: [], counts: new Map() });
  });

  it('the counter goes with the move just recorded (the last row), not the one before or after it', () => {
    const batch = newBatch();
    record(batch, queueRow('PENDING', { rowNumber: 2 }), 'GENERATING');
    record(batch, queueRow('PENDING', { rowNumber: 3 }), 'GENERATING');
    countWhenWritten(batch, 'failed');
    record(batch, queueRow('PENDING', { rowNumber: 4 }), 'GENERATING', 'needsReview');
    expect(batch.counts).toEqual(new Map<number, CountedOutcome>([[1, 'failed'], [2, 'needsReview']]));
  });
});

describe('combine', () => {
  it('with no held batch: one write per move, in order, each with its line, its counter (or none) and itself as the only copy', () => {
    const batch = newBatch();
    const a = queueRow('READY', { rowNumber: 2 });
    const b = queueRow('READY', { rowNumber: 3 });
    const movedA = record(batch, a, 'SENDING', 'deferred');
    const movedB = record(batch, b, 'SENDING');
    expect(combine(null, batch)).toEqual([
      { read: a, row: movedA, lines: [line('ev-2', 'READY', 'SENDING')], counters: ['deferred'], copies: [movedA], held: null, own: movedA },
      { read: b, row: movedB, lines: [line('ev-3', 'READY', 'SENDING')], counters: [], copies: [movedB], held: null, own: movedB },
    ]);
  });

  it('an empty batch and no held one make no writes', () => {
    expect(combine(null, newBatch())).toEqual([]);
  });

  it('a held batch alone: its writes come first, marked as the held batch\'s, with nothing of this batch', () => {
    const held = newBatch();
    const a = queueRow('PENDING', { rowNumber: 2 });
    const movedA = record(held, a, 'READY', 'generated');
    expect(combine(held, newBatch())).toEqual([
      { read: a, row: movedA, lines: [line('ev-2', 'PENDING', 'READY')], counters: ['generated'], copies: [movedA], held: movedA, own: null },
    ]);
  });

  it('a move made from a held move\'s result becomes one write: from what the held move read to what this one makes, both lines, both counters, both copies', () => {
    const held = newBatch();
    const a = queueRow('GENERATING', { rowNumber: 2 });
    const other = queueRow('GENERATING', { rowNumber: 3 });
    const generated = record(held, a, 'READY', 'generated');
    const heldOther = record(held, other, 'FAILED', 'failed');
    const batch = newBatch();
    const claimed = record(batch, generated, 'SENDING', 'deferred');
    const c = queueRow('READY', { rowNumber: 4 });
    const movedC = record(batch, c, 'SENDING');
    expect(combine(held, batch)).toEqual([
      {
        read: a,
        row: claimed,
        lines: [line('ev-2', 'GENERATING', 'READY'), line('ev-2', 'READY', 'SENDING')],
        counters: ['generated', 'deferred'],
        copies: [generated, claimed],
        held: generated,
        own: claimed,
      },
      { read: other, row: heldOther, lines: [line('ev-3', 'GENERATING', 'FAILED')], counters: ['failed'], copies: [heldOther], held: heldOther, own: null },
      { read: c, row: movedC, lines: [line('ev-4', 'READY', 'SENDING')], counters: [], copies: [movedC], held: null, own: movedC },
    ]);
  });

  it('a merged write whose later move counts nothing keeps the held move\'s counter alone', () => {
    const held = newBatch();
    const generated = record(held, queueRow('GENERATING'), 'READY', 'generated');
    const batch = newBatch();
    record(batch, generated, 'SENDING');
    expect(combine(held, batch).map((write) => write.counters)).toEqual([['generated']]);
  });

  it('a move is joined to a held one only when it was made from that very copy: an equal row read from the sheet is a write of its own', () => {
    const held = newBatch();
    const generated = record(held, queueRow('GENERATING'), 'READY');
    const batch = newBatch();
    const readAgain = { ...generated };
    const claimed = record(batch, readAgain, 'SENDING');
    const writes = combine(held, batch);
    expect(writes.map((write) => [write.read, write.row])).toEqual([
      [queueRow('GENERATING'), generated],
      [readAgain, claimed],
    ]);
    expect(writes[0].row).toBe(generated);
    expect(writes[1].read).toBe(readAgain);
  });

  it('the merged write\'s copies are the very objects of both batches (their row numbers are set where the write lands)', () => {
    const held = newBatch();
    const generated = record(held, queueRow('GENERATING'), 'READY');
    const batch = newBatch();
    const claimed = record(batch, generated, 'SENDING');
    const [write] = combine(held, batch);
    expect(write.copies[0]).toBe(generated);
    expect(write.copies[1]).toBe(claimed);
    expect(write.held).toBe(generated);
    expect(write.own).toBe(claimed);
    expect(write.row).toBe(claimed);
  });
});
