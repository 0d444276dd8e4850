// The compare-and-set rule every Queue write uses: when a write may land, and which cells it writes.
import { describe, expect, it } from 'vitest';
import { emptyRow, type QueueRow } from '../../../../src/core/domain/queue/queue-row';
import { holdsIdentity, mergeWrite, stillHolds, unchangedSince } from '../../../../src/core/domain/queue/row-write';

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

describe('holdsIdentity: a write without a row of its own (a cell note) lands where the same submission is in the same state', () => {
  it.each<[string, Partial<QueueRow>, { eventId: string; status: string }, boolean]>([
    ['the same event_id and status', {}, { eventId: 'evt-1', status: 'READY' }, true],
    ['other cells changed, even the claim (a note does not care)', { claimedAt: T, mailRef: 'FQ-X', result: 'Edited' }, { eventId: 'evt-1', status: 'READY' }, true],
    ['another submission', { eventId: 'evt-2' }, { eventId: 'evt-1', status: 'READY' }, false],
    ['another status', { status: 'SKIPPED' }, { eventId: 'evt-1', status: 'READY' }, false],
    ['no event_id expected (a blank row is nobody\'s)', { eventId: '' }, { eventId: '', status: 'READY' }, false],
  ])('%s → %s', (_case, patch, identity, holds) => {
    expect(holdsIdentity(row(patch), identity)).toBe(holds);
  });
});

describe('mergeWrite and the row number', () => {
  it('the row lands where it is now, whatever row number the writer carries', () => {
    const read = row();
    const written = { ...read, rowNumber: 7, status: 'SENDING' };
    expect(mergeWrite(read, written, { ...read, rowNumber: 9 })).toEqual({ ...read, rowNumber: 9, status: 'SENDING' });
  });
});

describe('stillHolds with times on both sides', () => {
  it.each<[string, number | null, number | null, boolean]>([
    ['both empty', null, null, true],
    ['read empty, now filled', null, T, false],
    ['read filled, now empty', T, null, false],
    ['the same second', T + 10, T + 990, true],
    ['the next second', T + 990, T + 1010, false],
  ])('sent_at %s → %s', (_case, readAt, nowAt, holds) => {
    const read = row({ sentAt: readAt });
    expect(stillHolds({ ...read, sentAt: nowAt }, read)).toBe(holds);
  });
});

describe('stillHolds: an empty time cell is never the same second as a filled one, not even the epoch\'s first second', () => {
  it.each<[string, number | null, number | null]>([
    ['claimed_at read empty, now 0 (typed by hand)', null, 0],
    ['claimed_at read empty, now 999 ms', null, 999],
    ['claimed_at read as 0, now empty', 0, null],
  ])('%s → false', (_case, readAt, nowAt) => {
    const read = row({ status: 'SENDING', claimedAt: readAt });
    expect(stillHolds({ ...read, claimedAt: nowAt }, read)).toBe(false);
  });

  it('a claimed_at of 0 read and still 0 holds', () => {
    const read = row({ status: 'SENDING', claimedAt: 0 });
    expect(stillHolds({ ...read }, read)).toBe(true);
  });
});

describe('unchangedSince: a write placed by row number lands only where every field is still exactly what was read', () => {
  const read = row({ status: 'SENDING', claimedAt: T, mailRef: 'FQ-AAAAAA', error: 'note' });
  it.each<[string, Partial<QueueRow>, boolean]>([
    ['nothing changed', {}, true],
    ['only the row number differs (the position is the caller\'s to check, not a field)', { rowNumber: 9 }, true],
    ['a recipient edited', { recipient: 'b@example.com' }, false],
    ['the error cell cleared', { error: '' }, false],
    ['the claim time moved by milliseconds only (no second-rounding here)', { claimedAt: T + 400 }, false],
  ])('%s → %s', (_case, patch, unchanged) => {
    expect(unchangedSince({ ...read, ...patch }, read)).toBe(unchanged);
  });
});
