// A run's writes: a batch of moves written together (counted and logged only where written), held batches, notes on waiting rows.
import { describe, expect, it } from 'vitest';
import { countWhenWritten, newBatch, newSummary } from '../../../src/core/processing/run-context';
import { commitBatch, holdBatch, moveRow, noteRow, noteWaitingRows, releaseHeld } from '../../../src/core/processing/run-writes';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { pendingRow, runOf, T0, world } from '../memory-ports';

const rowOf = (eventId: string, patch: Partial<QueueRow> = {}) => pendingRow({ eventId, responseToken: `tok-${eventId}`, ...patch });

describe('moveRow and noteRow', () => {
  it('moveRow copies the row to the new status, stamps updated_at and records the read row and the Log line with the submission identity', () => {
    const w = world([rowOf('a1')]);
    const run = runOf(w);
    w.clock.time = T0 + 5;
    const batch = newBatch();
    const moved = moveRow(run, batch, run.rows[0], 'GENERATING', 'claimed', { claimedAt: T0 + 5 });
    expect(moved).toMatchObject({ eventId: 'a1', status: 'GENERATING', claimedAt: T0 + 5, updatedAt: T0 + 5 });
    expect(batch.rows).toEqual([moved]);
    expect(batch.read).toEqual([run.rows[0]]);
    expect(batch.entries).toEqual([{ at: T0 + 5, eventId: 'a1', from: 'PENDING', to: 'GENERATING', by: 'system', detail: 'claimed', submission: 'tf:Wr1tE5sy:tok-a1' }]);
  });

  it('moveRow refuses a move the table does not give the system, with CODE_BUG, and records nothing', () => {
    const w = world([rowOf('a1', { rowNumber: 2 })]);
    const run = runOf(w);
    const batch = newBatch();
    expect(() => moveRow(run, batch, run.rows[0], 'SENT', 'oops')).toThrow(expect.objectContaining({ code: 'CODE_BUG', message: 'processing tried to move row 2 from PENDING to SENT' }));
    expect(batch).toEqual(newBatch());
  });

  it('noteRow keeps the status and logs a line from the status to itself', () => {
    const w = world([rowOf('a1', { status: 'NEEDS_REVIEW' })]);
    const run = runOf(w);
    const batch = newBatch();
    const noted = noteRow(run, batch, run.rows[0], 'no copy in Sent yet', { error: 'MAIL_UNKNOWN: looked once' });
    expect(noted).toMatchObject({ status: 'NEEDS_REVIEW', error: 'MAIL_UNKNOWN: looked once', updatedAt: T0 });
    expect(batch.entries).toEqual([{ at: T0, eventId: 'a1', from: 'NEEDS_REVIEW', to: 'NEEDS_REVIEW', by: 'system', detail: 'no copy in Sent yet', submission: 'tf:Wr1tE5sy:tok-a1' }]);
  });
});

