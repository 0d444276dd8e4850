// The on-edit guard's words and figures, exactly: each note a person reads on the cell and each Log line, per branch.
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import {
  canStaffEdit, decideResultEdit, decideStatusEdit, decideSystemColumnEdit, decideUncheckedResultEdit, decideUncheckedStatusEdit, lastLoggedStatus,
} from '../../../src/core/staff/edit-guard';
import { repliedRow as row, STAFF, T0 } from '../fakes/rows';

const AT = '(2025-06-01 10:00 UTC, edit by ana@example.org)';
const by = 'ana@example.org';
const log = (eventId: string, from: string, to: string, detail: string): LogEntry => ({ at: T0, eventId, from, to, by, detail });

describe('which column staff may edit in which status', () => {
  it.each([
    ['result', 'READY', true], ['result', 'AWAITING_APPROVAL', true], ['result', 'APPROVED', false], ['result', '', false],
    ['event_id', 'READY', false], ['status', 'READY', false],
  ] as const)('%s while %j: %s', (header, status, editable) => {
    expect(canStaffEdit(header, status)).toBe(editable);
  });
});

describe('the status before a paste, from the Log', () => {
  const entry = (at: number, to: string): LogEntry => ({ at, eventId: 'ev-2', from: '', to, by, detail: '' });
  it.each<[string, LogEntry[], string | null]>([
    ['no line', [], null],
    ['one line', [entry(1, 'READY')], 'READY'],
    ['the latest by time, not by position', [entry(3, 'SENT'), entry(1, 'READY'), entry(2, 'SENDING')], 'SENT'],
    ['of two lines at the same moment, the later one written', [entry(5, 'READY'), entry(5, 'SKIPPED')], 'SKIPPED'],
    // The row pasted over may be the one answering the submission or a DUPLICATE copy: the unchecked rules decide.
    ['none when the submission has a copy as well', [entry(1, 'AWAITING_APPROVAL'), entry(2, 'DUPLICATE')], null],
    ['none when a copy was collapsed before the answering row moved', [entry(1, 'DUPLICATE'), entry(2, 'AWAITING_APPROVAL')], null],
  ])('%s', (_, history, expected) => {
    expect(lastLoggedStatus(history)).toBe(expected);
  });
});

describe('a status edit', () => {
  it('in a row without a submission is put back, whitespace trimmed, naming the empty cell', () => {
    expect(decideStatusEdit({ from: ' ', to: ' pending ', row: row('PENDING', { eventId: '' }), ...STAFF })).toEqual({
      kind: 'refused', putBack: '',
      note: `formqueue put back "(empty)" ${AT}: this row holds no submission (event_id is empty).`,
      log: log('', '', '', 'refused status edit to "pending": this row holds no submission (event_id is empty)'),
    });
  });

  it('a move the table refuses is put back with its reason, the old status trimmed', () => {
    expect(decideStatusEdit({ from: ' SENT ', to: 'PENDING', row: row('PENDING', { sentAt: 1 }), ...STAFF })).toEqual({
      kind: 'refused', putBack: 'SENT',
      note: `formqueue put back "SENT" ${AT}: SENT rows cannot go back to PENDING: the reply was already mailed.`,
      log: log('ev-2', 'SENT', 'SENT', 'refused status edit to "PENDING": SENT rows cannot go back to PENDING: the reply was already mailed'),
    });
  });

  it('from an empty cell, the note names "(empty)"', () => {
    const decision = decideStatusEdit({ from: '', to: 'PENDING', row: row('PENDING'), ...STAFF });
    expect(decision.kind === 'refused' && decision.note).toBe(`formqueue put back "(empty)" ${AT}: the row's status "" is not a status; ask an admin to repair it before moving it.`);
  });

  it.each([[' READY', 'READY '], ['READY', 'READY']])('%j to %j is the same status: nothing to do', (from, to) => {
    expect(decideStatusEdit({ from, to, row: row('READY'), ...STAFF })).toEqual({ kind: 'unchanged' });
  });

  it('an unknown value over an unknown value is put back, not taken as "the same"', () => {
    expect(decideStatusEdit({ from: 'oops', to: 'oops', row: row('oops'), ...STAFF }).kind).toBe('refused');
  });
});

describe('a result edit', () => {
  const limit = 'result can be edited only while the row is AWAITING_APPROVAL or READY, and this row is';
  it.each([['SENT', 'SENT'], ['', '(empty)']])('while %j is put back, the previous text restored', (status, shown) => {
    expect(decideResultEdit({ from: 'a', to: 'b', row: row(status), ...STAFF })).toEqual({
      kind: 'refused', putBack: 'a',
      note: `formqueue put back the previous result ${AT}: ${limit} ${shown}.`,
      log: log('ev-2', status, status, `refused result edit: ${limit} ${shown}`),
    });
  });

  it('while READY stands, logged with its length', () => {
    expect(decideResultEdit({ from: 'a', to: 'hello', row: row('READY'), ...STAFF })).toEqual({
      kind: 'allowed', row: { ...row('READY'), result: 'hello', updatedAt: T0 }, log: log('ev-2', 'READY', 'READY', 'result edited (5 characters)'),
    });
  });
});

