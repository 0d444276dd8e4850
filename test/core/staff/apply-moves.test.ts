// Applying staff moves: compare-and-set through the QueueStore, Log lines only for what landed, the queue marked dirty once.
import { describe, expect, it } from 'vitest';
import { DIRTY_PROPERTY } from '../../../src/core/domain/queue/tick-gate';
import { applyMoves } from '../../../src/core/staff/apply-moves';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { staffPorts as ports } from '../fakes/staff-ports';
import { STAFF, T0 } from '../fakes/rows';

const line = (eventId: string, to: string): LogEntry => ({ at: T0, eventId, from: 'AWAITING_APPROVAL', to, by: STAFF.user, detail: 'moved' });

describe('applyMoves by identity (the menu)', () => {
  it('writes each row where its submission stands after a sort, logs it once, flushes once and marks the queue dirty once', () => {
    const p = ports(['AWAITING_APPROVAL', 'AWAITING_APPROVAL']);
    const read = p.queue.readAll();
    p.queue.reorder((rows) => rows.reverse());
    const written = read.map((row) => ({ ...row, status: 'APPROVED' }));
    const applied = applyMoves(p, { read, written, lines: read.map((row) => [line(row.eventId, 'APPROVED')]) }, { now: T0, write: 'by-identity' });
    expect(applied.placed.map((row) => row?.rowNumber)).toEqual([3, 2]);
    expect(p.queue.rows.map((row) => row.status)).toEqual(['APPROVED', 'APPROVED']);
    expect(p.audit.batches).toHaveLength(1);
    expect(p.queue.flushes).toBe(1);
    expect(p.props.values[DIRTY_PROPERTY]).toBe(String(T0));
    expect(p.props.calls.set).toBe(1);
  });

  it('a row changed since it was read is not written, and its line is not logged nor handed to the review trail', () => {
    const p = ports(['AWAITING_APPROVAL', 'AWAITING_APPROVAL']);
    const read = p.queue.readAll();
    p.queue.edit(3, { status: 'SKIPPED' });
    const seen: LogEntry[][] = [];
    const seenRows: QueueRow[][] = [];
    const applied = applyMoves(
      p,
      { read, written: read.map((row) => ({ ...row, status: 'APPROVED' })), lines: read.map((row) => [line(row.eventId, 'APPROVED')]) },
      {
        now: T0,
        write: 'by-identity',
        annotate: (lines, written) => (seen.push([...lines]), seenRows.push([...written]), lines.map((l) => ({ ...l, detail: `${l.detail}; reviewed` }))),
      },
    );
    expect(applied.placed[1]).toBeNull();
    expect(p.queue.row(3).status).toBe('SKIPPED');
    expect(seen).toEqual([[line('ev-2', 'APPROVED')]]);
    // The review trail is given the rows as they landed, and only those.
    expect(seenRows.map((rows) => rows.map((row) => [row.eventId, row.status]))).toEqual([[['ev-2', 'APPROVED']]]);
    expect(p.audit.entries.map((l) => l.detail)).toEqual(['moved; reviewed']);
  });

  it('only the rows given a new value are written; the others are reported as not placed', () => {
    const p = ports(['SENT', 'AWAITING_APPROVAL']);
    const read = p.queue.readAll();
    const applied = applyMoves(p, { read, written: [null, { ...read[1], status: 'APPROVED' }], lines: [[], [line('ev-3', 'APPROVED')]] }, { now: T0, write: 'by-identity' });
    expect(applied.placed.map((row) => row?.status ?? null)).toEqual([null, 'APPROVED']);
    expect(p.queue.writes.map((rows) => rows.map((row) => row.eventId))).toEqual([['ev-3']]);
    expect(p.queue.rows.map((row) => row.status)).toEqual(['SENT', 'APPROVED']);
  });

  it('when every move was overtaken, nothing is logged, the review trail is not asked, and the Log gets no empty write', () => {
    const p = ports(['AWAITING_APPROVAL']);
    const read = p.queue.readAll();
    p.queue.edit(2, { status: 'SKIPPED' });
    let asked = 0;
    const applied = applyMoves(
      p,
      { read, written: [{ ...read[0], status: 'APPROVED' }], lines: [[line('ev-2', 'APPROVED')]] },
      { now: T0, write: 'by-identity', annotate: (lines) => (asked++, [...lines]) },
    );
    expect(applied).toEqual({ placed: [null], superseded: false });
    expect(asked).toBe(0);
    expect(p.audit.batches).toEqual([]);
  });

  it('with nothing to write, no Sheets write or flush is made and the queue is not woken', () => {
    const p = ports(['SENT']);
    const read = p.queue.readAll();
    const applied = applyMoves(p, { read, written: [null], lines: [[]] }, { now: T0, write: 'by-identity' });
    expect(applied).toEqual({ placed: [null], superseded: false });
    expect(p.queue.writes).toEqual([]);
    expect(p.queue.flushes).toBe(0);
    expect(p.audit.batches).toEqual([]);
    expect(p.props.values[DIRTY_PROPERTY]).toBeUndefined();
  });
});

