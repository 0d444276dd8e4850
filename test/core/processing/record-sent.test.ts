// A mail's outcome recorded when its SENT write was refused (record-sent.ts): the one row holding the claim marked SENT, or the Log line alone.
import { describe, expect, it } from 'vitest';
import { recordRefusedSent, sentDetail } from '../../../src/core/processing/record-sent';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { pendingRow, runOf, T0, world } from '../memory-ports';

const SECOND = 1000;
const CLAIMED_AT = T0 - 60 * SECOND;
const SENT_AT = T0 - 2 * SECOND;
const NOW = T0 + 5 * SECOND;
const LEDGER = `[ledger: mail_ref=FQ-AAAAAA sent_at=${new Date(SENT_AT).toISOString()}]`;

/** The row as the send step claimed it: SENDING, with its mail_ref and claim time. */
const claimedRow = (patch: Partial<QueueRow> = {}): QueueRow =>
  pendingRow({ eventId: 'aaaaaa', responseToken: 'tok-aaaaaa', recipient: 'a@example.com', status: 'SENDING', result: 'Reply', mailRef: 'FQ-AAAAAA', attempts: 1, claimedAt: CLAIMED_AT, updatedAt: CLAIMED_AT, ...patch });

/** A world whose Queue holds `rows`, the run having read them as the claim left them, the clock at NOW. */
function setUp(rows: QueueRow[]) {
  const w = world(rows);
  const run = runOf(w);
  const claimed = run.rows[0];
  w.clock.time = NOW;
  return { w, run, claimed };
}

/** The one Log line recorded when the sheet could not be marked, with why. */
const logOnly = (where: string): LogEntry => ({
  at: NOW,
  eventId: 'aaaaaa',
  // The submission's identity, as on every system move: another row of it (another event_id) sees it was mailed.
  submission: 'tf:Wr1tE5sy:tok-aaaaaa',
  from: 'SENDING',
  to: 'SENT',
  by: 'system',
  detail: `mailed to the respondent (FQ-AAAAAA); not marked SENT on the sheet: ${where} ${LEDGER}`,
});

describe('sentDetail: the Log detail of a SENT move', () => {
  it('names the reference and carries the ledger facts a cleared sent_at or mail_ref is put back from', () => {
    expect(sentDetail('FQ-AAAAAA', SENT_AT)).toBe(`mailed to the respondent (FQ-AAAAAA) ${LEDGER}`);
  });
});

describe('recordRefusedSent: the mail went, whatever a person did to the row meanwhile', () => {
  it('the one row holding the claim, moved by a person, is marked SENT over it: sent_at set, claim and error cleared, one Log line', () => {
    const { w, run, claimed } = setUp([claimedRow()]);
    w.queue.edit(2, { status: 'FAILED', error: 'typed by a tutor' });
    recordRefusedSent(run, claimed, SENT_AT);
    const marked = { ...claimed, status: 'SENT', sentAt: SENT_AT, claimedAt: null, error: '', updatedAt: NOW };
    expect(w.queue.rows).toEqual([marked]);
    expect(w.queue.writes).toEqual([[marked]]);
    expect(w.queue.flushes).toBe(1);
    expect(w.audit.entries).toEqual([
      {
        at: NOW,
        eventId: 'aaaaaa',
        submission: 'tf:Wr1tE5sy:tok-aaaaaa',
        from: 'FAILED',
        to: 'SENT',
        by: 'system',
        detail: `mailed to the respondent (FQ-AAAAAA); marked SENT over FAILED, which a person set while it was SENDING ${LEDGER}`,
      },
    ]);
    expect(run.rows).toEqual([marked]);
  });

  it('the rows are read again first: the run\'s copy of them is replaced by the Queue as it is now', () => {
    const { w, run, claimed } = setUp([claimedRow()]);
    w.queue.edit(2, { status: 'SENT' });
    w.queue.appendRows([pendingRow({ eventId: 'bbbbbb', responseToken: 'tok-bbbbbb' })]);
    recordRefusedSent(run, claimed, SENT_AT);
    expect(run.rows).toEqual(w.queue.rows);
    expect(run.rows.map((row) => row.eventId)).toEqual(['aaaaaa', 'bbbbbb']);
  });

  it.each<[string, (w: ReturnType<typeof world>) => void, string]>([
    ['no row holds the claim (deleted)', (w) => w.queue.reorder(() => []), 'no row holds its event_id and mail_ref (deleted?)'],
    ['two rows hold it (a person copied the row)', (w) => {
      w.queue.edit(2, { status: 'FAILED' });
      w.queue.appendRows([{ ...w.queue.row(2) }]);
    }, '2 rows hold its event_id and mail_ref'],
    ['three rows hold it', (w) => {
      w.queue.edit(2, { status: 'FAILED' });
      w.queue.appendRows([{ ...w.queue.row(2) }, { ...w.queue.row(2), status: 'SENT' }]);
    }, '3 rows hold its event_id and mail_ref'],
    ['its one row already shows SENT (a person set it)', (w) => w.queue.edit(2, { status: 'SENT' }), 'its row already shows SENT (set by a person)'],
  ])('%s: nothing is written to the sheet, and the Log gets the SENT line with its ledger facts', (_case, meanwhile, where) => {
    const { w, run, claimed } = setUp([claimedRow()]);
    meanwhile(w);
    const before = w.queue.rows.map((row) => ({ ...row }));
    recordRefusedSent(run, claimed, SENT_AT);
    expect(w.queue.writes).toEqual([]);
    expect(w.queue.rows).toEqual(before);
    expect(w.audit.entries).toEqual([logOnly(where)]);
  });

  it('the row changed again while being marked: it is left as it is, and the Log says so in one line', () => {
    const { w, run, claimed } = setUp([claimedRow()]);
    w.queue.edit(2, { status: 'FAILED' });
    w.queue.beforeWriteRows = (_rows, queue) => queue.edit(2, { status: 'SKIPPED' });
    recordRefusedSent(run, claimed, SENT_AT);
    expect(w.queue.row(2)).toEqual({ ...claimed, status: 'SKIPPED' });
    expect(w.audit.entries).toEqual([logOnly('its row changed again while being marked')]);
  });

  it.each<[string, Partial<QueueRow>]>([
    ['only its event_id (a copy whose mail_ref a person cleared)', { mailRef: '' }],
    ['only its mail_ref (another submission, the reference pasted)', { eventId: 'bbbbbb', responseToken: 'tok-bbbbbb' }],
  ])('a row sharing %s is no holder: the one holder is marked', (_case, other) => {
    const { w, run, claimed } = setUp([claimedRow()]);
    w.queue.edit(2, { status: 'FAILED' });
    w.queue.appendRows([{ ...w.queue.row(2), ...other }]);
    recordRefusedSent(run, claimed, SENT_AT);
    expect(w.queue.rows.map((row) => [row.eventId, row.status, row.mailRef])).toEqual([
      ['aaaaaa', 'SENT', 'FQ-AAAAAA'],
      [other.eventId ?? 'aaaaaa', 'FAILED', other.mailRef ?? 'FQ-AAAAAA'],
    ]);
    expect(w.audit.entries.map((entry) => [entry.from, entry.to])).toEqual([['FAILED', 'SENT']]);
  });
});
