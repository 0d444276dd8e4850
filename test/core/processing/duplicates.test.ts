// findDuplicates (src/core/processing/duplicates.ts): which rows collapse to DUPLICATE, which row or the Archive each names, and when the Archive is read.
import { describe, expect, it } from 'vitest';
import { findDuplicates, type DuplicateFinding } from '../../../src/core/processing/duplicates';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { pendingRow, T0 } from '../memory-ports';

const numbered = (rows: QueueRow[]) => rows.map((row, i) => ({ ...row, rowNumber: i + 2 }));
const row = (eventId: string, responseToken: string, patch: Partial<QueueRow> = {}) => pendingRow({ eventId, responseToken, ...patch });
const noArchive = () => new Set<string>();

/** The findings as [row number, original]: the row found is the very row given (checked separately). */
const found = (findings: DuplicateFinding[]) => findings.map((finding) => [finding.row.rowNumber, finding.original]);

describe('findDuplicates: which statuses collapse and which own their keys', () => {
  it.each(['PENDING', 'READY', 'AWAITING_APPROVAL', 'APPROVED'])('a %s copy of a SENT row collapses into it', (status) => {
    const rows = numbered([row('e1', 't1', { status: 'SENT', sentAt: T0 }), row('e1', 't1', { status, result: 'r' })]);
    expect(findDuplicates(rows, noArchive)).toEqual([{ row: rows[1], original: 'row 2 (event e1)' }]);
  });

  it.each(['GENERATING', 'SENDING', 'SENT', 'NEEDS_REVIEW', 'FAILED', 'SKIPPED', 'TEST'])('a %s row owns its keys wherever it sits: an earlier PENDING copy collapses into it', (status) => {
    const rows = numbered([row('e1', 't1'), row('e2', 't2'), row('e1', 't1', { status })]);
    expect(findDuplicates(rows, noArchive)).toEqual([{ row: rows[0], original: 'row 4 (event e1)' }]);
  });

  it.each(['GENERATING', 'SENDING', 'SENT', 'NEEDS_REVIEW', 'FAILED', 'SKIPPED', 'TEST', 'DUPLICATE'])('a %s row is never collapsed itself', (status) => {
    const rows = numbered([row('e1', 't1', { status: 'SENT', sentAt: T0 }), row('e1', 't1', { status })]);
    expect(findDuplicates(rows, noArchive)).toEqual([]);
  });

  it('a READY row with sent_at is never collapsed, and owns its keys: the mail went out from it', () => {
    const rows = numbered([row('e1', 't1'), row('e1', 't1', { status: 'READY', result: 'r', sentAt: T0 })]);
    expect(findDuplicates(rows, noArchive)).toEqual([{ row: rows[0], original: 'row 3 (event e1)' }]);
  });

  it('a DUPLICATE row owns nothing: the PENDING copy after it is the one left to answer', () => {
    const rows = numbered([row('e1', 't1', { status: 'DUPLICATE' }), row('e1', 't1')]);
    expect(findDuplicates(rows, noArchive)).toEqual([]);
  });

  it('a lone PENDING row is no duplicate of itself', () => {
    expect(findDuplicates(numbered([row('e1', 't1')]), noArchive)).toEqual([]);
  });
});

describe('findDuplicates: the original a finding names', () => {
  it.each<[string, QueueRow[], (string | number)[][]]>([
    ['the same event_id', [row('e1', 't1', { status: 'SENT' }), row('e1', 't2')], [[3, 'row 2 (event e1)']]],
    ['the same response token', [row('e1', 't1', { status: 'SENT' }), row('e2', 't1')], [[3, 'row 2 (event e1)']]],
    ['an owner without event_id, by its response token', [row('', 't1', { status: 'SENT' }), row('e2', 't1')], [[3, 'row 2 (event t1)']]],
    ['the first of two owners with the key', [row('e1', 't1', { status: 'FAILED' }), row('e1', 't2', { status: 'SENT' }), row('e1', 't3')], [[4, 'row 2 (event e1)']]],
    ['the event_id owner before the response-token owner', [row('e9', 't1', { status: 'SENT' }), row('e1', 't8', { status: 'FAILED' }), row('e1', 't1')], [[4, 'row 3 (event e1)']]],
    ['the response-token owner when no row has the event_id', [row('e9', 't1', { status: 'SENT' }), row('e1', 't1')], [[3, 'row 2 (event e9)']]],
    ['no row, when an event_id equals another row\'s response token only', [row('k1', 'k2', { status: 'SENT' }), row('k2', 'k1')], []],
    ['no row, when no key is shared', [row('e1', 't1', { status: 'SENT' }), row('e2', 't2')], []],
    ['no row, when both keys are blank', [row('', '', { status: 'SENT' }), row('', '')], []],
  ])('%s', (_name, rows, expected) => {
    expect(found(findDuplicates(numbered(rows), noArchive))).toEqual(expected);
  });
});

