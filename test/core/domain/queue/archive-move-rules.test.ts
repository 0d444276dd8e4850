// moveToArchive case by case: which rows it copies and deletes when staff sort, edit, paste or delete rows meanwhile, in what
// order Archive receives them, and the service calls it spends.
import { describe, expect, it } from 'vitest';
import { moveToArchive } from '../../../../src/core/domain/queue/archive-move';
import type { QueueRow } from '../../../../src/core/domain/queue/queue-row';
import { finished, MemoryGrid, queueOf } from '../../fakes/archive-grid';
import { queueRow } from '../../fakes/rows';

const numbered = (rows: QueueRow[]) => rows.map((row, i) => ({ ...row, rowNumber: i + 2 }));
const eventIds = (rows: readonly QueueRow[]) => rows.map((row) => row.eventId);

describe('which rows are copied to Archive', () => {
  it('a row not yet in Archive is copied even when Archive holds other rows', () => {
    const grid = new MemoryGrid(queueOf(1, 1));
    grid.archive = [queueRow('SENT', { eventId: 'older' })];
    expect(eventIds(moveToArchive(grid, finished(grid)))).toEqual(['old-1']);
    expect(eventIds(grid.archive)).toEqual(['older', 'old-1']);
  });

  it('rows reach Archive in Queue order, whatever order they are given in', () => {
    const grid = new MemoryGrid(numbered([queueRow('SENT', { eventId: 'old-1' }), queueRow('PENDING', { eventId: 'live-1' }), queueRow('SENT', { eventId: 'old-2' })]));
    moveToArchive(grid, finished(grid).reverse());
    expect(eventIds(grid.archive)).toEqual(['old-1', 'old-2']);
    expect(grid.ids()).toEqual(['live-1']);
  });

  it('a finished row without an event_id is neither archived nor deleted: a row is its event_id', () => {
    const grid = new MemoryGrid(numbered([queueRow('SENT', { eventId: '' }), queueRow('SENT', { eventId: 'old-1' })]));
    expect(eventIds(moveToArchive(grid, finished(grid)))).toEqual(['old-1']);
    expect(eventIds(grid.archive)).toEqual(['old-1']);
    expect(grid.ids()).toEqual(['']);
  });

  it('the same submission given twice (one of them no longer where it was read) is copied and deleted once', () => {
    const grid = new MemoryGrid(queueOf(1, 1));
    const [row] = finished(grid);
    moveToArchive(grid, [row, { ...row, rowNumber: 3 }]);
    expect(eventIds(grid.archive)).toEqual(['old-1']);
    expect(grid.deletes).toEqual([[2, 1]]);
    expect(grid.ids()).toEqual(['live-1']);
  });

  it('rows already in Archive (a move that could not delete them) are not appended again, not even as an empty append', () => {
    const grid = new MemoryGrid(queueOf(2, 1));
    grid.archive = finished(grid);
    expect(eventIds(moveToArchive(grid, finished(grid)))).toEqual(['old-1', 'old-2']);
    expect(grid.appends).toEqual([]);
    expect(grid.ids()).toEqual(['live-1']);
  });

  it('rows no longer in Queue at all: nothing is moved, and Archive is not even read', () => {
    const grid = new MemoryGrid(queueOf(0, 1));
    const gone = queueRow('SENT', { eventId: 'old-1', rowNumber: 2 });
    expect(moveToArchive(grid, [gone])).toEqual([]);
    expect(grid.archiveReads).toBe(0);
    expect(grid.appends).toEqual([]);
    expect(grid.ids()).toEqual(['live-1']);
  });
});

