// How the on-edit guard reads an edit event: typed, pasted or superseded; a row a sort only moved; the one toast.
import { describe, expect, it } from 'vitest';
import { editToast, isIntactRow, readSingleCellEdit } from '../../../src/core/staff/edit-event';
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
  it.each<[string, string, string, string | null, boolean]>([
    ['a blank row', '', 'READY', 'SENT', true],
    ['the status the Log last recorded', 'ev-2', 'SENT', 'SENT', true],
    ['a status the Log did not record last', 'ev-2', 'READY', 'SENT', false],
    ['PENDING with no Log line (intake logs nothing)', 'ev-2', 'PENDING', null, true],
    ['another status with no Log line', 'ev-2', 'SENT', null, false],
  ])('%s: %s', (_, eventId, status, logged, intact) => {
    expect(isIntactRow(queueRow(status, { eventId }), logged)).toBe(intact);
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
