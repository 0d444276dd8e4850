// A row is its event_id: every write lands on the submission it is for, wherever staff sorted, inserted or deleted rows.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { okOutcome, pendingRow, T0, world } from '../memory-ports';

const start = { startedAt: T0 };
const ready = (eventId: string, recipient: string, patch: Partial<QueueRow> = {}) =>
  pendingRow({ eventId, responseToken: `tok-${eventId}`, recipient, status: 'READY', result: `Reply for ${eventId}`, mailRef: `FQ-${eventId.toUpperCase()}`, ...patch });
const reversed = (rows: QueueRow[]) => rows.reverse();

describe('writes are compare-and-set by event_id', () => {
  it('a sort while the first row of a batch is mailed: the next claimed row is found again by event_id and mailed in the same run, once', () => {
    const w = world([ready('aaaaaa', 'a@example.com'), ready('bbbbbb', 'b@example.com'), ready('cccccc', 'c@example.com')]);
    let sorted = false;
    w.mailer.failWith = () => {
      if (!sorted) {
        sorted = true;
        w.queue.reorder(reversed);
      }
      return undefined;
    };
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(w.queue.rows.map((row) => [row.eventId, row.status])).toEqual([
      ['cccccc', 'SENT'],
      ['bbbbbb', 'SENT'],
      ['aaaaaa', 'SENT'],
    ]);
    expect(summary).toMatchObject({ sent: 3, needsReview: 0 });
    runProcessing(w.deps, { startedAt: T0 + 60_000 });
    expect(w.mailer.outbox).toHaveLength(3);
  });

  it('a sort just before the batch of SENDING claims is written: each claim lands on its own submission where it moved, never on another', () => {
    const w = world([ready('aaaaaa', 'a@example.com'), ready('bbbbbb', 'b@example.com')]);
    let sorted = false;
    w.queue.beforeWriteRows = (_rows, queue) => {
      if (!sorted) queue.reorder(reversed);
      sorted = true;
    };
    runProcessing(w.deps, start);
    const byEvent = (id: string) => w.queue.rows.find((row) => row.eventId === id) as QueueRow;
    expect(byEvent('aaaaaa')).toMatchObject({ rowNumber: 3, status: 'SENT', recipient: 'a@example.com', result: 'Reply for aaaaaa' });
    // B was never written with A's cells: its claim followed it to row 2, and so did its mail.
    expect(byEvent('bbbbbb')).toMatchObject({ rowNumber: 2, status: 'SENT', recipient: 'b@example.com', result: 'Reply for bbbbbb' });
    expect(w.mailer.outbox.map((mail) => [mail.to, mail.body.includes(`Reply for ${mail.to[0].repeat(6)}`)])).toEqual([
      ['a@example.com', true],
      ['b@example.com', true],
    ]);
    expect(w.queue.writes.flat().filter((row) => row.eventId === 'bbbbbb').every((row) => row.rowNumber === 2 && row.recipient === 'b@example.com')).toBe(true);
  });

  it('every mail still goes exactly once across runs after a sort', () => {
    const w = world([ready('aaaaaa', 'a@example.com'), ready('bbbbbb', 'b@example.com'), ready('cccccc', 'c@example.com')]);
    let writes = 0;
    w.queue.beforeWriteRows = (_rows, queue) => {
      if (++writes % 2 === 1) queue.reorder(reversed);
    };
    for (let run = 0; run < 4; run++) runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.to).sort()).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    for (const row of w.queue.rows) expect(row.result).toBe(`Reply for ${row.eventId}`);
  });

  it('a sort between the generation claims and their read-back: no reply is written into the other submission\'s row', () => {
    const w = world([
      pendingRow({ eventId: 'aaaaaa', responseToken: 'tok-a', recipient: 'a@example.com', submission: 'Question: from A' }),
      pendingRow({ eventId: 'bbbbbb', responseToken: 'tok-b', recipient: 'b@example.com', submission: 'Question: from B' }),
    ], { GEMINI_CONCURRENCY: '2' });
    let reads = 0;
    w.queue.beforeReadRows = (_numbers, queue) => {
      if (++reads === 1) queue.reorder(reversed);
    };
    w.gemini.respond = (request) => okOutcome(JSON.stringify(request.body).includes('from A') ? 'Reply for A' : 'Reply for B');
    runProcessing(w.deps, start);
    const ownReply = (eventId: string) => `Reply for ${eventId[0].toUpperCase()}`;
    const wrong = w.queue.rows.filter((row) => row.result !== '' && row.result !== ownReply(row.eventId));
    expect(wrong.map((row) => [row.eventId, row.result])).toEqual([]);
    expect(w.mailer.outbox.every((mail) => mail.body.includes(`Reply for ${mail.to[0].toUpperCase()}`))).toBe(true);
  });

  it('a sort while Gemini writes: the reply is written to its own submission', () => {
    const sent = pendingRow({ eventId: 'sent01', responseToken: 'tok-sent01', status: 'SENT', sentAt: T0 - 60_000, result: 'Old reply', recipient: 's@example.com' });
    const w = world([pendingRow({ eventId: 'new001', responseToken: 'tok-new001' }), sent]);
    w.gemini.onCall = () => w.queue.reorder(reversed);
    runProcessing(w.deps, start);
    expect(w.queue.row(2)).toMatchObject({ eventId: 'sent01', status: 'SENT', result: 'Old reply' });
    expect(w.queue.row(3)).toMatchObject({ eventId: 'new001', status: 'SENT' });
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('a row deleted by staff before the claim is written is not claimed, and nothing else is written in its place', () => {
    const w = world([ready('aaaaaa', 'a@example.com'), ready('bbbbbb', 'b@example.com')]);
    let deleted = false;
    w.queue.beforeWriteRows = (_rows, queue) => {
      if (!deleted) queue.reorder((rows) => rows.filter((row) => row.eventId !== 'aaaaaa'));
      deleted = true;
    };
    runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.eventId)).toEqual(['bbbbbb']);
    expect(w.mailer.outbox.map((mail) => mail.to)).not.toContain('a@example.com');
    expect(w.audit.entries.filter((entry) => entry.eventId === 'aaaaaa')).toEqual([]);
  });

  it('a status staff change between the run reading a row and writing it is never overwritten', () => {
    const w = world([ready('aaaaaa', 'a@example.com')]);
    let skipped = false;
    w.queue.beforeWriteRows = (_rows, queue) => {
      if (!skipped) queue.edit(2, { status: 'SKIPPED' });
      skipped = true;
    };
    runProcessing(w.deps, start);
    expect(w.queue.row(2).status).toBe('SKIPPED');
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a recipient staff correct after the run read the Queue is kept by the claim, and the reply goes to it', () => {
    const w = world([pendingRow({ eventId: 'fix001', responseToken: 'tok-fix001', recipient: 'typo@example.con' })]);
    // Right before the generation claim is written: the claim's compare-and-set read is the only read before it.
    w.queue.beforeWriteRows = (_rows, queue) => {
      queue.edit(2, { recipient: 'fixed@example.com' });
      queue.beforeWriteRows = null;
    };
    runProcessing(w.deps, start);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', recipient: 'fixed@example.com' });
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['fixed@example.com']);
  });
});

