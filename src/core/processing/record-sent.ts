// A mail's outcome recorded when the SENT write was refused: the row found again by its claim, or the Log line alone.
import type { QueueRow } from '../domain/queue/queue-row';
import { withLedgerFacts } from '../domain/mail/send-ledger';
import { logLineOf } from '../domain/queue/submission-identity';
import { newBatch, type Run } from './run-context';
import { commitBatch, appendLog } from './run-writes';

/** The Log detail of a SENT move, with the ledger facts a cleared sent_at or mail_ref is put back from. */
export function sentDetail(mailRef: string, sentAt: number): string {
  return withLedgerFacts(`mailed to the respondent (${mailRef})`, { mailRef, sentAt });
}

/**
 * The mail went, so its outcome is recorded whatever a person did to the row meanwhile. The SENT write is
 * compare-and-set (the row must still show our SENDING claim); when a person changed or moved it so that it was
 * refused, the row holding this claim's event_id and mail_ref is looked for again and marked SENT from what it shows
 * now (SENT is the truth, and what keeps it from a second mail). With no such row (deleted), the Log still gets the
 * SENT line with its ledger facts: the claim then stands settled as mailed (never mailed again), and a row put back
 * later showing SENT gets its sent_at and mail_ref back from that line (send-ledger.ts).
 */
export function recordRefusedSent(run: Run, claimed: QueueRow, sentAt: number): void {
  const facts = { mailRef: claimed.mailRef, sentAt };
  const patch: Partial<QueueRow> = { sentAt, claimedAt: null, error: '' };
  run.rows = run.deps.queue.readAll();
  const holders = run.rows.filter((row) => row.eventId === claimed.eventId && row.mailRef === claimed.mailRef);
  if (holders.length === 1 && holders[0].status !== 'SENT') {
    // Not a move of the transition table (a person's status is overwritten): the one place the mail's outcome, a
    // fact outside the sheet, outranks what the row shows. Compare-and-set on what it shows now.
    const found = holders[0];
    const now = run.deps.clock.now();
    const again = newBatch();
    again.rows.push({ ...found, ...patch, status: 'SENT', updatedAt: now });
    again.read.push(found);
    // With the submission's identity, as every system move: a row of the same submission under another event_id
    // sees in the ledger that it was mailed.
    again.entries.push(logLineOf(found, {
      at: now,
      from: String(found.status),
      to: 'SENT',
      by: 'system',
      detail: withLedgerFacts(`mailed to the respondent (${claimed.mailRef}); marked SENT over ${String(found.status)}, which a person set while it was SENDING`, facts),
    }));
    if (commitBatch(run, again).length > 0) return;
  }
  const where =
    holders.length === 0 ? 'no row holds its event_id and mail_ref (deleted?)'
    : holders.length > 1 ? `${holders.length} rows hold its event_id and mail_ref`
    : holders[0].status === 'SENT' ? 'its row already shows SENT (set by a person)'
    : 'its row changed again while being marked';
  appendLog(run, [logLineOf(claimed, {
    at: run.deps.clock.now(),
    from: 'SENDING',
    to: 'SENT',
    by: 'system',
    detail: withLedgerFacts(`mailed to the respondent (${claimed.mailRef}); not marked SENT on the sheet: ${where}`, facts),
  })]);
}
