// Which row a duplicate names as the one keeping the submission, in the exact words of the finding.
import { describe, expect, it } from 'vitest';
import { findDuplicates } from '../../../src/core/processing/duplicates';
import type { QueueRow } from '../../../src/core/queue-row';
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
