// How the on-edit guard reads an edit event: the old value told or unknown, what the cell held; a row a sort only moved; the one toast.
import { describe, expect, it } from 'vitest';
import { cellBeforeEdit, editToast, isIntactRow, readSingleCellEdit, toldOldValue } from '../../../src/core/staff/edit-event';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { queueRow } from '../fakes/rows';

describe('one status or result cell, as the trigger hands it over', () => {
  // Google documents e.oldValue for a typed single-cell edit (absent when the cell was empty) and nothing for a paste;
  // tanaikech/GetEditType lists a pasted cell both with neither value (OTHER) and with a value and no oldValue
  // (PUT_VALUE). Without e.oldValue the old value is unknown, never taken as empty.
  it.each<[string, { value?: string; oldValue?: string; now: string }, 'old-known' | 'old-unknown' | 'superseded']>([
    ['typed and still there', { value: 'APPROVED', oldValue: 'AWAITING_APPROVAL', now: 'APPROVED' }, 'old-known'],
    ['cleared (no e.value, the old value given)', { oldValue: 'READY', now: '' }, 'old-known'],
    ['a value and no oldValue: typed into an empty cell, or pasted over any (GetEditType PUT_VALUE)', { value: 'APPROVED', now: 'APPROVED' }, 'old-unknown'],
    ['pasted: neither value given, the cell not empty (GetEditType OTHER)', { now: 'APPROVED' }, 'old-unknown'],
    ['neither value given and the cell empty: an empty paste may have emptied a status (GetEditType REMOVE_VALUE)', { now: '' }, 'old-unknown'],
    ['typed, then processing moved the row', { value: 'APPROVED', oldValue: 'READY', now: 'SENDING' }, 'superseded'],
    ['a value and no oldValue, then processing moved the row', { value: 'APPROVED', now: 'SENDING' }, 'superseded'],
    ['cleared, then processing wrote the cell', { oldValue: 'READY', now: 'SENDING' }, 'superseded'],
  ])('%s', (_, edit, expected) => {
    expect(readSingleCellEdit(edit)).toBe(expected);
  });
});

describe('the old value of one system cell: told by Sheets, or unknown', () => {
  it.each<[string, { value?: string; oldValue?: string }, string | null]>([
    ['typed over a value', { value: 'FQ-X', oldValue: 'FQ-7K2M9Q' }, 'FQ-7K2M9Q'],
    ['cleared', { oldValue: 'FQ-7K2M9Q' }, 'FQ-7K2M9Q'],
    ['a value and no oldValue (a paste in the value-only shape, or typed into an empty cell)', { value: 'FQ-X' }, null],
    ['neither (a paste in the none shape)', {}, null],
  ])('%s', (_, edit, expected) => {
    expect(toldOldValue(edit)).toBe(expected);
  });
});

describe('what a status or result cell held before an edit Sheets told no old value of', () => {
  const log = (at: number, from: string, to: string): LogEntry => ({ at, eventId: 'ev-2', from, to, by: 'system', detail: '' });
  const sent = [log(1, 'READY', 'SENDING'), log(2, 'SENDING', 'SENT')];
  it.each<[string, 'status' | 'result', string | null, string, LogEntry[], string | null]>([
    ['told by Sheets: that value, whatever the Log says', 'status', 'READY', 'ev-2', sent, 'READY'],
    ['told empty by Sheets (a clear): empty', 'status', '', 'ev-2', sent, ''],
    ['not told: the status the Log last recorded', 'status', null, 'ev-2', sent, 'SENT'],
    ['not told, and the Log knows nothing of the submission: unknown (judged unchecked)', 'status', null, 'ev-2', [], null],
    ['not told, and the Log tells of a DUPLICATE copy too: unknown', 'status', null, 'ev-2', [...sent, log(3, 'PENDING', 'DUPLICATE')], null],
    ['not told, in a row of no submission: empty (a status there is refused)', 'status', null, '', sent, ''],
    ['a result not told: the Log keeps no result text, unknown', 'result', null, 'ev-2', sent, null],
    ['a result not told, in a row of no submission: empty', 'result', null, '', [], ''],
  ])('%s', (_, column, told, eventId, history, expected) => {
    expect(cellBeforeEdit(column, told, queueRow('SENT', { eventId }), history)).toBe(expected);
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
