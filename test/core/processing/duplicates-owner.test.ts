// Which row a duplicate names as the one keeping the submission, in the exact words of the finding.
import { describe, expect, it } from 'vitest';
import { findDuplicates } from '../../../src/core/processing/duplicates';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { pendingRow, T0 } from '../memory-ports';

const numbered = (rows: QueueRow[]) => rows.map((row, i) => ({ ...row, rowNumber: i + 2 }));
const sent = (eventId: string, responseToken: string) => pendingRow({ eventId, responseToken, status: 'SENT', sentAt: T0 });

describe('findDuplicates names the owner', () => {
  it.each<[string, QueueRow[], string[]]>([
    ['by its event_id', [sent('e1', 't1'), pendingRow({ eventId: 'e1', responseToken: 't9' })], ['row 2 (event e1)']],
    ['by its response token when it has no event_id', [sent('', 't1'), pendingRow({ eventId: 'e5', responseToken: 't1' })], ['row 2 (event t1)']],
    ['the first of two rows that went further', [sent('e1', 't1'), sent('e1', 't2'), pendingRow({ eventId: 'e1', responseToken: 't3' })], ['row 2 (event e1)']],
    ['nothing, when no key is shared', [sent('e1', 't1'), pendingRow({ eventId: 'e2', responseToken: 't2' })], []],
  ])('%s', (_name, rows, originals) => {
    expect(findDuplicates(numbered(rows), () => new Set()).map((finding) => finding.original)).toEqual(originals);
  });
});

describe('DUPLICATE rows own no submission', () => {
  const dup = (eventId: string, original: number) =>
    pendingRow({ eventId, responseToken: `tok-${eventId}`, status: 'DUPLICATE', error: `DUPLICATE: the same submission is already in row ${original}` });
  it.each<[string, QueueRow[]]>([
    // Found by `npm run chaos -- --schedules 200 --seed 20261201 --latency google:0.1`: three concurrent identical
    // deliveries, two collapsed into the third; once staff approved it, a later run collapsed it into them.
    ['an APPROVED row that two earlier copies were collapsed into', [dup('e1', 4), dup('e1', 4), pendingRow({ eventId: 'e1', responseToken: 'tok-e1', status: 'APPROVED', result: 'r' })]],
    ['an AWAITING_APPROVAL row after a DUPLICATE copy', [dup('e1', 3), pendingRow({ eventId: 'e1', responseToken: 'tok-e1', status: 'AWAITING_APPROVAL', result: 'r' })]],
    ['a PENDING row after a DUPLICATE copy', [dup('e1', 3), pendingRow({ eventId: 'e1', responseToken: 'tok-e1' })]],
    ['a READY row whose token a DUPLICATE row of another event has', [dup('e2', 9), pendingRow({ eventId: 'e1', responseToken: 'tok-e2', status: 'READY', result: 'r' })]],
  ])('%s stays the one that answers', (_name, rows) => {
    expect(findDuplicates(numbered(rows), () => new Set())).toEqual([]);
  });

  it('two unstarted copies beside a DUPLICATE one: the earlier unstarted copy answers, the later becomes DUPLICATE naming it', () => {
    const rows = [dup('e1', 3), pendingRow({ eventId: 'e1', responseToken: 'tok-e1' }), pendingRow({ eventId: 'e1', responseToken: 'tok-e1' })];
    expect(findDuplicates(numbered(rows), () => new Set()).map((finding) => [finding.row.rowNumber, finding.original])).toEqual([[4, 'row 3 (event e1)']]);
  });
});
