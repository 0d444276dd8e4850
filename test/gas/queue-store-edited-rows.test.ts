// The Queue adapter's write of one staff edit's rows: where the edit put them, all or nothing, only the fields changed.
import { describe, expect, it } from 'vitest';
import { indexColumns, QUEUE_HEADERS, rowFromValues } from '../../src/core/domain/queue/queue-row';
import { createQueueStore } from '../../src/gas/queue-store';
import { FakeSheet, FakeSpreadsheet } from './fake-sheets';

const header = [...QUEUE_HEADERS, 'staff note'];
const cellsOf = (eventId: string, status: string): unknown[] => header.map((h) => (h === 'event_id' ? eventId : h === 'status' ? status : h === 'staff note' ? 'call back' : ''));

function setup() {
  const queue = new FakeSheet('Queue', header, [cellsOf('ev-a', 'APPROVED'), cellsOf('', 'APPROVED')]);
  const store = createQueueStore(new FakeSpreadsheet([queue, new FakeSheet('Archive', header)]).asApps());
  // As the guard reads them: blank rows and rows without an event_id included.
  const read = [2, 3].map((n) => rowFromValues(indexColumns(header), queue.values[n - 1], n));
  return { queue, store, read };
}

describe('QueueStore.writeEditedRows', () => {
  it('writes only the cells of the fields changed, even on a row with no event_id, and leaves empty cells and staff columns as they were', () => {
    const { queue, store, read } = setup();
    const ok = store.writeEditedRows([{ ...read[0], status: 'NEEDS_REVIEW' }, { ...read[1], status: '' }], read);
    expect(ok).toBe(true);
    expect(queue.column('status')).toEqual(['NEEDS_REVIEW', '']);
    expect(queue.column('attempts')).toEqual(['', '']);
    expect(queue.column('staff note')).toEqual(['call back', 'call back']);
    // One read (the compare-and-set) and one write of the box around the changed cells.
    expect(queue.calls.filter((call) => call === 'setValues')).toHaveLength(1);
  });

  it('a block in which any row changed since it was read is not written at all', () => {
    const { queue, store, read } = setup();
    queue.values[2][QUEUE_HEADERS.indexOf('result')] = 'a person typed meanwhile';
    expect(store.writeEditedRows([{ ...read[0], status: 'NEEDS_REVIEW' }, read[1]], read)).toBe(false);
    expect(queue.column('status')).toEqual(['APPROVED', 'APPROVED']);
    expect(queue.calls).not.toContain('setValues');
  });
});
