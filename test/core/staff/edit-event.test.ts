// How the on-edit guard reads an edit event: typed, pasted or superseded; a row a sort only moved; the one toast.
import { describe, expect, it } from 'vitest';
import { editToast, isIntactRow, readSingleCellEdit } from '../../../src/core/staff/edit-event';
import type { LogEntry } from '../../../src/core/ports';
import { queueRow } from '../fakes/rows';

describe('one status or result cell, as the trigger hands it over', () => {
  it.each<[string, { value?: string; oldValue?: string; now: string }, 'typed' | 'pasted' | 'superseded']>([
    ['typed and still there', { value: 'APPROVED', oldValue: 'AWAITING_APPROVAL', now: 'APPROVED' }, 'typed'],
    ['typed into an empty cell', { value: 'APPROVED', now: 'APPROVED' }, 'typed'],
    ['cleared (no e.value, the old value given)', { oldValue: 'READY', now: '' }, 'typed'],
    ['pasted: neither value given, the cell not empty', { now: 'APPROVED' }, 'pasted'],
    ['neither value given and the cell empty: a clear, not a paste', { now: '' }, 'typed'],
    ['typed, then processing moved the row', { value: 'APPROVED', oldValue: 'READY', now: 'SENDING' }, 'superseded'],
    ['cleared, then processing wrote the cell', { oldValue: 'READY', now: 'SENDING' }, 'superseded'],
  ])('%s', (_, edit, expected) => {
    expect(readSingleCellEdit(edit)).toBe(expected);
  });
});

describe('a row of a whole-row block that a sort only moved', () => {
  const line = (at: number, from: string, to: string, by = 'system'): LogEntry => ({ at, eventId: 'ev-2', from, to, by, detail: '' });
  const sent = [line(1, 'PENDING', 'GENERATING'), line(2, 'GENERATING', 'READY'), line(3, 'READY', 'SENDING'), line(4, 'SENDING', 'SENT')];
  // A copy of the submission collapsed after the answering row had gone on to AWAITING_APPROVAL.
  const withCopy = [line(1, 'PENDING', 'GENERATING'), line(2, 'GENERATING', 'AWAITING_APPROVAL'), line(3, 'PENDING', 'DUPLICATE')];
  it.each<[string, string, string, LogEntry[], boolean]>([
    ['a blank row', '', 'READY', sent, true],
    ['the status the Log last recorded', 'ev-2', 'SENT', sent, true],
    ['a status the Log did not record last', 'ev-2', 'READY', sent, false],
    ['PENDING with no Log line (intake logs nothing)', 'ev-2', 'PENDING', [], true],
    ['another status with no Log line', 'ev-2', 'SENT', [], false],
    ['a submission with a copy: its answering row, in the status its own lines end in', 'ev-2', 'AWAITING_APPROVAL', withCopy, true],
    ['a submission with a copy: the copy, DUPLICATE', 'ev-2', 'DUPLICATE', withCopy, true],
    ['a submission with a copy: a status no row of it had', 'ev-2', 'APPROVED', withCopy, false],
    ['a copy collapsed while the answering row is still PENDING (no line of its own): that row', 'ev-2', 'PENDING', [line(1, 'PENDING', 'DUPLICATE')], true],
    ['DUPLICATE with no copy in the Log', 'ev-2', 'DUPLICATE', sent, false],
  ])('%s: %s', (_, eventId, status, history, intact) => {
    expect(isIntactRow(queueRow(status, { eventId }), history)).toBe(intact);
  });
});

describe('the toast after an edit', () => {
  it('one note is the toast', () => {
    expect(editToast(['formqueue put back status.'])).toBe('formqueue put back status.');
  });
  it('several notes: the first, and how many more the cell notes hold', () => {
    expect(editToast(['first.', 'second.', 'third.'])).toBe('first. (and 2 more: see the cell notes)');
  });
});
