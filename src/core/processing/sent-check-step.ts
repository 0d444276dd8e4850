// The run's Sent-folder check (RECONCILE_SENT_MAIL): each SENDING row whose outcome was never recorded is settled
// from the Sent folder when a look is due; a failing search changes nothing and is reported once it persists.
import { messageOf } from '../errors';
import { errorSummary } from '../redact';
import { withLedgerFacts } from '../send-ledger';
import { MINUTE_MS } from '../time';
import { commitBatch, isoTime, markGone, moveRow, newBatch, noteWaitingRows, raiseIncident, type Run } from './run-context';
import { countsAsCopy, decideLook, isUnknownOutcome, lookDue, SECOND_LOOK_AFTER_MS, sentCheckState, sentQuery } from './sent-check';

export function runSentCheck(run: Run): void {
  const mailbox = run.deps.sentMail;
  if (!run.settings.reconcileSentMail || mailbox === undefined) return;
  const now = run.deps.clock.now();
  const batch = newBatch();
  const notes = new Map<number, string>();
  const failing: number[] = [];
  let failure = '';
  // When a look is due depends on the row alone; the Log (one read for all due rows) adds where a resend goes and how many there were.
  const dueRows = run.rows.filter((row) => {
    const bare = isUnknownOutcome(row) ? sentCheckState(row, []) : null;
    return bare !== null && lookDue(bare, now, run.settings).kind === 'look';
  });
  const histories = dueRows.length > 0 ? run.deps.audit.historiesOf(dueRows.map((row) => row.eventId)) : new Map<string, never[]>();
  for (const row of dueRows) {
    const state = sentCheckState(row, histories.get(row.eventId) ?? []);
    if (state === null) continue;
    const due = lookDue(state, now, run.settings);
    if (due.kind !== 'look') continue;
    let copies;
    try {
      copies = mailbox.search(sentQuery(row.mailRef, state.claimedAt)).filter((copy) => countsAsCopy(copy, row.mailRef, row.recipient));
    } catch (error) {
      failing.push(row.rowNumber);
      failure = messageOf(error);
      continue;
    }
    const decision = decideLook({ look: due.look, copies, state, resendAllowed: run.settings.reconcileResend, now, iso: isoTime });
    if (decision.kind === 'sent') {
      moveRow(run, batch, row, 'SENT', withLedgerFacts(decision.detail, { mailRef: row.mailRef, sentAt: decision.sentAt }), { sentAt: decision.sentAt, claimedAt: null, error: '' });
      run.summary.sent++;
    } else if (decision.kind === 'review') {
      const error = errorSummary('SENT_CHECK', decision.detail, run.secrets);
      moveRow(run, batch, row, 'NEEDS_REVIEW', error, { error, claimedAt: null });
      run.summary.needsReview++;
    } else if (decision.kind === 'resend') {
      moveRow(run, batch, row, decision.to, decision.detail, { claimedAt: null, error: '' });
    } else {
      notes.set(row.rowNumber, errorSummary('SENT_CHECK', decision.note, run.secrets));
    }
  }
  commitBatch(run, batch);
  noteWaitingRows(run, notes);
  if (failing.length > 0) {
    raiseIncident(
      run,
      'SENT_CHECK_FAILED',
      `the Sent folder could not be searched (${failure}); ${failing.length} row(s) stay in SENDING until it can. ` +
        `Check that appsscript.json enables the Gmail advanced service with gmail.readonly and run Set up / repair (docs/oauth-scopes.md)`,
      failing,
    );
  } else {
    markGone(run, ['SENT_CHECK_FAILED']);
  }
}

/** When the next look at a row is due (for the tick gate), or null when the check is off or the row is not checked. */
export function nextLookAt(run: Run, row: Parameters<typeof isUnknownOutcome>[0] & { error: string; eventId: string }): number | null {
  if (!run.settings.reconcileSentMail || !isUnknownOutcome(row) || row.claimedAt === null) return null;
  const noted = sentCheckState(row, []);
  if (noted === null) return null;
  return noted.firstEmptyLookAt === null ? row.claimedAt + run.settings.staleSendingMinutes * MINUTE_MS : noted.firstEmptyLookAt + SECOND_LOOK_AFTER_MS;
}
