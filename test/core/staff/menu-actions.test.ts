// Menu actions on mixed selections: which rows move, what is logged, what staff are told.
import { describe, expect, it } from 'vitest';
import { applyMenuAction, type MenuAction } from '../../../src/core/staff/menu-actions';
import { STATUSES } from '../../../src/core/domain/queue/statuses';
import { repliedRow, STAFF, T0 } from '../fakes/rows';

/** One row of every status, rows 2…13, as a mixed selection. */
const mixed = () => STATUSES.map((status, i) => repliedRow(status, { rowNumber: i + 2 }));

const MOVED: Record<MenuAction, { target: string; from: string[] }> = {
  approve: { target: 'APPROVED', from: ['AWAITING_APPROVAL'] },
  retry: { target: 'PENDING', from: ['NEEDS_REVIEW', 'FAILED'] },
  skip: { target: 'SKIPPED', from: ['PENDING', 'GENERATING', 'READY', 'AWAITING_APPROVAL', 'APPROVED', 'SENDING', 'NEEDS_REVIEW', 'FAILED'] },
  markSent: { target: 'SENT', from: ['NEEDS_REVIEW', 'FAILED'] },
};

describe('menu actions on a mixed selection', () => {
  it.each(Object.entries(MOVED))('%s moves exactly the rows it may and logs each with who', (action, { target, from }) => {
    const outcome = applyMenuAction(action as MenuAction, mixed(), STAFF);
    expect(outcome.changed.map((changed) => String(changed.status))).toEqual(from.map(() => target));
    const movedFrom = mixed().filter((r) => outcome.changed.some((c) => c.rowNumber === r.rowNumber)).map((r) => r.status);
    expect(movedFrom.sort()).toEqual([...from].sort());
    expect(outcome.log).toHaveLength(from.length);
    for (const entry of outcome.log) expect(entry).toMatchObject({ at: T0, to: target, by: 'ana@example.org' });
    expect(outcome.refused).toHaveLength(STATUSES.length - from.length);
    expect(outcome.message).toContain(`${from.length} row`);
  });

  it('retry resets attempts and back-off and says the rows will be mailed next run', () => {
    const outcome = applyMenuAction('retry', [repliedRow('FAILED', { attempts: 5, nextAttemptAt: T0 + 60_000, error: 'X: y' })], STAFF);
    expect(outcome.changed[0]).toMatchObject({ status: 'PENDING', attempts: 0, nextAttemptAt: null, error: '' });
    expect(outcome.message).toMatch(/next run/);
  });

  it('retry of a row that already has sent_at clears it: the person asked for a new reply, and the Log says one was mailed', () => {
    const outcome = applyMenuAction('retry', [repliedRow('NEEDS_REVIEW', { sentAt: T0 - 1 })], STAFF);
    expect(outcome.changed[0]).toMatchObject({ status: 'PENDING', sentAt: null });
    expect(outcome.log[0].detail).toMatch(/a reply was already mailed at .*, and a new one will be/);
  });

  it('mark sent closes a NEEDS_REVIEW row with sent_at = now and a "marked sent by" Log line', () => {
    const outcome = applyMenuAction('markSent', [repliedRow('NEEDS_REVIEW')], STAFF);
    expect(outcome.changed[0]).toMatchObject({ status: 'SENT', sentAt: T0, updatedAt: T0 });
    expect(outcome.log[0].detail).toBe(`marked sent by ana@example.org after checking by hand [ledger: sent_at=${new Date(T0).toISOString()}]`);
  });

  it('mark sent refuses a SENT row as already sent and a READY row as not the system\'s to skip', () => {
    const outcome = applyMenuAction('markSent', [repliedRow('SENT', { rowNumber: 2 }), repliedRow('READY', { rowNumber: 3 })], STAFF);
    expect(outcome.changed).toHaveLength(0);
    expect(outcome.refused).toEqual([
      { rowNumber: 2, reason: 'already SENT' },
      { rowNumber: 3, reason: 'is READY; this item acts only on FAILED or NEEDS_REVIEW rows' },
    ]);
  });

  it('an empty selection asks staff to select rows', () => {
    expect(applyMenuAction('approve', [], STAFF).message).toMatch(/^Select one or more rows/);
  });

  it('a long list of refusals is cut short with a count', () => {
    const rows = Array.from({ length: 20 }, (_, i) => repliedRow('SENT', { rowNumber: i + 2 }));
    const outcome = applyMenuAction('skip', rows, STAFF);
    expect(outcome.message.split('\n').filter((line) => line.startsWith('• row'))).toHaveLength(8);
    expect(outcome.message).toContain('… and 12 more');
  });

  it('does not change the rows it was given', () => {
    const given = [repliedRow('FAILED')];
    applyMenuAction('retry', given, STAFF);
    expect(given[0].status).toBe('FAILED');
  });
});

