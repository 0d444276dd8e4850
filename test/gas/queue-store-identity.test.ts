// The Queue adapter's archive and notes land only on the rows they are for, whatever a person sorted between two calls.
import { describe, expect, it } from 'vitest';
import { QUEUE_HEADERS, emptyRow, type QueueRow } from '../../src/core/domain/queue/queue-row';
import { createQueueStore } from '../../src/gas/queue-store';
import { FakeSheet, FakeSpreadsheet } from './fake-sheets';

const header = [...QUEUE_HEADERS];
const cellsOf = (eventId: string, status: string): unknown[] => header.map((h) => (h === 'event_id' ? eventId : h === 'status' ? status : h === 'recipient' ? `${eventId}@example.com` : ''));
const reversed = <T>(rows: T[]) => rows.reverse();

function setup(rows: [string, string][]) {
  const queue = new FakeSheet('Queue', header, rows.map(([id, status]) => cellsOf(id, status)));
  const archive = new FakeSheet('Archive', header);
  const store = createQueueStore(new FakeSpreadsheet([queue, archive]).asApps());
  const row = (eventId: string): QueueRow => store.readAll().find((r) => r.eventId === eventId) ?? { ...emptyRow(), eventId };
  return { queue, archive, store, row };
}

describe('Queue adapter: archive deletes are compare-and-set by event_id', () => {
  it('a sort while the Archive append runs: the archived rows are deleted where they moved, never the live rows now standing there', () => {
    const { queue, archive, store, row } = setup([['old-1', 'SENT'], ['old-2', 'SENT'], ['live-1', 'PENDING'], ['live-2', 'PENDING']]);
    const finished = [row('old-1'), row('old-2')];
    archive.before = (call) => {
      if (call === 'appendRow' && archive.values.length === 2) queue.reorder(reversed); // after the first row copied
    };
    const moved = store.archiveRows(finished);
    expect(moved.map((r) => r.eventId).sort()).toEqual(['old-1', 'old-2']);
    expect(queue.column('event_id')).toEqual(['live-2', 'live-1']);
    expect(archive.column('event_id')).toEqual(['old-1', 'old-2']);
  });

  it('rows archived by a move that could not delete them are deleted by the next one without a second Archive copy', () => {
    const { queue, archive, store, row } = setup([['old-1', 'SENT'], ['live-1', 'PENDING']]);
    archive.values.push(cellsOf('old-1', 'SENT')); // copied by an earlier move that staff kept from deleting
    store.archiveRows([row('old-1')]);
    expect(queue.column('event_id')).toEqual(['live-1']);
    expect(archive.column('event_id')).toEqual(['old-1']);
  });
});

describe('Queue adapter: notes are compare-and-set by event_id', () => {
  it('a sort between the write and its note: the note goes on the moved row, not on the submission now at its old number', () => {
    const { queue, store, row } = setup([['ev-a', 'SENT'], ['ev-b', 'SENT']]);
    const a = row('ev-a');
    queue.reorder(reversed); // ev-a now at row 3, ev-b at row 2
    store.noteCells([{ rowNumber: a.rowNumber, expected: { eventId: 'ev-a', status: 'SENT' }, header: 'sent_at', note: 'put back' }]);
    const at = header.indexOf('sent_at');
    expect(queue.notes[1][at]).toBe(''); // ev-b
    expect(queue.notes[2][at]).toBe('put back'); // ev-a
  });

  it('a note whose row is gone or changed status is not written anywhere', () => {
    const { queue, store, row } = setup([['ev-a', 'SENT'], ['ev-b', 'SENT']]);
    const a = row('ev-a');
    queue.reorder((rows) => rows.filter((r) => r.cells[header.indexOf('event_id')] !== 'ev-a'));
    store.noteCells([{ rowNumber: a.rowNumber, expected: { eventId: 'ev-a', status: 'SENT' }, header: 'sent_at', note: 'put back' }]);
    expect(queue.notes.flat().filter((n) => n !== '')).toEqual([]);
  });
});