describe('which rows are deleted from Queue', () => {
  it('a SENT row staff sorted into the place of another SENT row: only the archived one is deleted, wherever it went', () => {
    const grid = new MemoryGrid(numbered([queueRow('SENT', { eventId: 'old-1' }), queueRow('SENT', { eventId: 'kept' })]));
    const [row] = finished(grid);
    grid.afterAppend = () => grid.sort((all) => all.reverse()); // `kept` now stands where old-1 stood, with the same status
    expect(eventIds(moveToArchive(grid, [row]))).toEqual(['old-1']);
    expect(grid.ids()).toEqual(['kept']);
  });

  it('a row staff deleted meanwhile (the Queue now ends inside the block): the other rows are still moved, nothing else is deleted', () => {
    const grid = new MemoryGrid(queueOf(3, 0));
    grid.afterAppend = () => grid.queue.pop();
    expect(eventIds(moveToArchive(grid, finished(grid))).sort()).toEqual(['old-1', 'old-2']);
    expect(grid.ids()).toEqual([]);
  });

  it('in a block where staff changed one row\'s status, only the unchanged rows are deleted', () => {
    const grid = new MemoryGrid(queueOf(2, 1));
    grid.afterAppend = () => (grid.queue[1].status = 'PENDING');
    expect(eventIds(moveToArchive(grid, finished(grid)))).toEqual(['old-1']);
    expect(grid.ids()).toEqual(['old-2', 'live-1']);
  });

  it('rows given in any order are still deleted as one block', () => {
    const grid = new MemoryGrid(queueOf(5, 1));
    moveToArchive(grid, finished(grid).reverse());
    expect(grid.deletes).toEqual([[2, 5]]);
    expect(grid.reads).toBe(2);
  });

  it('a row with no sheet row number (not read from the sheet) is not looked for; the others still move', () => {
    const grid = new MemoryGrid(queueOf(2, 1));
    const [first, second] = finished(grid);
    expect(eventIds(moveToArchive(grid, [{ ...first, rowNumber: 0 }, second]))).toEqual(['old-2']);
    expect(grid.ids()).toEqual(['old-1', 'live-1']);
  });
});

describe('a row no longer where it was read is looked for by its event_id', () => {
  it('its DUPLICATE now stands in its place: the original is found where it went and moved; the DUPLICATE stays', () => {
    const grid = new MemoryGrid(numbered([queueRow('DUPLICATE', { eventId: 'ev-a' }), queueRow('SENT', { eventId: 'ev-a' })]));
    const readEarlier = { ...grid.queue[1], rowNumber: 2 };
    expect(moveToArchive(grid, [readEarlier]).map((row) => [row.rowNumber, row.status])).toEqual([[3, 'SENT']]);
    expect(grid.queue.map((row) => row.status)).toEqual(['DUPLICATE']);
  });

  it('found twice (staff pasted a copy): left for a person, neither copied nor deleted', () => {
    const grid = new MemoryGrid(numbered([queueRow('PENDING', { eventId: 'live-1' }), queueRow('SENT', { eventId: 'old-1' }), queueRow('SENT', { eventId: 'old-1' })]));
    expect(moveToArchive(grid, [{ ...grid.queue[1], rowNumber: 2 }])).toEqual([]);
    expect(grid.archive).toEqual([]);
    expect(grid.ids()).toEqual(['live-1', 'old-1', 'old-1']);
  });

  it('found elsewhere with another status (staff set it back to PENDING): neither copied nor deleted', () => {
    const grid = new MemoryGrid(numbered([queueRow('PENDING', { eventId: 'live-1' }), queueRow('PENDING', { eventId: 'old-1' })]));
    expect(moveToArchive(grid, [queueRow('SENT', { eventId: 'old-1', rowNumber: 2 })])).toEqual([]);
    expect(grid.archive).toEqual([]);
    expect(grid.ids()).toEqual(['live-1', 'old-1']);
  });

  it('rows moved again before every check are checked three times, looked for again between checks only, then left in Queue', () => {
    const grid = new MemoryGrid(queueOf(2, 1));
    const read = grid.identitiesAt.bind(grid);
    let inserted = 0;
    // Once the copy is in Archive, staff insert a row at the top before every read of the whole block.
    grid.identitiesAt = (first, count) => {
      if (grid.archive.length > 0 && count > 1) grid.sort((all) => [queueRow('PENDING', { eventId: `inserted-${++inserted}` }), ...all]);
      return read(first, count);
    };
    expect(moveToArchive(grid, finished(grid))).toEqual([]);
    expect(inserted).toBe(3 + 2);
    expect(grid.deletes).toEqual([]);
    expect(eventIds(grid.archive)).toEqual(['old-1', 'old-2']);
  });
});
