// What makes two rows the same submission, as intake's lookup and processing's duplicate collapse apply it.
import { describe, expect, it } from 'vitest';
import { findDuplicates } from '../../../../src/core/processing/duplicates';
import type { QueueRow } from '../../../../src/core/domain/queue/queue-row';
import { isSameSubmission, submissionKeys } from '../../../../src/core/domain/queue/submission-keys';
import { pendingRow, T0 } from '../../memory-ports';

const keys = (eventId: string, responseToken: string) => ({ eventId, responseToken });

describe('submissionKeys: each key names the column intake looks it up in', () => {
  it.each<[string, ReturnType<typeof keys>, ReturnType<typeof submissionKeys>]>([
    ['both keys, event_id first', keys('evt-1', 'tok-1'), [{ column: 'event_id', value: 'evt-1' }, { column: 'response_token', value: 'tok-1' }]],
    ['surrounding blanks are no part of a key', keys(' evt-1\t', '  tok-1 '), [{ column: 'event_id', value: 'evt-1' }, { column: 'response_token', value: 'tok-1' }]],
    ['a blank event_id identifies nothing', keys('   ', 'tok-1'), [{ column: 'response_token', value: 'tok-1' }]],
    ['a blank response token identifies nothing', keys('evt-1', ' '), [{ column: 'event_id', value: 'evt-1' }]],
    ['a row with neither has no key', keys('', ''), []],
  ])('%s', (_name, row, expected) => {
    expect(submissionKeys(row)).toEqual(expected);
  });
});

describe('isSameSubmission', () => {
  it.each<[string, ReturnType<typeof keys>, ReturnType<typeof keys>, boolean]>([
    ['the same event delivered again', keys('evt-1', 'tok-1'), keys('evt-1', 'tok-2'), true],
    ['the same response under a new event_id', keys('evt-1', 'tok-1'), keys('evt-2', 'tok-1'), true],
    ['the same keys with blanks around them', keys(' evt-1 ', ''), keys('evt-1', ''), true],
    ['an event_id equal to the other row\'s response token', keys('abc', 'tok-1'), keys('evt-2', 'abc'), false],
    ['two rows whose only keys are blank', keys('', '  '), keys(' ', ''), false],
    ['different event and token', keys('evt-1', 'tok-1'), keys('evt-2', 'tok-2'), false],
  ])('%s → %s', (_name, a, b, same) => {
    expect(isSameSubmission(a, b)).toBe(same);
    expect(isSameSubmission(b, a)).toBe(same);
  });
});

describe('the duplicate collapse applies the same rule', () => {
  const numbered = (rows: QueueRow[]) => rows.map((row, i) => ({ ...row, rowNumber: i + 2 }));
  const collapsed = (rows: QueueRow[]) => findDuplicates(numbered(rows), () => new Set()).map((finding) => finding.row.rowNumber);

  it('two new submissions without a response token are two submissions, not one', () => {
    expect(collapsed([pendingRow({ eventId: 'evt-1', responseToken: '' }), pendingRow({ eventId: 'evt-2', responseToken: '' })])).toEqual([]);
  });

  it('a token of blanks is no token: rows of different events holding one are both answered', () => {
    expect(collapsed([pendingRow({ eventId: 'evt-1', responseToken: '  ' }), pendingRow({ eventId: 'evt-2', responseToken: '  ' })])).toEqual([]);
  });

  it('a redelivery whose event_id has a blank around it still collapses into the row that was sent', () => {
    const rows = [pendingRow({ eventId: 'evt-1', responseToken: 'tok-1', status: 'SENT', sentAt: T0 }), pendingRow({ eventId: 'evt-1 ', responseToken: 'tok-9' })];
    expect(collapsed(rows)).toEqual([3]);
  });

  it('an Archive key is matched by its value, in either column', () => {
    const archived = new Set(['tok-old']);
    const findings = findDuplicates(numbered([pendingRow({ eventId: 'evt-1', responseToken: ' tok-old' })]), () => archived);
    expect(findings.map((finding) => finding.original)).toEqual(['the Archive sheet']);
  });
});
