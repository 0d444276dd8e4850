// The on-edit guard's I/O over small fakes: what it reads of the event and the sheet, and that core's plan lands as cells, notes, a toast and Log lines.
import { describe, expect, it } from 'vitest';
import { QUEUE_HEADERS } from '../../src/core/domain/queue/queue-row';
import { DIRTY_PROPERTY } from '../../src/core/domain/queue/tick-gate';
import { guardQueueEdit } from '../../src/gas/edit-guard';
import { createQueueStore } from '../../src/gas/queue-store';
import { MemoryAudit, MemoryProperties } from '../core/memory-ports';
import { FakeSheet, FakeSpreadsheet } from './fake-sheets';

const header: string[] = [...QUEUE_HEADERS];
const column = (name: string) => header.indexOf(name) + 1;
const T0 = Date.UTC(2026, 10, 20, 10, 0, 0);

function setup(status: string) {
  const queue = new FakeSheet('Queue', header, [header.map((h) => ({ status, event_id: 'ev-a', result: 'Dear Ann' })[h as 'status'] ?? '')]);
  const book = new FakeSpreadsheet([queue, new FakeSheet('Archive', header)]);
  const toasts: string[] = [];
  let opened = 0;
  const props = new MemoryProperties();
  const audit = new MemoryAudit();
  const deps = { props: () => props, audit: () => audit, queue: () => (opened++, createQueueStore(book.asApps())), now: T0 };
  const edit = (col: number, value: string, oldValue?: string) =>
    ({
      range: { getSheet: () => queue, getRow: () => 2, getNumRows: () => 1, getColumn: () => col, getNumColumns: () => 1 },
      value,
      oldValue,
      user: 'ana@example.org',
      source: { toast: (text: string) => toasts.push(text) },
    }) as unknown as GoogleAppsScript.Events.SheetsOnEdit;
  return { queue, deps, props, audit, toasts, edit, opened: () => opened };
}

describe('guardQueueEdit', () => {
  it('a status typed over FAILED that the table refuses is put back in the cell, with the note on it, one toast and one Log line', () => {
    const { queue, deps, props, audit, toasts, edit } = setup('APPROVED');
    const outcome = guardQueueEdit(edit(column('status'), 'APPROVED', 'FAILED'), deps);
    expect(outcome.refused).toBe(1);
    expect(queue.column('status')).toEqual(['FAILED']);
    expect(queue.notes[1][column('status') - 1]).toBe(outcome.notes[0]);
    expect(toasts).toEqual([outcome.notes[0]]);
    expect(audit.entries).toMatchObject([{ eventId: 'ev-a', from: 'FAILED', to: 'FAILED', by: 'ana@example.org' }]);
    // The cell changed back: the next tick looks at the queue.
    expect(props.values[DIRTY_PROPERTY]).toBe(String(T0));
  });

  it('an edit of a column the guard does not judge reads no rows and opens no store', () => {
    const { queue, deps, audit, edit, opened } = setup('PENDING');
    queue.calls = [];
    guardQueueEdit(edit(column('recipient'), 'b@example.org', 'a@example.org'), deps);
    expect(opened()).toBe(0);
    expect(queue.calls.filter((call) => call === 'getValues')).toHaveLength(1); // the header only
    expect(audit.batches).toEqual([]);
  });
});
