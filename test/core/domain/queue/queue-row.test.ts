// The one mapper between Queue cells and rows: columns found by header name, times as epoch ms, staff columns kept.
import { beforeEach, describe, expect, it } from 'vitest';
import {
  emptyRow,
  headerColumns,
  indexColumns,
  missingColumns,
  QUEUE_HEADERS,
  QUEUE_NUMBER_FORMATS,
  rowFromValues,
  rowNumberFormats,
  rowToValues,
  TIME_HEADERS,
  type QueueRow,
} from '../../../../src/core/domain/queue/queue-row';

const T = Date.UTC(2026, 11, 1, 9, 30, 0);
// Built before each test, not at import, so that Stryker's active mutant reaches indexColumns.
let FULL: ReturnType<typeof indexColumns>;
beforeEach(() => {
  FULL = indexColumns(QUEUE_HEADERS);
});

function cells(values: Partial<Record<(typeof QUEUE_HEADERS)[number], unknown>>): unknown[] {
  return QUEUE_HEADERS.map((name) => values[name] ?? '');
}

describe('indexColumns and missingColumns', () => {
  it('finds each header by name wherever staff moved it, trimming stray spaces', () => {
    const index = indexColumns(['notes', ' event_id ', 'status', ...QUEUE_HEADERS.filter((h) => h !== 'status' && h !== 'event_id')]);
    expect(index.event_id).toBe(1);
    expect(index.status).toBe(2);
    expect(index.received_at).toBe(3);
    expect(missingColumns(index)).toEqual([]);
  });

  it('marks a missing header -1 and lists every missing one in header order', () => {
    const index = indexColumns(['status', 'event_id', 42, null]);
    expect(index.recipient).toBe(-1);
    expect(missingColumns(index)).toEqual(QUEUE_HEADERS.filter((h) => h !== 'status' && h !== 'event_id'));
  });

  it('a header is matched exactly, not by case or prefix', () => {
    expect(indexColumns(['Status', 'event_id_2']).status).toBe(-1);
    expect(indexColumns(['Status', 'event_id_2']).event_id).toBe(-1);
  });
});

describe('headerColumns: the width every writer of the Queue and Archive uses', () => {
  it.each([
    ['ends at the last named cell', ['status', 'event_id', 'notes', '', ''], 3],
    ['a cell of only spaces names nothing', ['status', 'event_id', '  ', '\t'], 2],
    ['an unnamed cell between named ones is kept (a staff column carried through)', ['status', '', 'notes'], 3],
    ['an empty or null row is still one column wide', ['', null], 1],
    ['no cells at all is one column wide', [], 1],
  ])('%s', (_name, header, width) => {
    expect(headerColumns(header).width).toBe(width);
  });

  it('finds our columns by name within that width, wherever they sit', () => {
    const { index, width } = headerColumns(['notes', 'event_id', 'status', ' ']);
    expect([index.event_id, index.status, index.recipient, width]).toEqual([1, 2, -1, 3]);
  });
});

describe('emptyRow', () => {
  it('is an unwritten PENDING row with no times, no attempts and empty text', () => {
    expect(emptyRow()).toEqual({
      rowNumber: 0, status: 'PENDING', eventId: '', receivedAt: null, formId: '', responseToken: '', recipient: '',
      submission: '', payload: '', attempts: 0, nextAttemptAt: null, claimedAt: null, result: '', sentAt: null,
      mailRef: '', error: '', updatedAt: null,
    });
  });
});

