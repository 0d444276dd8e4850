// The Queue adapter keeps a Range handle per row span: the same span costs one getRange per execution, and every read through a kept handle sees the cells as they are now.
import { describe, expect, it } from 'vitest';
import { QUEUE_HEADERS, type QueueRow } from '../../src/core/domain/queue/queue-row';
import { createQueueStore } from '../../src/gas/queue-store';
import { FakeSheet, FakeSpreadsheet } from './fake-sheets';

const header = [...QUEUE_HEADERS];
const at = (name: (typeof QUEUE_HEADERS)[number]) => header.indexOf(name);
const cellsOf = (eventId: string, status: string): unknown[] => header.map((h) => (h === 'event_id' ? eventId : h === 'status' ? status : h === 'recipient' ? `${eventId}@example.com` : ''));

function setup(count: number) {
  const rows = Array.from({ length: count }, (_, i) => cellsOf(`ev-${i + 2}`, 'READY'));
  const queue = new FakeSheet('Queue', header, rows);
  const store = createQueueStore(new FakeSpreadsheet([queue, new FakeSheet('Archive', header)]).asApps());
  const all = store.readAll();
  queue.calls = [];
  const row = (n: number): QueueRow => all.find((r) => r.rowNumber === n)!;
  const count_ = (call: string) => queue.calls.filter((c) => c === call).length;
  return { queue, store, row, count: count_ };
}

describe('Queue adapter: one Range handle per row span', () => {
  it("a batch's compare-and-set read, its write, the read before each of its mails and its outcome write ask for the rows' range once", () => {
    const { store, row, count } = setup(8);
    const batch = [2, 3, 4, 5].map(row);
    const claimed = batch.map((r) => ({ ...r, status: 'SENDING' as const }));
    store.writeRows(claimed, batch);
    for (const n of [2, 3, 4, 5]) store.readRows([n]);
    store.writeRows(claimed.map((r) => ({ ...r, status: 'SENT' as const })), claimed);
    expect(count('getRange')).toBe(1);
    expect(count('getValues')).toBe(6); // the two compare-and-set reads and one read per mail
    expect(count('setValues')).toBe(2);
  });

  it('a row read through a kept handle is read as it is now: a person skipping it after the claim is seen by the read before its mail', () => {
    const { queue, store, row } = setup(8);
    const batch = [2, 3, 4, 5].map(row);
    store.writeRows(batch.map((r) => ({ ...r, status: 'SENDING' as const })), batch);
    queue.values[3 - 1][at('status')] = 'SKIPPED'; // row 3, between the claim and its mail
    queue.values[4 - 1][at('sent_at')] = '2026-11-30 10:00:00'; // row 4: sent_at filled by hand
    expect(store.readRows([3])[0].status).toBe('SKIPPED');
    expect(store.readRows([4])[0].sentAt).not.toBeNull();
    expect(store.readRows([5])[0].status).toBe('SENDING');
  });

  it("a single row is never read through the whole Queue's handle: a wide span is not re-read for one row", () => {
    const { store, count } = setup(40); // readAll kept a handle of 40 rows
    store.readRows([20]);
    expect(count('getRange')).toBe(1); // a handle of its own
    store.readRows([20]);
    expect(count('getRange')).toBe(1); // kept
  });

  it('a write to a kept span after a person sorted the Queue lands where the submission stands now, not on the row now at its old number', () => {
    const { queue, store, row } = setup(4);
    const batch = [2, 3].map(row);
    store.writeRows(batch.map((r) => ({ ...r, status: 'SENDING' as const })), batch);
    const claimed = store.readRows([2, 3]);
    queue.reorder((rows) => rows.reverse()); // ev-2 now at row 5, ev-3 at row 4
    const placed = store.writeRows(claimed.map((r) => ({ ...r, status: 'SENT' as const })), claimed);
    expect(placed.map((r) => r?.rowNumber)).toEqual([5, 4]);
    expect(queue.column('status')).toEqual(['READY', 'READY', 'SENT', 'SENT']);
    expect(queue.column('event_id')).toEqual(['ev-5', 'ev-4', 'ev-3', 'ev-2']);
  });
});
