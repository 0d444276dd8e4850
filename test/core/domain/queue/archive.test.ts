// Archive selection: finished rows older than ARCHIVE_AFTER_DAYS, and nothing else.
import { describe, expect, it } from 'vitest';
import { archiveMayHold, rowsToArchive } from '../../../../src/core/domain/queue/archive';
import { STATUSES } from '../../../../src/core/domain/queue/statuses';
import { DAY, repliedRow, T0 } from '../../fakes/rows';

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

describe('archiveMayHold (whether intake must look in the Archive)', () => {
  const HOUR = 3600_000;
  const at = (ms: number) => new Date(ms).toISOString();
  it.each([
    ['submitted a minute ago (a first delivery)', at(T0 - 60_000), false],
    ['submitted 10 hours ago (Typeform\'s last retry)', at(T0 - 10 * HOUR), false],
    ['submitted 22 hours ago', at(T0 - 22 * HOUR), false],
    ['submitted 23 hours ago (a day less the clock skew allowed)', at(T0 - 23 * HOUR), true],
    ['submitted 2 days ago', at(T0 - 2 * DAY), true],
    ['submitted half an hour in the future (clock skew)', at(T0 + HOUR / 2), false],
    ['submitted exactly the allowed skew in the future', at(T0 + HOUR), false],
    ['submitted two hours in the future (not a time to trust)', at(T0 + 2 * HOUR), true],
    ['an empty submitted_at', '', true],
    ['an unreadable submitted_at', 'yesterday', true],
  ])('%s: %s', (_name, submittedAt, mayHold) => {
    expect(archiveMayHold(submittedAt, T0)).toBe(mayHold);
  });

  it('holds because rowsToArchive never archives a row quiet for less than a day, even when asked to', () => {
    const receivedAt = T0 - 23.5 * HOUR;
    expect(rowsToArchive([repliedRow('SENT', { receivedAt, updatedAt: receivedAt, sentAt: null })], T0, 0)).toEqual([]);
    expect(archiveMayHold(at(receivedAt), T0)).toBe(true);
  });
});