describe('rowFromValues', () => {
  it('reads every column into its field, times as epoch milliseconds', () => {
    const row = rowFromValues(FULL, cells({
      status: 'READY', event_id: 'ev1', received_at: new Date(T), form_id: 'f1', response_token: 'tok', recipient: 'a@b.c',
      submission: 'Q: A', payload: '{}', attempts: 2, next_attempt_at: new Date(T + 1), claimed_at: new Date(T + 2),
      result: 'Hello', sent_at: new Date(T + 3), mail_ref: 'FQ-1', error: 'E', updated_at: new Date(T + 4),
    }), 7);
    expect(row).toEqual({
      rowNumber: 7, status: 'READY', eventId: 'ev1', receivedAt: T, formId: 'f1', responseToken: 'tok', recipient: 'a@b.c',
      submission: 'Q: A', payload: '{}', attempts: 2, nextAttemptAt: T + 1, claimedAt: T + 2, result: 'Hello', sentAt: T + 3,
      mailRef: 'FQ-1', error: 'E', updatedAt: T + 4,
    });
  });

  it.each<[string, unknown, number | null]>([
    ['an empty cell', '', null],
    ['null', null, null],
    ['undefined', undefined, null],
    ['an invalid Date', new Date(Number.NaN), null],
    ['a number (already epoch ms)', T, T],
    ['an ISO string', '2026-12-01T09:30:00Z', T],
    ['text that is no date', 'tomorrow-ish', null],
  ])('a time cell holding %s reads as %s', (_what, cell, expected) => {
    expect(rowFromValues(FULL, cells({ sent_at: cell }), 2).sentAt).toBe(expected);
  });

  it('recognises a Date from another realm by its tag, not instanceof', () => {
    const foreign = { getTime: () => T, toISOString: () => new Date(T).toISOString(), [Symbol.toStringTag]: 'Date' };
    const row = rowFromValues(FULL, cells({ claimed_at: foreign, result: foreign }), 2);
    expect(row.claimedAt).toBe(T);
    expect(row.result).toBe('2026-12-01T09:30:00.000Z');
  });

  it.each<[unknown, number]>([[3, 3], ['4', 4], ['', 0], ['x', 0], [null, 0]])('attempts %j reads as %d', (cell, expected) => {
    expect(rowFromValues(FULL, cells({ attempts: cell }), 2).attempts).toBe(expected);
  });

  it('keeps text as written, but a cell of only spaces is empty; the status is trimmed', () => {
    const row = rowFromValues(FULL, cells({ status: '  SENT ', result: '  indented reply', error: '   ', mail_ref: 12 }), 2);
    expect(row.status).toBe('SENT');
    expect(row.result).toBe('  indented reply');
    expect(row.error).toBe('');
    expect(row.mailRef).toBe('12');
  });

  it.each<[string, unknown]>([['null', null], ['undefined', undefined]])('a text cell holding %s reads as empty text, never as its name', (_what, cell) => {
    const values = cells({ event_id: 'ev1' });
    values[FULL.recipient] = cell;
    values[FULL.status] = cell;
    const row = rowFromValues(FULL, values, 2);
    expect([row.recipient, row.status, row.eventId]).toEqual(['', '', 'ev1']);
  });

  it('a row read shorter than the header (trailing cells absent) reads the absent cells as empty', () => {
    const row = rowFromValues(FULL, ['READY', 'ev1'], 5);
    expect(row).toEqual({ ...emptyRow(), rowNumber: 5, status: 'READY', eventId: 'ev1' });
  });

  it('a header without a status column leaves the empty row status (PENDING), not an empty status', () => {
    const row = rowFromValues(indexColumns(['event_id']), ['ev8'], 3);
    expect(row).toEqual({ ...emptyRow(), rowNumber: 3, eventId: 'ev8', status: 'PENDING' });
  });

  it('a missing column leaves its field at the empty row value', () => {
    const index = indexColumns(['event_id', 'status']);
    const row = rowFromValues(index, ['ev9', 'FAILED'], 3);
    expect(row).toEqual({ ...emptyRow(), rowNumber: 3, eventId: 'ev9', status: 'FAILED' });
  });
});

describe('rowToValues', () => {
  let row: QueueRow;
  beforeEach(() => {
    row = { ...emptyRow(), rowNumber: 4, status: 'SENT', eventId: 'ev2', attempts: 1, sentAt: T, result: 'Hi' };
  });

  it('writes our columns in sheet order, times as Dates and empty times as empty cells', () => {
    const values = rowToValues(FULL, row, QUEUE_HEADERS.length);
    expect(values[FULL.status]).toBe('SENT');
    expect(values[FULL.event_id]).toBe('ev2');
    expect(values[FULL.attempts]).toBe(1);
    expect(values[FULL.sent_at]).toEqual(new Date(T));
    expect(values[FULL.claimed_at]).toBe('');
    expect(values).toHaveLength(QUEUE_HEADERS.length);
  });

  it('puts staff columns back as they were read and pads a short base with empty cells', () => {
    const index = indexColumns(['notes', 'status', 'event_id', 'owner']);
    expect(rowToValues(index, row, 5, ['keep me', 'OLD', 'old', 'Ann'])).toEqual(['keep me', 'SENT', 'ev2', 'Ann', '']);
  });

  it('without a base, every cell we do not own is written empty', () => {
    const index = indexColumns(['notes', 'status', 'owner']);
    expect(rowToValues(index, row, 4)).toEqual(['', 'SENT', '', '']);
  });

  it('skips a column that lies beyond the width written', () => {
    const index = indexColumns(['status', 'notes', 'event_id']);
    expect(rowToValues(index, row, 2, ['x', 'y', 'z'])).toEqual(['SENT', 'y']);
  });

  it('round-trips through rowFromValues', () => {
    const full: QueueRow = { ...row, receivedAt: T - 5, nextAttemptAt: T - 4, claimedAt: T - 3, updatedAt: T - 2, recipient: 'r@x.y', mailRef: 'FQ-9' };
    expect(rowFromValues(FULL, rowToValues(FULL, full, QUEUE_HEADERS.length), 4)).toEqual(full);
  });
});

describe('number formats', () => {
  it('time columns show a date and time, attempts a whole number, every other column is plain text', () => {
    for (const name of QUEUE_HEADERS) {
      const expected = TIME_HEADERS.includes(name) ? 'yyyy-mm-dd hh:mm:ss' : name === 'attempts' ? '0' : '@';
      expect([name, QUEUE_NUMBER_FORMATS[name]]).toEqual([name, expected]);
    }
  });

  it('the time columns are exactly the five timestamps', () => {
    expect([...TIME_HEADERS].sort()).toEqual(['claimed_at', 'next_attempt_at', 'received_at', 'sent_at', 'updated_at']);
  });

  it('rowNumberFormats matches rowToValues: our columns get theirs, staff columns and the rest stay General', () => {
    const index = indexColumns(['notes', 'status', 'sent_at', 'attempts']);
    expect(rowNumberFormats(index, 5)).toEqual(['General', '@', 'yyyy-mm-dd hh:mm:ss', '0', 'General']);
    expect(rowNumberFormats(index, 2)).toEqual(['General', '@']);
    expect(rowNumberFormats(indexColumns(['status', 'notes']), 2)).toEqual(['@', 'General']);
  });
});