describe('a mail that went out is always recorded, whatever staff did to its row meanwhile', () => {
  const sentLines = (w: ReturnType<typeof world>, eventId: string) =>
    w.audit.entries.filter((entry) => entry.eventId === eventId && entry.from === 'SENDING' && entry.to === 'SENT');

  it('a row deleted while its mail went out: the SENT write is dropped but the Log gets the mailed line with its ledger facts, and it is never mailed again', () => {
    const w = world([ready('aaaaaa', 'a@example.com')]);
    w.mailer.failWith = () => {
      w.queue.reorder((rows) => rows.filter((row) => row.eventId !== 'aaaaaa'));
      return undefined;
    };
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(1);
    const [line] = sentLines(w, 'aaaaaa');
    expect(line.detail).toBe(`mailed to the respondent (FQ-AAAAAA); not marked SENT on the sheet: no row holds its event_id and mail_ref (deleted?) [ledger: mail_ref=FQ-AAAAAA sent_at=${new Date(T0).toISOString()}]`);

    // Staff undo the delete: the row is back as it was (SENDING). It is never mailed again.
    w.mailer.failWith = () => undefined;
    w.queue.appendRows([{ ...ready('aaaaaa', 'a@example.com'), status: 'SENDING', claimedAt: T0 }]);
    runProcessing(w.deps, { startedAt: T0 + 3600_000 });
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('a row deleted, mailed, then put back showing SENT by hand: the ledger restore fills in its sent_at and mail_ref from that line', () => {
    const w = world([ready('aaaaaa', 'a@example.com')]);
    w.mailer.failWith = () => {
      w.queue.reorder((rows) => rows.filter((row) => row.eventId !== 'aaaaaa'));
      return undefined;
    };
    runProcessing(w.deps, start);
    w.queue.appendRows([{ ...ready('aaaaaa', 'a@example.com'), status: 'SENT', mailRef: '', sentAt: null }]);
    runProcessing(w.deps, { startedAt: T0 + 60_000 });
    expect(w.queue.rows[0]).toMatchObject({ status: 'SENT', sentAt: T0, mailRef: 'FQ-AAAAAA' });
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('a status a person pasted over SENDING while the mail went out: the row is found again by event_id and mail_ref and marked SENT', () => {
    const w = world([ready('aaaaaa', 'a@example.com'), ready('bbbbbb', 'b@example.com')]);
    let pasted = false;
    w.mailer.failWith = (mail) => {
      if (mail.to === 'a@example.com' && !pasted) {
        pasted = true;
        w.queue.reorder(reversed);
        w.queue.edit(3, { status: 'READY' });
      }
      return undefined;
    };
    runProcessing(w.deps, start);
    const a = w.queue.rows.find((row) => row.eventId === 'aaaaaa') as QueueRow;
    expect(a).toMatchObject({ status: 'SENT', sentAt: T0, mailRef: 'FQ-AAAAAA' });
    const marked = w.audit.entries.filter((entry) => entry.eventId === 'aaaaaa' && entry.to === 'SENT');
    expect(marked.map((line) => [line.from, line.detail])).toEqual([
      ['READY', `mailed to the respondent (FQ-AAAAAA); marked SENT over READY, which a person set while it was SENDING [ledger: mail_ref=FQ-AAAAAA sent_at=${new Date(T0).toISOString()}]`],
    ]);
    // b moved with the sort and waits for the next run; a is never mailed again.
    runProcessing(w.deps, { startedAt: T0 + 60_000 });
    expect(w.mailer.outbox.map((mail) => mail.to).sort()).toEqual(['a@example.com', 'b@example.com']);
  });
});