describe('commitBatch', () => {
  it('an empty batch writes, flushes and logs nothing', () => {
    const w = world([rowOf('a1')]);
    expect(commitBatch(runOf(w), newBatch())).toEqual([]);
    expect([w.queue.writes, w.queue.flushes, w.audit.batches]).toEqual([[], 0, []]);
  });

  it('counts and logs only the moves written; a refused one keeps its row number and adds to no counter', () => {
    const w = world([rowOf('a1'), rowOf('b2')]);
    const run = runOf(w);
    const batch = newBatch();
    moveRow(run, batch, run.rows[0], 'GENERATING', 'claim a1');
    countWhenWritten(batch, 'generated');
    moveRow(run, batch, run.rows[1], 'GENERATING', 'claim b2');
    countWhenWritten(batch, 'failed');
    w.queue.edit(3, { status: 'SKIPPED' }); // a person moved b2 after the run read it
    const written = commitBatch(run, batch);
    expect(written.map((row) => row.eventId)).toEqual(['a1']);
    expect(run.summary).toMatchObject({ generated: 1, failed: 0 });
    expect(w.audit.batches).toEqual([[expect.objectContaining({ eventId: 'a1', detail: 'claim a1' })]]);
    expect(w.queue.flushes).toBe(1);
    expect(batch.rows[1].rowNumber).toBe(3);
    // Nothing moved: the run's copy is updated from what was written, not read again.
    expect(run.rows.map((row) => [row.eventId, row.status])).toEqual([['a1', 'GENERATING'], ['b2', 'PENDING']]);
  });

  it("a move with no counter changes no figure of the run's summary", () => {
    const w = world([rowOf('a1')]);
    const run = runOf(w);
    const batch = newBatch();
    moveRow(run, batch, run.rows[0], 'GENERATING', 'claim a1');
    commitBatch(run, batch);
    expect(run.summary).toEqual(newSummary());
  });

  it('a row written where it moved to (a sort) gets its new number, and the run reads the Queue again', () => {
    const w = world([rowOf('a1'), rowOf('b2')]);
    const run = runOf(w);
    const batch = newBatch();
    moveRow(run, batch, run.rows[0], 'GENERATING', 'claim a1');
    w.queue.reorder((rows) => rows.reverse());
    const [written] = commitBatch(run, batch);
    expect(written.rowNumber).toBe(3);
    expect(run.rows.map((row) => [row.rowNumber, row.eventId, row.status])).toEqual([[2, 'b2', 'PENDING'], [3, 'a1', 'GENERATING']]);
  });
});

describe('holdBatch', () => {
  it('a held batch is written by the next commit that writes: one write, one flush, its lines first, then its after', () => {
    const w = world([rowOf('a1'), rowOf('a2')]);
    const run = runOf(w);
    const held = newBatch();
    moveRow(run, held, run.rows[0], 'GENERATING', 'claimed', { claimedAt: T0 });
    let after: QueueRow[] | null = null;
    holdBatch(run, held, (written) => (after = written));
    expect(w.queue.writes).toEqual([]);
    expect(run.rows[0].status).toBe('GENERATING'); // the run's copy shows the held move at once
    expect(commitBatch(run, newBatch())).toEqual([]); // an empty batch writes nothing and keeps it held
    expect(run.held).not.toBeNull();
    const next = newBatch();
    moveRow(run, next, run.rows[1], 'GENERATING', 'claimed', { claimedAt: T0 });
    expect(commitBatch(run, next).map((row) => row.eventId)).toEqual(['a2']); // its own rows, not the held batch's
    expect(w.queue.writes.map((rows) => rows.map((row) => row.eventId))).toEqual([['a1', 'a2']]);
    expect(w.queue.flushes).toBe(1);
    expect(w.audit.batches.map((lines) => lines.map((entry) => entry.eventId))).toEqual([['a1', 'a2']]);
    expect(after!.map((row) => row.eventId)).toEqual(['a1']);
  });

  it('holding a second batch writes the first one now: no held move is ever dropped', () => {
    const w = world([rowOf('a1'), rowOf('a2')]);
    const run = runOf(w);
    const afters: string[][] = [];
    for (const row of [...run.rows]) {
      const batch = newBatch();
      moveRow(run, batch, row, 'GENERATING', 'claimed', { claimedAt: T0 });
      holdBatch(run, batch, (written) => afters.push(written.map((moved) => moved.eventId)));
    }
    expect(w.queue.writes.map((rows) => rows.map((row) => row.eventId))).toEqual([['a1']]);
    expect(afters).toEqual([['a1']]);
    releaseHeld(run);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['GENERATING', 'GENERATING']);
    expect(afters).toEqual([['a1'], ['a2']]);
  });

  it('an empty batch is not held: its after runs at once with nothing written, and no write or flush follows', () => {
    const w = world([rowOf('a1')]);
    const run = runOf(w);
    let after: QueueRow[] | null = null;
    holdBatch(run, newBatch(), (written) => (after = written));
    expect(after).toEqual([]);
    expect(run.held).toBeNull();
    releaseHeld(run);
    expect([w.queue.writes, w.queue.flushes, w.audit.batches]).toEqual([[], 0, []]);
  });

  it('releaseHeld with nothing held writes, flushes and logs nothing', () => {
    const w = world([rowOf('a1')]);
    releaseHeld(runOf(w));
    expect([w.queue.writes, w.queue.flushes, w.audit.batches]).toEqual([[], 0, []]);
  });

  /** A GENERATING row whose verdict (READY, with its reply) is held for the run's next commit. */
  const withHeldVerdict = () => {
    const w = world([rowOf('a1', { status: 'GENERATING', claimedAt: T0 })]);
    const run = runOf(w);
    const verdict = newBatch();
    moveRow(run, verdict, run.rows[0], 'READY', 'reply written', { result: 'Dear Mina', claimedAt: null });
    holdBatch(run, verdict);
    return { w, run };
  };

  it("a move made from a held move's result is one write from what the held move read, with both lines", () => {
    const { w, run } = withHeldVerdict();
    const claim = newBatch();
    moveRow(run, claim, run.rows[0], 'SENDING', 'claimed for sending', { claimedAt: T0 + 1000 });
    commitBatch(run, claim);
    expect(w.queue.writes).toHaveLength(1);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENDING', result: 'Dear Mina', claimedAt: T0 + 1000 });
    expect(w.audit.entries.map((entry) => `${entry.from}>${entry.to}`)).toEqual(['GENERATING>READY', 'READY>SENDING']);
  });

  it("a held move the compare-and-set refuses is not written and leaves the run's copy as it was read", () => {
    const { w, run } = withHeldVerdict();
    w.queue.edit(2, { status: 'SKIPPED' }); // a person, before the held write
    releaseHeld(run);
    expect(w.queue.row(2)).toMatchObject({ status: 'SKIPPED', result: '' });
    expect(run.rows[0]).toMatchObject({ status: 'GENERATING', result: '' });
    expect(w.audit.entries).toEqual([]);
    expect(run.held).toBeNull();
  });
});

