// Archive selection: finished rows older than ARCHIVE_AFTER_DAYS, and nothing else.
import { describe, expect, it } from 'vitest';
import { rowsToArchive } from '../../../src/core/staff/archive';
import { STATUSES } from '../../../src/core/statuses';
import { DAY, repliedRow, T0 } from '../fakes/rows';

describe('rowsToArchive', () => {
  const old = { receivedAt: T0 - 40 * DAY, updatedAt: T0 - 31 * DAY, sentAt: null };

  it.each(STATUSES.map((status) => [status, ['SENT', 'SKIPPED', 'DUPLICATE', 'TEST'].includes(status)]))(
    'a %s row untouched for 31 days is archived: %s',
    (status, archived) => {
      expect(rowsToArchive([repliedRow(status, old)], T0, 30)).toHaveLength(archived ? 1 : 0);
    },
  );

  it.each([
    ['updated 29 days ago', { receivedAt: T0 - 40 * DAY, updatedAt: T0 - 29 * DAY, sentAt: null }, false],
    ['updated exactly 30 days ago', { receivedAt: T0 - 40 * DAY, updatedAt: T0 - 30 * DAY, sentAt: null }, false],
    ['sent recently though updated long ago', { receivedAt: T0 - 40 * DAY, updatedAt: T0 - 40 * DAY, sentAt: T0 - DAY }, false],
    ['only received_at, long ago', { receivedAt: T0 - 40 * DAY, updatedAt: null, sentAt: null }, true],
    ['no time at all', { receivedAt: null, updatedAt: null, sentAt: null }, false],
  ])('a SENT row %s: archived = %s', (_label, times, archived) => {
    expect(rowsToArchive([repliedRow('SENT', times)], T0, 30)).toHaveLength(archived ? 1 : 0);
  });

  it('keeps sheet order and honours ARCHIVE_AFTER_DAYS', () => {
    const rows = [repliedRow('SENT', { ...old, rowNumber: 2 }), repliedRow('PENDING', { ...old, rowNumber: 3 }), repliedRow('SKIPPED', { ...old, rowNumber: 4 })];
    expect(rowsToArchive(rows, T0, 30).map((r) => r.rowNumber)).toEqual([2, 4]);
    expect(rowsToArchive(rows, T0, 60)).toEqual([]);
  });
});