describe('what staff read after a menu action, exactly', () => {
  it('one row moved: singular, with its number, and no refusals', () => {
    expect(applyMenuAction('approve', [repliedRow('AWAITING_APPROVAL', { rowNumber: 7 })], STAFF).message).toBe('Approved: 1 row (7).');
  });

  it('several moved and several refused, each refusal with its reason', () => {
    const outcome = applyMenuAction('approve', [repliedRow('AWAITING_APPROVAL', { rowNumber: 2 }), repliedRow('AWAITING_APPROVAL', { rowNumber: 3 }), repliedRow('APPROVED', { rowNumber: 4 }), repliedRow('', { rowNumber: 5 })], STAFF);
    expect(outcome.message).toBe(
      [
        'Approved: 2 rows (2, 3).',
        'Left as they were: 2 rows.',
        '• row 4: already APPROVED',
        '• row 5: is (empty); this item acts only on AWAITING_APPROVAL rows',
      ].join('\n'),
    );
  });

  it('nothing moved: says so; one refusal is singular', () => {
    expect(applyMenuAction('markSent', [repliedRow('SENT', { rowNumber: 9 })], STAFF).message).toBe('Marked as sent: no rows.\nLeft as they were: 1 row.\n• row 9: already SENT');
  });

  it('more than eight refusals: eight are spelled out, the rest counted', () => {
    const rows = Array.from({ length: 10 }, (_, i) => repliedRow('SENT', { rowNumber: i + 2 }));
    const lines = applyMenuAction('skip', rows, STAFF).message.split('\n');
    expect(lines).toHaveLength(2 + 8 + 1);
    expect(lines.at(-1)).toBe('• … and 2 more.');
    const eight = applyMenuAction('skip', rows.slice(0, 8), STAFF).message.split('\n');
    expect(eight.at(-1)).toMatch(/^• row 9: /);
  });

  it('only a retry that moved rows promises the next run', () => {
    expect(applyMenuAction('retry', [repliedRow('SENT')], STAFF).message).not.toContain('next run');
    expect(applyMenuAction('skip', [repliedRow('FAILED')], STAFF).message).not.toContain('next run');
    const approvalOff = () => false;
    expect(applyMenuAction('retry', [repliedRow('FAILED', { rowNumber: 4 })], STAFF, approvalOff).message).toBe('Queued for a new try: 1 row (4).\nThey will be written and mailed on the next run.');
  });

  it('a retry says what will happen to the rows: with approval on for their form the new replies wait for approval, not mailed', () => {
    const approvalOn = () => true;
    expect(applyMenuAction('retry', [repliedRow('FAILED', { rowNumber: 4 })], STAFF, approvalOn).message).toBe(
      'Queued for a new try: 1 row (4).\nTheir new replies will be written on the next run and then wait for approval (approval is on for their form): nothing is mailed until someone approves.',
    );
    // Config unreadable: no promise of a mail.
    expect(applyMenuAction('retry', [repliedRow('FAILED', { rowNumber: 4 })], STAFF).message).toBe('Queued for a new try: 1 row (4).\nA new reply will be written for them on the next run.');
  });

  it('a retry over forms with approval on, off and unknown names the rows of each, in the plural where there are several', () => {
    const approval: Record<string, boolean | null> = { mailed: false, held: true, unknown: null };
    const rows = [
      repliedRow('FAILED', { rowNumber: 4, formId: 'mailed' }),
      repliedRow('FAILED', { rowNumber: 5, formId: 'held' }),
      repliedRow('NEEDS_REVIEW', { rowNumber: 6, formId: 'mailed' }),
      repliedRow('FAILED', { rowNumber: 7, formId: 'unknown' }),
      repliedRow('NEEDS_REVIEW', { rowNumber: 8, formId: 'held' }),
    ];
    expect(applyMenuAction('retry', rows, STAFF, (formId) => approval[formId]).message).toBe(
      [
        'Queued for a new try: 5 rows (4, 5, 6, 7, 8).',
        'Rows 4, 6 will be written and mailed on the next run.',
        'The new replies of rows 5, 8 will be written on the next run and then wait for approval (approval is on for their form): nothing is mailed until someone approves.',
        'A new reply will be written for row 7 on the next run (Config could not be read, so whether it waits for approval is not known yet).',
      ].join('\n'),
    );
  });

  it('one row of each kind is named in the singular', () => {
    const approval: Record<string, boolean | null> = { mailed: false, held: true, unknown: null };
    const rows = [
      repliedRow('FAILED', { rowNumber: 4, formId: 'mailed' }),
      repliedRow('FAILED', { rowNumber: 5, formId: 'held' }),
      repliedRow('FAILED', { rowNumber: 6, formId: 'unknown' }),
      repliedRow('FAILED', { rowNumber: 7, formId: 'unknown' }),
    ];
    expect(applyMenuAction('retry', rows, STAFF, (formId) => approval[formId]).message).toBe(
      [
        'Queued for a new try: 4 rows (4, 5, 6, 7).',
        'Row 4 will be written and mailed on the next run.',
        'The new replies of row 5 will be written on the next run and then wait for approval (approval is on for their form): nothing is mailed until someone approves.',
        'A new reply will be written for rows 6, 7 on the next run (Config could not be read, so whether it waits for approval is not known yet).',
      ].join('\n'),
    );
  });

  it('a retry of rows all from forms with approval off says they will be mailed', () => {
    const rows = [repliedRow('FAILED', { rowNumber: 4 }), repliedRow('NEEDS_REVIEW', { rowNumber: 5 })];
    expect(applyMenuAction('retry', rows, STAFF, () => false).message).toBe('Queued for a new try: 2 rows (4, 5).\nThey will be written and mailed on the next run.');
  });

  it('skip acts on any unfinished row and leaves the refusal of finished ones to the move itself', () => {
    const outcome = applyMenuAction('skip', [repliedRow('GENERATING', { rowNumber: 2 }), repliedRow('DUPLICATE', { rowNumber: 3 })], STAFF);
    expect(outcome.changed.map((r) => r.rowNumber)).toEqual([2]);
    expect(outcome.refused).toHaveLength(1);
    expect(outcome.refused[0].rowNumber).toBe(3);
    expect(outcome.refused[0].reason).not.toMatch(/this item acts only on/);
  });
});
