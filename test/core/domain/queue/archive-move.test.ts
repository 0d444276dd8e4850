// Archiving deletes only rows re-checked to hold the archived submissions, wherever staff moved them, and copies each once.
import { describe, expect, it } from 'vitest';
import { moveToArchive } from '../../../../src/core/domain/queue/archive-move';
import { finished, MemoryGrid, queueOf } from '../../fakes/archive-grid';
import { queueRow } from '../../fakes/rows';

describe('moveToArchive: a row is its event_id', () => {
  it('staff sorting the Queue between the Archive append and the delete: the archived rows are deleted where they moved, live rows stay', () => {
    const grid = new MemoryGrid(queueOf(2, 3));
    const rows = finished(grid);
    grid.afterAppend = () => grid.sort((all) => all.reverse()); // the live rows now stand where the SENT ones stood
    const moved = moveToArchive(grid, rows);
    expect(moved.map((row) => row.eventId).sort()).toEqual(['old-1', 'old-2']);
    expect(grid.ids()).toEqual(['live-3', 'live-2', 'live-1']);
    expect(grid.archive.map((row) => row.eventId)).toEqual(['old-1', 'old-2']);
  });

  it('rows inserted above between the append and the delete: nothing but the archived rows is deleted', () => {
    const grid = new MemoryGrid(queueOf(2, 2));
    const rows = finished(grid);
    grid.afterAppend = () => grid.sort((all) => [queueRow('PENDING', { eventId: 'inserted-1' }), queueRow('PENDING', { eventId: 'inserted-2' }), ...all]);
    moveToArchive(grid, rows);
    expect(grid.ids()).toEqual(['inserted-1', 'inserted-2', 'live-1', 'live-2']);
  });

  it('a sort between two deletes of one move: the second block is checked again right before it is deleted', () => {
    // Two blocks: old rows at 2 and 4 with a live row between them; the lower block (row 4) goes first.
    const rows = [queueRow('SENT', { eventId: 'old-1' }), queueRow('PENDING', { eventId: 'live-1' }), queueRow('SENT', { eventId: 'old-2' }), queueRow('PENDING', { eventId: 'live-2' })];
    rows.forEach((row, i) => (row.rowNumber = i + 2));
    const grid = new MemoryGrid(rows);
    const remove = grid.deleteRows.bind(grid);
    grid.deleteRows = (first, count) => {
      remove(first, count);
      if (grid.deletes.length === 1) grid.sort((all) => all.reverse()); // [live-2, live-1, old-1]: old-1 now at row 4
    };
    moveToArchive(grid, finished(grid));
    expect(grid.ids()).toEqual(['live-2', 'live-1']);
    expect(grid.deletes).toEqual([[4, 1], [4, 1]]);
  });

  it('a status staff changed after the append keeps its row in Queue', () => {
    const grid = new MemoryGrid(queueOf(1, 1));
    grid.afterAppend = () => (grid.queue[0].status = 'PENDING');
    expect(moveToArchive(grid, finished(grid))).toEqual([]);
    expect(grid.ids()).toEqual(['old-1', 'live-1']);
    expect(grid.deletes).toEqual([]);
  });

  it('rows that keep moving are left in Queue after the attempts, never deleted unchecked; the next move deletes them without copying them again', () => {
    const grid = new MemoryGrid(queueOf(2, 2));
    const rows = finished(grid);
    const read = grid.identitiesAt.bind(grid);
    // Once the copy is in Archive, staff rotate the rows before every read: no check ever sees what the last read saw.
    grid.identitiesAt = (first, count) => {
      if (grid.archive.length > 0) grid.sort((all) => [all[all.length - 1], ...all.slice(0, -1)]);
      return read(first, count);
    };
    expect(moveToArchive(grid, rows)).toEqual([]);
    expect(grid.deletes).toEqual([]);
    expect(grid.ids().sort()).toEqual(['live-1', 'live-2', 'old-1', 'old-2']);
    expect(grid.archive.map((row) => row.eventId)).toEqual(['old-1', 'old-2']);

    // Staff stop; the next tick's move finds them in Archive: deleted, not copied twice.
    const calm = new MemoryGrid(grid.queue);
    calm.archive = grid.archive;
    const again = moveToArchive(calm, finished(calm));
    expect(again.map((row) => row.eventId).sort()).toEqual(['old-1', 'old-2']);
    expect(calm.ids().sort()).toEqual(['live-1', 'live-2']);
    expect(calm.archive.map((row) => row.eventId)).toEqual(['old-1', 'old-2']);
  });

  it('a DUPLICATE row sharing its original event_id is archived beside it: the status is part of who a row is', () => {
    const rows = [queueRow('SENT', { eventId: 'ev-a' }), queueRow('DUPLICATE', { eventId: 'ev-a' })];
    rows.forEach((row, i) => (row.rowNumber = i + 2));
    const grid = new MemoryGrid(rows);
    moveToArchive(grid, finished(grid).concat(grid.queue.filter((row) => row.status === 'DUPLICATE').map((row) => ({ ...row }))));
    expect(grid.archive.map((row) => row.status)).toEqual(['SENT', 'DUPLICATE']);
    expect(grid.ids()).toEqual([]);
  });

  it('reads the rows to check one block at a time, not row by row', () => {
    const grid = new MemoryGrid(queueOf(5, 1));
    moveToArchive(grid, finished(grid));
    expect(grid.deletes).toEqual([[2, 5]]);
    expect(grid.reads).toBe(2); // where they are, then the check right before the delete
  });
});