describe('applyMoves as edited (the on-edit guard)', () => {
  it('writes the block where the edit put it and logs every line of it, also of a row that needed no write', () => {
    const p = ports(['APPROVED', 'FAILED']);
    const read = p.queue.readAll();
    const lines = [[line('ev-2', 'NEEDS_REVIEW')], [line('', 'FAILED')]];
    const applied = applyMoves(p, { read, written: [{ ...read[0], status: 'NEEDS_REVIEW' }, null], lines }, { now: T0, write: 'as-edited' });
    expect(applied.superseded).toBe(false);
    expect(p.queue.row(2).status).toBe('NEEDS_REVIEW');
    expect(p.audit.entries).toHaveLength(2);
    expect(p.props.values[DIRTY_PROPERTY]).toBe(String(T0));
  });

  it('a refused edit of a row that needs no write logs its line even if the row changed meanwhile, writes nothing and does not wake the queue', () => {
    const p = ports(['']);
    const read = p.queue.readAll();
    p.queue.edit(2, { result: 'a person typed meanwhile' });
    const applied = applyMoves(p, { read, written: [null], lines: [[line('', '')]] }, { now: T0, write: 'as-edited' });
    expect(applied).toEqual({ placed: [null], superseded: false });
    expect(p.queue.writes).toEqual([]);
    expect(p.audit.entries).toEqual([line('', '')]);
    expect(p.props.values[DIRTY_PROPERTY]).toBeUndefined();
  });

  it('a block changed since it was read is superseded: nothing written, logged or marked', () => {
    const p = ports(['APPROVED', 'FAILED']);
    const read = p.queue.readAll();
    p.queue.edit(3, { result: 'a person typed meanwhile' });
    const applied = applyMoves(p, { read, written: [{ ...read[0], status: 'NEEDS_REVIEW' }, null], lines: [[line('ev-2', 'NEEDS_REVIEW')], []] }, { now: T0, write: 'as-edited' });
    expect(applied.superseded).toBe(true);
    expect(p.queue.row(2).status).toBe('APPROVED');
    expect(p.audit.entries).toEqual([]);
    expect(p.props.values[DIRTY_PROPERTY]).toBeUndefined();
  });

  it('an edit that changes no status marks the queue dirty only when asked to wake it (an allowed reply edit)', () => {
    for (const wake of [false, true]) {
      const p = ports(['AWAITING_APPROVAL']);
      const read = p.queue.readAll();
      applyMoves(p, { read, written: [{ ...read[0], result: 'edited' }], lines: [[line('ev-2', 'AWAITING_APPROVAL')]] }, { now: T0, write: 'as-edited', wake });
      expect(p.props.values[DIRTY_PROPERTY] !== undefined).toBe(wake);
    }
  });
});
