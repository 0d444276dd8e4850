// A mail that went out while a person changed its row: what the row and the Log show in each case recordRefusedSent tells apart.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { pendingRow, T0, world } from '../memory-ports';

const ready = (patch: Partial<QueueRow> = {}) =>
  pendingRow({ eventId: 'aaaaaa', responseToken: 'tok-aaaaaa', recipient: 'a@example.com', status: 'READY', result: 'Reply', mailRef: 'FQ-AAAAAA', ...patch });
const ledger = `[ledger: mail_ref=FQ-AAAAAA sent_at=${new Date(T0).toISOString()}]`;
const sentLines = (w: ReturnType<typeof world>) => w.audit.entries.filter((entry) => entry.eventId === 'aaaaaa' && entry.to === 'SENT');

describe('the SENT write refused because a person changed the row while its mail went out', () => {
  it('a person already set SENT by hand: the row is left as they set it, and the Log says so', () => {
    const w = world([ready()]);
    w.mailer.failWith = () => {
      w.queue.edit(2, { status: 'SENT' });
      return undefined;
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: null });
    expect(sentLines(w).map((line) => [line.from, line.detail])).toEqual([
      ['SENDING', `mailed to the respondent (FQ-AAAAAA); not marked SENT on the sheet: its row already shows SENT (set by a person) ${ledger}`],
    ]);
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('a person copied the row (two rows hold its event_id and mail_ref): neither is marked, the Log counts them', () => {
    const w = world([ready()]);
    w.mailer.failWith = () => {
      w.queue.edit(2, { status: 'FAILED' });
      w.queue.appendRows([{ ...w.queue.row(2) }]);
      return undefined;
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.rows.map((row) => row.status)).toEqual(['FAILED', 'FAILED']);
    expect(sentLines(w).map((line) => line.detail)).toEqual([
      `mailed to the respondent (FQ-AAAAAA); not marked SENT on the sheet: 2 rows hold its event_id and mail_ref ${ledger}`,
    ]);
  });

  it('the one row found again is marked SENT over what the person set, its claim and error cleared', () => {
    const w = world([ready()]);
    w.mailer.failWith = () => {
      w.queue.edit(2, { status: 'FAILED', error: 'typed by a tutor' });
      return undefined;
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: T0, mailRef: 'FQ-AAAAAA', claimedAt: null, error: '', updatedAt: T0 });
    expect(sentLines(w).map((line) => [line.from, line.by, line.detail])).toEqual([
      ['FAILED', 'system', `mailed to the respondent (FQ-AAAAAA); marked SENT over FAILED, which a person set while it was SENDING ${ledger}`],
    ]);
  });

  it.each<[string, Partial<QueueRow>]>([
    ['a copy of it whose mail_ref a person cleared', { eventId: 'aaaaaa', mailRef: '' }],
    ['another submission showing its mail_ref (pasted)', { eventId: 'bbbbbb', responseToken: 'tok-bbbbbb', mailRef: 'FQ-AAAAAA' }],
  ])('a row sharing only its event_id or only its mail_ref (%s) is not its holder: the one holder is marked SENT', (_case, other) => {
    const w = world([ready()]);
    w.mailer.failWith = () => {
      w.queue.edit(2, { status: 'FAILED' });
      w.queue.appendRows([{ ...w.queue.row(2), ...other }]);
      return undefined;
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.rows.map((row) => [row.eventId, row.status, row.mailRef])).toEqual([
      ['aaaaaa', 'SENT', 'FQ-AAAAAA'],
      [other.eventId, 'FAILED', other.mailRef],
    ]);
    expect(sentLines(w).map((line) => line.from)).toEqual(['FAILED']);
  });

  it('the row changed again while being marked: left as it is, and the Log says so', () => {
    const w = world([ready()]);
    let writes = 0;
    w.mailer.failWith = () => {
      w.queue.edit(2, { status: 'FAILED' });
      // The next write is the SENT write (refused: FAILED); the one after it is the mark over FAILED, met by a second change.
      w.queue.beforeWriteRows = (_rows, queue) => {
        if (++writes === 2) queue.edit(2, { status: 'SKIPPED' });
      };
      return undefined;
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2).status).toBe('SKIPPED');
    expect(sentLines(w).map((line) => line.detail)).toEqual([
      `mailed to the respondent (FQ-AAAAAA); not marked SENT on the sheet: its row changed again while being marked ${ledger}`,
    ]);
  });
});