describe('findDuplicates: among rows that have not started, the earliest answers', () => {
  it('three unstarted copies: the first answers, both later ones name it', () => {
    const rows = numbered([row('e1', 't1'), row('e1', 't1'), row('e1', 't1', { status: 'READY', result: 'r' })]);
    expect(findDuplicates(rows, noArchive)).toEqual([
      { row: rows[1], original: 'row 2 (event e1)' },
      { row: rows[2], original: 'row 2 (event e1)' },
    ]);
  });

  it('a copy shares the event_id with one earlier row and the token with another: the first by key order', () => {
    const rows = numbered([row('e1', 't1'), row('e2', 't2'), row('e2', 't1')]);
    expect(found(findDuplicates(rows, noArchive))).toEqual([[4, 'row 3 (event e2)']]);
  });

  it('a row that went further wins over an earlier unstarted copy', () => {
    const rows = numbered([row('e1', 't1'), row('e1', 't1', { status: 'GENERATING' })]);
    expect(found(findDuplicates(rows, noArchive))).toEqual([[2, 'row 3 (event e1)']]);
  });

  it('rows of other submissions in between change nothing', () => {
    const rows = numbered([row('e1', 't1'), row('e2', 't2'), row('e3', 't3', { status: 'SENT' }), row('e1', 't1')]);
    expect(found(findDuplicates(rows, noArchive))).toEqual([[5, 'row 2 (event e1)']]);
  });
});

describe('findDuplicates: the Archive', () => {
  it.each<[string, string[], QueueRow[], (string | number)[][]]>([
    ['its response token archived', ['t1'], [row('e1', 't1')], [[2, 'the Archive sheet']]],
    ['its event_id archived', ['e1'], [row('e1', 't1')], [[2, 'the Archive sheet']]],
    ['a key archived with spaces trimmed', ['t1'], [row('e1', ' t1 ')], [[2, 'the Archive sheet']]],
    ['its keys as the Queue writes them with the column are not the Archive\'s', ['event_id:e1', 'response_token:t1'], [row('e1', 't1')], []],
    ['nothing of it archived', ['e2', 't2'], [row('e1', 't1')], []],
    ['two copies, archived: both name the Archive, neither the other', ['t1'], [row('e1', 't1'), row('e1', 't1')], [[2, 'the Archive sheet'], [3, 'the Archive sheet']]],
    ['a row in the Queue that went further wins over the Archive', ['t1'], [row('e1', 't1', { status: 'SENT' }), row('e1', 't1')], [[3, 'row 2 (event e1)']]],
  ])('%s', (_name, archived, rows, expected) => {
    expect(found(findDuplicates(numbered(rows), () => new Set(archived)))).toEqual(expected);
  });

  it('an unstarted copy found earlier in the Queue wins over the Archive, and is named once', () => {
    const rows = numbered([row('e1', 't1', { status: 'SENT' }), row('e1', 't1'), row('e1', 't1')]);
    expect(findDuplicates(rows, () => new Set(['t1']))).toEqual([
      { row: rows[1], original: 'row 2 (event e1)' },
      { row: rows[2], original: 'row 2 (event e1)' },
    ]);
  });

  it.each<[string, QueueRow[], number]>([
    ['no rows', [], 0],
    ['no row that could collapse', [row('e1', 't1', { status: 'SENT' }), row('e2', 't2', { status: 'DUPLICATE' })], 0],
    ['one row that could', [row('e1', 't1', { status: 'SENT' }), row('e2', 't2')], 1],
    ['several rows that could: still once', [row('e1', 't1'), row('e2', 't2'), row('e3', 't3')], 1],
  ])('reads the Archive keys only when some row could collapse, and once: %s', (_name, rows, reads) => {
    let read = 0;
    const findings = findDuplicates(numbered(rows), () => {
      read++;
      return new Set(['nothing']);
    });
    expect(findings).toEqual([]);
    expect(read).toBe(reads);
  });
});
