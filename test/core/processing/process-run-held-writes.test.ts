// Writes held for the run's next commit: a reply's verdict goes with its send claim, a batch's outcomes with the next claims; each row still compare-and-set right before the write.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { pendingRow, T0, world } from '../memory-ports';

const start = { startedAt: T0 };
const pending = (n: number, patch: Partial<QueueRow> = {}) => pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient: `r${n}@example.com`, ...patch });
const ready = (n: number, patch: Partial<QueueRow> = {}) =>
  pending(n, { status: 'READY', result: 'Dear Mina, well done.', mailRef: `FQ-AAAAA${n}`, attempts: 1, ...patch });

describe('writes held for the next commit', () => {
  it('two rounds of four rows and their mails take five writes: claims; verdicts with send claims; outcomes with the next claims; …; the last outcomes', () => {
    const w = world(Array.from({ length: 8 }, (_, i) => pending(i + 1)));
    const summary = runProcessing(w.deps, start);
    expect(summary).toMatchObject({ generated: 8, sent: 8 });
    expect(w.queue.writes.map((rows) => rows.map((row) => `${row.eventId}:${row.status}`))).toEqual([
      ['evt-1:GENERATING', 'evt-2:GENERATING', 'evt-3:GENERATING', 'evt-4:GENERATING'],
      ['evt-1:SENDING', 'evt-2:SENDING', 'evt-3:SENDING', 'evt-4:SENDING'],
      ['evt-1:SENT', 'evt-2:SENT', 'evt-3:SENT', 'evt-4:SENT', 'evt-5:GENERATING', 'evt-6:GENERATING', 'evt-7:GENERATING', 'evt-8:GENERATING'],
      ['evt-5:SENDING', 'evt-6:SENDING', 'evt-7:SENDING', 'evt-8:SENDING'],
      ['evt-5:SENT', 'evt-6:SENT', 'evt-7:SENT', 'evt-8:SENT'],
    ]);
    // The five writes, and each of the 8 mails' "about to send" line.
    expect(w.queue.flushes).toBe(13);
    // Every move still has its line, the reply's before its claim; each claim's line is in the Log before its mail.
    expect(w.audit.entries.filter((e) => e.eventId === 'evt-1').map((e) => `${e.from}>${e.to}`)).toEqual([
      'PENDING>GENERATING', 'GENERATING>READY', 'READY>SENDING', 'SENDING>SENDING', 'SENDING>SENT',
    ]);
    // The reply the mail was built from is the one written with its claim.
    expect(w.queue.rows.every((row) => row.result === 'Dear Mina, thank you.' && row.sentAt !== null)).toBe(true);
  });

  it("a person skipping a row after Gemini's reply and before its send claim wins: neither is written, it is not mailed, the other row is", () => {
    const w = world([pending(1), pending(2)]);
    const quota = w.mailer.remainingDailyQuota.bind(w.mailer);
    w.mailer.remainingDailyQuota = () => {
      // Asked once the replies are in and before the claims are written: a person acts at that moment.
      w.queue.edit(2, { status: 'SKIPPED' });
      return quota();
    };
    runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['r2@example.com']);
    expect(w.queue.row(2)).toMatchObject({ status: 'SKIPPED', result: '', sentAt: null });
    expect(w.audit.entries.filter((e) => e.eventId === 'evt-1').map((e) => `${e.from}>${e.to}`)).toEqual(['PENDING>GENERATING']);
    expect(w.queue.row(3)).toMatchObject({ status: 'SENT' });
  });

  it("the per-recipient limit counts a batch's mails whose SENT still waits for the next commit", () => {
    // Six rows: the first five fill a send batch; the sixth, in the next batch, goes to the first one's mailbox.
    const rows = [1, 2, 3, 4, 5].map((n) => ready(n)).concat(ready(6, { recipient: 'R1@example.com' }));
    const w = world(rows, { MAX_MAILS_PER_RECIPIENT_PER_DAY: '1' });
    const summary = runProcessing(w.deps, start);
    expect(summary.sent).toBe(5);
    expect(w.mailer.outbox.map((mail) => mail.to)).not.toContain('R1@example.com');
    expect(w.queue.row(7).status).toBe('READY');
    expect(w.incidents.codes()).toContain('MAIL_LIMIT_REACHED');
  });

  it("a mail's SENT is written even when the step after its batch fails: a bug while preparing the next round", () => {
    const w = world([ready(1), pending(2)]);
    w.deps.readPayload = (row) => {
      if (row.eventId === 'evt-2') throw new Error('a bug reading the payload');
      return row.payload;
    };
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('code-bug');
    expect(w.mailer.outbox).toHaveLength(1);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT' });
    expect(w.queue.row(2).sentAt).not.toBeNull();
    expect(w.audit.entries.filter((e) => e.eventId === 'evt-1').map((e) => `${e.from}>${e.to}`)).toEqual(['READY>SENDING', 'SENDING>SENDING', 'SENDING>SENT']);
  });
});