describe('multi-cell edits of the status column', () => {
  const parkedDetail = (to: string) => `multi-cell edit to "${to}" could not be checked, as Sheets gives no previous values; `
    + 'parked in NEEDS_REVIEW so nothing is sent until a person looks (use the formqueue menu to act on several rows)';
  it.each<[string, string, string]>([
    ['SKIPPED', 'SKIPPED', 'multi-cell edit to SKIPPED: not checked, as Sheets gives no previous values'],
    ['skipped', 'SKIPPED', 'multi-cell edit to SKIPPED: not checked, as Sheets gives no previous values'],
    ['APPROVED', 'NEEDS_REVIEW', parkedDetail('APPROVED')],
    ['', 'NEEDS_REVIEW', parkedDetail('(empty)')],
  ])('%j leaves the row %s', (to, status, detail) => {
    const error = status === 'NEEDS_REVIEW' ? `STAFF_EDIT_UNCHECKED: ${detail}` : '';
    expect(decideUncheckedStatusEdit(row(to), to, STAFF)).toEqual({
      row: { ...row(to), status, error, updatedAt: T0 },
      log: log('ev-2', '(unknown)', status, detail),
      note: `formqueue ${AT}: ${detail}. The row's history is in the Log sheet.`,
    });
  });
});

describe('multi-cell edits of the result column', () => {
  it('while READY: stands, logged, no note', () => {
    expect(decideUncheckedResultEdit(row('READY'), STAFF)).toEqual({
      row: { ...row('READY'), updatedAt: T0 }, log: log('ev-2', 'READY', 'READY', 'result edited (multi-cell edit)'), note: null,
    });
  });

  it('while APPROVED: parked, so text nobody approved is not mailed', () => {
    const detail = 'result changed after approval by a multi-cell edit; parked in NEEDS_REVIEW so unapproved text is not mailed';
    expect(decideUncheckedResultEdit(row('APPROVED'), STAFF)).toEqual({
      row: { ...row('APPROVED'), status: 'NEEDS_REVIEW', error: `STAFF_EDIT_UNCHECKED: ${detail}`, updatedAt: T0 },
      log: log('ev-2', 'APPROVED', 'NEEDS_REVIEW', detail), note: `formqueue ${AT}: ${detail}.`,
    });
  });

  it.each([['SENT', 'SENT'], ['', '(empty)']])('while %j: only noted and logged, the row untouched', (status, shown) => {
    const detail = `result changed while ${shown} by a multi-cell edit; it could not be put back (Sheets gives no previous values)`;
    expect(decideUncheckedResultEdit(row(status), STAFF)).toEqual({ row: row(status), log: log('ev-2', status, status, detail), note: `formqueue ${AT}: ${detail}.` });
  });
});

describe('edits of a system-memory column', () => {
  const reason = (header: string) => `${header} is formqueue's memory of this row (it is how a reply is never mailed twice); set the status instead`;
  it('a typed edit is put back with the old text, a note and a Log line', () => {
    expect(decideSystemColumnEdit('mail_ref', 'FQ-1', row('SENT'), STAFF)).toEqual({
      kind: 'put-back', value: 'FQ-1', note: `formqueue put back mail_ref ${AT}: ${reason('mail_ref')}.`, log: log('ev-2', 'SENT', 'SENT', `refused mail_ref edit: ${reason('mail_ref')}`),
    });
  });

  it.each<[string, string, unknown]>([
    ['event_id', '45000', '45000'], // only time columns are read as times
    ['sent_at', '45000.5', new Date(Date.UTC(2023, 2, 15, 12))],
    ['sent_at', '', ''],
    ['sent_at', '  ', '  '], // blank is not day 0
    ['claimed_at', 'not a time', 'not a time'],
  ])('%s with old value %j is put back as %j', (header, oldValue, value) => {
    const decision = decideSystemColumnEdit(header as 'event_id', oldValue, row('SENT'), STAFF);
    expect(decision.kind === 'put-back' && decision.value).toEqual(value);
  });

  const pasted = 'event_id was changed by a paste or a multi-cell edit and could not be put back (Sheets gives no previous value)';
  const parked = '; parked in NEEDS_REVIEW so nothing is sent until a person looks';
  it.each<[string, boolean]>([['READY', true], ['PENDING', true], ['NEEDS_REVIEW', false], ['SENT', false], ['', false]])('a paste while %j: parked = %s', (status, park) => {
    const detail = `${pasted}${park ? parked : ''}`;
    expect(decideSystemColumnEdit('event_id', null, row(status), STAFF)).toEqual({
      kind: 'park',
      row: park ? { ...row(status), status: 'NEEDS_REVIEW', error: `STAFF_EDIT_UNCHECKED: ${detail}`, updatedAt: T0 } : row(status),
      note: `formqueue ${AT}: ${detail}.`,
      log: log('ev-2', status, park ? 'NEEDS_REVIEW' : status, detail),
    });
  });
});