describe('noteWaitingRows', () => {
  it('writes only the notes that change a row, and remembers only the rows written where they were', () => {
    const w = world([rowOf('a1', { error: 'same' }), rowOf('b2'), rowOf('c3')]);
    const run = runOf(w);
    w.queue.edit(4, { status: 'SKIPPED' }); // c3 moved by a person: its note does not land
    noteWaitingRows(run, new Map([[2, 'same'], [3, 'QUOTA: waits'], [4, 'QUOTA: waits']]));
    expect(w.queue.writes).toEqual([[expect.objectContaining({ eventId: 'b2', error: 'QUOTA: waits' })]]);
    expect(run.rows.map((row) => row.error)).toEqual(['same', 'QUOTA: waits', '']);
  });

  it('a note written where a sort moved its row is not remembered at the old row number (another row is there now)', () => {
    const w = world([rowOf('a1'), rowOf('b2')]);
    const run = runOf(w);
    w.queue.reorder((rows) => rows.reverse());
    noteWaitingRows(run, new Map([[2, 'QUOTA: waits']]));
    expect(w.queue.rows.map((row) => [row.rowNumber, row.eventId, row.error])).toEqual([[2, 'b2', ''], [3, 'a1', 'QUOTA: waits']]);
    expect(run.rows.map((row) => [row.rowNumber, row.eventId, row.error])).toEqual([[2, 'a1', ''], [3, 'b2', '']]);
  });

  it('no note that changes anything: no write at all', () => {
    const w = world([rowOf('a1', { error: 'same' })]);
    noteWaitingRows(runOf(w), new Map([[2, 'same'], [9, 'a row not in the run']]));
    expect(w.queue.writes).toEqual([]);
  });
});
