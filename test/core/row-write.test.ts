// The compare-and-set rule every Queue write uses: when a write may land, and which cells it writes.
import { describe, expect, it } from 'vitest';
import { emptyRow, type QueueRow } from '../../src/core/queue-row';
import { mergeWrite, stillHolds } from '../../src/core/row-write';

const T = Date.UTC(2026, 11, 1, 10, 0, 0);
const row = (patch: Partial<QueueRow> = {}): QueueRow => ({ ...emptyRow(), rowNumber: 5, eventId: 'evt-1', status: 'READY', recipient: 'a@example.com', result: 'Hello', ...patch });

describe('stillHolds: a write lands only where the row still shows what its writer read', () => {
  const read = row({ status: 'SENDING', claimedAt: T, mailRef: 'FQ-AAAAAA' });
  it.each<[string, Partial<QueueRow>, boolean]>([
    ['nothing changed', {}, true],
    ['a cell the system does not guard changed (recipient, result, error)', { recipient: 'b@example.com', result: 'Edited', error: 'note' }, true],
    ['the claim time differs only in its milliseconds (a date cell may drop them)', { claimedAt: T + 400 }, true],
    ['another submission sits there (a sort)', { eventId: 'evt-2' }, false],
    ['staff moved the status (SKIPPED)', { status: 'SKIPPED' }, false],
    ['another claim (a second later)', { claimedAt: T + 1000 }, false],
    ['the claim was cleared', { claimedAt: null }, false],
    ['sent_at was filled by hand', { sentAt: T }, false],
    ['mail_ref was changed', { mailRef: 'FQ-BBBBBB' }, false],
  ])('%s → %s', (_case, patch, holds) => {
    expect(stillHolds({ ...read, ...patch }, read)).toBe(holds);
  });

  it('a row read without an event_id never holds (a blank row is nobody\'s)', () => {
    const blank = row({ eventId: '' });
    expect(stillHolds(blank, blank)).toBe(false);
  });
});

describe('mergeWrite: only the cells the writer changed are written; the rest stay as they are now', () => {
  it('a claim keeps a recipient and a result staff edited after the run read the row', () => {
    const read = row();
    const claim = { ...read, status: 'SENDING', claimedAt: T, mailRef: 'FQ-AAAAAA', updatedAt: T };
    const now = { ...read, rowNumber: 9, recipient: 'fixed@example.com', result: 'Edited by a tutor' };
    expect(mergeWrite(read, claim, now)).toEqual({ ...claim, rowNumber: 9, recipient: 'fixed@example.com', result: 'Edited by a tutor' });
  });

  it('a field the writer changed wins over what staff typed there meanwhile (the move owns it)', () => {
    const read = row({ error: 'old reason' });
    const moved = { ...read, error: '' };
    expect(mergeWrite(read, moved, { ...read, error: 'typed by staff' }).error).toBe('');
  });

  it('a write of the row as read changes nothing', () => {
    const read = row();
    const now = { ...read, result: 'Edited' };
    expect(mergeWrite(read, { ...read }, now)).toEqual(now);
  });
});
