// The run's Sent-folder check (RECONCILE_SENT_MAIL): each row whose send claim has no recorded outcome — still in
// SENDING, or parked in NEEDS_REVIEW for it — is settled from the Sent folder when a look is due; a failing search
// changes nothing and is reported once it persists.
import { messageOf } from '../domain/failures/errors';
import type { SentMailbox } from '../domain/ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { errorSummary } from '../domain/failures/redact';
import { withLedgerFacts } from '../domain/mail/send-ledger';
import { MINUTE_MS } from '../domain/time';
import { applyOutcome } from './apply-outcome';
import { isOverBudget, isoTime, markGone, newBatch, raiseIncident, runningAccountOf, type Batch, type Run } from './run-context';
import { commitBatch, noteRow, noteWaitingRows } from './run-writes';
import {
  countsAsCopy,
  decideLook,
  isParkedUnknownOutcome,
  isSentCheckCandidate,
  isUnknownOutcome,
  laterReply,
  lookDue,
  otherMailboxReview,
  parkedLookAt,
  SECOND_LOOK_AFTER_MS,
  sentCheckState,
  sentQuery,
  type SentCheckDecision,
} from './sent-check';

/**
 * The mailbox the Sent check looks in: null when RECONCILE_SENT_MAIL is off or no Sent mailbox is wired. Without one
 * the stale sweep treats SENDING rows as with the check off, so a row the check would look at but cannot is swept,
 * never left in SENDING.
 */
export function sentCheckMailbox(run: Run): SentMailbox | null {
  return run.settings.reconcileSentMail ? (run.deps.sentMail ?? null) : null;
}

export function runSentCheck(run: Run): void {
  const mailbox = sentCheckMailbox(run);
  if (mailbox === null) return;
  const now = run.deps.clock.now();
  const batch = newBatch();
  const notes = new Map<number, string>();
  /** Rows whose search failed, with its error (the last one is named). */
  const failed: { rowNumber: number; message: string }[] = [];
  // A SENDING row says from its cells alone when a look is due; a parked row's claim time is in the Log, so every
  // parked candidate is read there (one read for all due rows), with where a resend goes and how many there were.
  const dueRows = run.rows.filter((row) => {
    if (isParkedUnknownOutcome(row)) return true;
    const bare = isUnknownOutcome(row) ? sentCheckState(row, []) : null;
    return bare !== null && lookDue(bare, now, run.settings).kind === 'look';
  });
  const histories = dueRows.length > 0 ? run.deps.audit.historiesOf(dueRows.map((row) => row.eventId)) : new Map<string, never[]>();
  for (const row of dueRows) {
    // Each look is a search: a backlog (the setting just turned on) is worked through over several runs.
    if (isOverBudget(run)) break;
    const state = sentCheckState(row, histories.get(row.eventId) ?? []);
    if (state === null) continue;
    const due = lookDue(state, now, run.settings);
    if (due.kind !== 'look') continue;
    const elsewhere = otherMailboxReview(state, runningAccountOf(run), row.mailRef);
    if (elsewhere !== null) {
      settle(run, batch, notes, row, elsewhere);
      continue;
    }
    let copies;
    try {
      copies = mailbox.search(sentQuery(row.mailRef, state.claimedAt)).filter((copy) => countsAsCopy(copy, row.mailRef, row.recipient));
    } catch (error) {
      failed.push({ rowNumber: row.rowNumber, message: messageOf(error) });
      continue;
    }
    let laterReplyInSent = true;
    if (due.look === 2 && copies.length === 0) {
      try {
        laterReplyInSent = showsLaterReply(mailbox, run.rows, state.claimedAt);
      } catch (error) {
        failed.push({ rowNumber: row.rowNumber, message: messageOf(error) });
        continue;
      }
    }
    const decision = decideLook({ look: due.look, copies, state, resendAllowed: run.settings.reconcileResend, laterReplyInSent, now, iso: isoTime });
    settle(run, batch, notes, row, decision);
  }
  commitBatch(run, batch);
  noteWaitingRows(run, notes);
  if (failed.length > 0) {
    raiseIncident(
      run,
      'SENT_CHECK_FAILED',
      `the Sent folder could not be searched (${failed[failed.length - 1].message}); ${failed.length} row(s) stay as they are (SENDING or NEEDS_REVIEW) until it can. ` +
        `Check that appsscript.json enables the Gmail advanced service with gmail.readonly and run Set up / repair (docs/oauth-scopes.md)`,
      failed.map((failure) => failure.rowNumber),
    );
  } else {
    markGone(run, ['SENT_CHECK_FAILED']);
  }
}

/**
 * Whether Sent shows a reply formqueue sent after the claim (laterReply), found as the check finds any copy: by its
 * reference, to its recipient. Without one, "no copy" proves nothing (MailApp may keep no copy, or search may lag).
 */
function showsLaterReply(mailbox: SentMailbox, rows: readonly QueueRow[], claimedAt: number): boolean {
  const later = laterReply(rows, claimedAt);
  if (later === null || later.sentAt === null) return false;
  return mailbox.search(sentQuery(later.mailRef, later.sentAt)).some((copy) => countsAsCopy(copy, later.mailRef, later.recipient));
}

/** One look's decision written to the row: a SENDING row moves; a parked row moves, or gets the finding as its reason. */
function settle(run: Run, batch: Batch, notes: Map<number, string>, row: QueueRow, decision: SentCheckDecision): void {
  const parked = row.status === 'NEEDS_REVIEW';
  if (decision.kind === 'sent') {
    // A parked row confirmed is no mail of this run's: it does not count against MAX_MAILS_PER_RUN.
    applyOutcome(run, batch, row, parked ? 'found-in-sent' : 'sent', {
      detail: withLedgerFacts(decision.detail, { mailRef: row.mailRef, sentAt: decision.sentAt }),
      patch: { sentAt: decision.sentAt, error: '' },
    });
  } else if (decision.kind === 'review') {
    const error = errorSummary('SENT_CHECK', decision.detail, run.secrets);
    if (parked) {
      noteRow(run, batch, row, error, { error });
    } else {
      applyOutcome(run, batch, row, 'stale-sending', { detail: error, patch: { error } });
    }
  } else if (decision.kind === 'resend') {
    applyOutcome(run, batch, row, 'resent-after-sent-check', { detail: decision.detail, patch: { error: '' }, claimedFrom: decision.to });
  } else {
    notes.set(row.rowNumber, errorSummary('SENT_CHECK', decision.note, run.secrets));
  }
}

/** When the next look at a row is due (for the tick gate), or null when the check is off or the row is not checked. */
export function nextLookAt(run: Run, row: QueueRow, now: number): number | null {
  if (sentCheckMailbox(run) === null || !isSentCheckCandidate(row)) return null;
  if (isParkedUnknownOutcome(row)) return parkedLookAt(row, now, run.settings);
  const noted = sentCheckState(row, []);
  if (noted === null) return null;
  return noted.firstEmptyLookAt === null ? noted.claimedAt + run.settings.staleSendingMinutes * MINUTE_MS : noted.firstEmptyLookAt + SECOND_LOOK_AFTER_MS;
}
