// The send step: READY and APPROVED rows claimed in small batches (send-plan.ts), each read right before its mail, mailed once, never twice.
import { messageOf } from '../domain/failures/errors';
import type { OutgoingMail } from '../domain/ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { errorSummary } from '../domain/failures/redact';
import { ABOUT_TO_SEND } from '../domain/mail/send-ledger';
import { logLineOf } from '../domain/queue/submission-identity';
import type { Status } from '../domain/queue/statuses';
import { hasBeenMailed, isMailable, isMailedButUnsent } from '../domain/mail/mail-guard';
import { recordRefusedSent, sentDetail } from './record-sent';
import { classifyMailError } from './mail';
import { isOurClaim, processingConfigFor } from './row-inputs';
import { failPermanently, parkSuppressed, planBatch, prepareMail, replyPolicyHold, type Claim, type SendStep } from './send-plan';
import { applyOutcome } from './apply-outcome';
import { rowsInWindow, windowClosedSinceClaim } from './send-window-step';
import { isOverBudget, isoTime, markGone, newBatch, raiseIncident, type Batch, type Run } from './run-context';
import { commitBatch, holdBatch, noteWaitingRows, remember } from './run-writes';
import { ledgerOf } from './run-ledger';

/** Sends every sendable row this run may send; stops at the budget, the mail quota or MAX_MAILS_PER_RUN. */
export function runSendStep(run: Run): void {
  const step: SendStep = { limited: [], ceiling: [], configProblems: [], configRows: new Map(), windowProblemRows: new Set(), windowRows: new Map() };
  sendRows(run, step);
  if (step.windowRows.size > 0) noteWaitingRows(run, step.windowRows);
  if (step.configRows.size > 0) noteWaitingRows(run, step.configRows);
  const rowsOf = (code: string) => Array.from(step.configRows.entries()).flatMap(([rowNumber, error]) => (error.startsWith(`${code}:`) ? [rowNumber] : []));
  if (step.configProblems.length > 0) raiseIncident(run, 'TEMPLATE_INVALID', step.configProblems.join('\n'), [...rowsOf('TEMPLATE_INVALID'), ...step.windowProblemRows]);
  const sheetProblems = step.configSheetProblems ?? [];
  // A row waiting for its unreadable send window is noted CONFIG_INVALID too, but its problem is TEMPLATE_INVALID's
  // (named there): this incident names only the rows its own detail explains.
  if (sheetProblems.length > 0) raiseIncident(run, 'CONFIG_SHEET_INVALID', sheetProblems.join('\n'), rowsOf('CONFIG_INVALID').filter((row) => !step.windowProblemRows.has(row)));
  if (step.limited.length > 0) {
    raiseIncident(
      run,
      'MAIL_LIMIT_REACHED',
      `${step.limited.length} row(s) wait: a recipient already got MAX_MAILS_PER_RECIPIENT_PER_DAY ` +
        `(${run.settings.maxMailsPerRecipientPerDay}) mails in 24 hours, or this run reached MAX_MAILS_PER_RUN (${run.settings.maxMailsPerRun})`,
      step.limited,
    );
  } else if (run.summary.sendingHaltedBy === null) {
    markGone(run, ['MAIL_LIMIT_REACHED']);
  }
  if (step.ceiling.length > 0) {
    raiseIncident(
      run,
      'NEW_RECIPIENT_CEILING',
      `${step.ceiling.length} row(s) to addresses never mailed before wait: MAX_NEW_RECIPIENTS_PER_HOUR (${run.settings.maxNewRecipientsPerHour}) ` +
        `or MAX_NEW_RECIPIENTS_PER_DAY (${run.settings.maxNewRecipientsPerDay}) new addresses were mailed in a rolling hour or day`,
      step.ceiling,
    );
  } else if (run.summary.sendingHaltedBy === null) {
    markGone(run, ['NEW_RECIPIENT_CEILING']);
  }
}

function sendRows(run: Run, step: SendStep): void {
  parkUnmailable(run);
  holdForApproval(run);
  // Rows outside their send window are left before anything is read for them: a night of safety sweeps costs no more.
  const waiting = rowsInWindow(run, step, run.rows.filter((row) => isMailable(row) && !run.setAside.has(row.rowNumber)));
  if (waiting.length === 0) return;
  // The send ledger of every row this run may still mail (READY or APPROVED now, PENDING to be generated): one lookup.
  ledgerOf(run, run.rows.filter((row) => isMailable(row) || row.status === 'PENDING'));
  let next = 0;
  while (next < waiting.length) {
    if (isOverBudget(run)) {
      run.summary.stoppedBecause = 'budget';
      return;
    }
    if (run.summary.sent >= run.settings.maxMailsPerRun) {
      step.limited.push(...waiting.slice(next).map((row) => row.rowNumber));
      run.summary.deferred += waiting.length - next;
      return;
    }
    const plan = planBatch(run, step, waiting, next);
    const delivered = deliverBatch(run, step, plan.moves, plan.claims);
    const unplanned = plan.quotaAt ?? plan.next;
    if (plan.quotaAt !== null || delivered.quotaRows.length > 0) {
      run.summary.sendingHaltedBy = 'MAIL_QUOTA_EXHAUSTED';
      run.summary.deferred += waiting.length - unplanned;
      const held = [...delivered.quotaRows, ...waiting.slice(unplanned).map((row) => row.rowNumber)];
      raiseIncident(run, 'MAIL_QUOTA_EXHAUSTED', `the daily mail quota is used up; ${held.length} row(s) wait as they are and are sent once it resets`, held);
      return;
    }
    // A batch the budget ended in is met by the budget check above (the clock does not go back).
    next = plan.next;
  }
}

/**
 * Rows that must not be mailed whatever their status says, moved to a person in one write: a filled sent_at cannot
 * lie (mailed once already), and a READY or APPROVED row with an empty result has no reply to mail (formqueue never
 * makes one; a status pasted while the on-edit trigger failed or was refused), and waiting would never end.
 */
function parkUnmailable(run: Run): void {
  const batch = newBatch();
  for (const row of run.rows.filter(isMailedButUnsent)) {
    const error = errorSummary('ALREADY_SENT', `sent_at is filled (${isoTime(row.sentAt as number)}), so it is not mailed again; set PENDING to write and send a new reply`);
    applyOutcome(run, batch, row, 'parked', { detail: error, patch: { error } });
  }
  for (const row of run.rows.filter((r) => isMailable(r) && r.result.trim() === '')) {
    const error = errorSummary('NO_REPLY', `the row is ${row.status} but its result is empty, so there is no reply to mail; set PENDING to have one written, or SKIPPED`);
    applyOutcome(run, batch, row, 'parked', { detail: error, patch: { error } });
  }
  commitBatch(run, batch);
}

/**
 * READY rows of a form whose Config now asks for approval wait for it too: approval switched on after their reply was
 * written must not let them go unreviewed (the failure approval is there to prevent). The row keeps its reply.
 */
function holdForApproval(run: Run): void {
  const batch = newBatch();
  for (const row of run.rows.filter((r) => r.status === 'READY' && !run.setAside.has(r.rowNumber))) {
    if (!processingConfigFor(row.formId, run.forms).approvalRequired) continue;
    applyOutcome(run, batch, row, 'held-for-person', { detail: 'approval is on for this form: the reply written before waits for approval' });
  }
  commitBatch(run, batch);
}

/**
 * Mails each claimed row (the claims and the batch's other moves written and flushed first, at once, with any batch
 * held for that commit), and holds every outcome for the run's next commit (the next claims), which comes before any
 * other mail or Gemini call, or at the run's end whatever ends it. Each row is read right before its mail, which is its claim's read-back:
 * only a row that still holds our claim, with sent_at still empty, is mailed, built from the row as it is then
 * (an APPROVED row goes exactly as staff left its result; a row staff skipped meanwhile is not mailed). Until the
 * outcomes are written, a mailed row is held by its SENDING claim and its Log line, which nothing mails again.
 * Rows left when the budget ends or the quota refuses go back unmailed (SENDING → READY or APPROVED).
 */
function deliverBatch(run: Run, step: SendStep, moves: Batch, claims: readonly Claim[]): { quotaRows: number[] } {
  commitBatch(run, moves);
  const results = newBatch();
  const mailed: Mailed[] = [];
  const quotaRows: number[] = [];
  let budgetEnded = false;
  for (const { claim, back } of claims) {
    if (quotaRows.length > 0 || budgetEnded || isOverBudget(run)) {
      budgetEnded ||= quotaRows.length === 0;
      if (quotaRows.length > 0) quotaRows.push(claim.rowNumber);
      const reason = quotaRows.length > 0 ? 'the daily mail quota is used up' : "the run's budget ended";
      applyOutcome(run, results, claim, 'not-mailed', { detail: `not mailed: ${reason} before this row's turn`, claimedFrom: back });
      continue;
    }
    const current = readBackClaim(run, claim);
    // A sent_at filled by hand since the claim wins as well: never mailed twice. A row taken from us is not tried again.
    if (!isOurClaim(current, claim) || hasBeenMailed(current)) {
      run.setAside.add(current?.rowNumber ?? claim.rowNumber);
      continue;
    }
    const outcome = mailClaimedRow(run, step, results, current, back);
    if (outcome === 'quota') quotaRows.push(current.rowNumber);
    else if (outcome !== null) mailed.push(outcome);
  }
  if (budgetEnded) run.summary.stoppedBecause = 'budget';
  // Written with the run's next commit (the next batch's claims or round's claims: one compare-and-set read, write and
  // flush for both), which comes before any other mail or Gemini call, or at the run's end. The mail went: a SENT the
  // compare-and-set refused (a person changed or moved the row meanwhile) is recorded anyway.
  holdBatch(run, results, (written) => {
    for (const sent of mailed) if (!written.includes(sent.row)) recordRefusedSent(run, sent.claimed, sent.sentAt);
  });
  return { quotaRows };
}

/**
 * One claimed row, as read back, that is still ours and unmailed: parked when its address is suppressed, back or to a
 * person when its Config, the reply policy or its send window (closed since the claim) says no, mailed otherwise. The mailed outcome, 'quota', or null (not mailed).
 */
function mailClaimedRow(run: Run, step: SendStep, results: Batch, current: QueueRow, back: Status): Mailed | 'quota' | null {
  // The recipient may have been edited since the claim: the guard is asked again for the address about to be mailed.
  if (parkSuppressed(run, results, current)) return null;
  const mail = prepareMail(run, step, current);
  // The row as it is now (a person may have edited its result since the claim): a READY claim is checked again.
  const held = mail?.kind === 'mail' ? replyPolicyHold(run, current, back === 'APPROVED') : null;
  // The window is read again at the moment of the mail: a row claimed at 19:59 is not mailed after 20:00.
  const closed = mail?.kind === 'mail' && held === null ? windowClosedSinceClaim(run, step, current) : null;
  if (mail === null) {
    applyOutcome(run, results, current, 'not-mailed', { detail: 'Config template must be fixed before sending', claimedFrom: back });
  } else if (mail.kind === 'permanent') {
    failPermanently(run, results, current, mail.reason);
  } else if (held !== null) {
    // Back to READY, nothing mailed; the next plan gives it to a person (READY → AWAITING_APPROVAL).
    applyOutcome(run, results, current, 'not-mailed', { detail: `not mailed: ${held}`, patch: { error: held }, claimedFrom: back });
    run.setAside.add(current.rowNumber);
  } else if (closed !== null) {
    const outcome = closed.startsWith('SEND_WINDOW:') ? 'outside-send-window' : 'not-mailed';
    applyOutcome(run, results, current, outcome, { detail: `not mailed: ${closed}`, patch: { error: closed }, claimedFrom: back });
    run.setAside.add(current.rowNumber);
  } else {
    markAboutToSend(run, current);
    return deliver(run, results, current, mail.mail, back);
  }
  return null;
}

/**
 * The claimed row as it is now: at the row number its claim was written at (commitBatch follows a row a sort moved
 * before the write), or found again by event_id when staff sorted or inserted rows while an earlier row of the batch
 * was mailed. Undefined when no single row holds the submission (deleted, or copied).
 */
function readBackClaim(run: Run, claim: QueueRow): QueueRow | undefined {
  const here = run.deps.queue.readRows([claim.rowNumber])[0];
  if (here?.eventId === claim.eventId) {
    remember(run, [here]);
    return here;
  }
  run.rows = run.deps.queue.readAll();
  const holders = run.rows.filter((row) => row.eventId === claim.eventId);
  return holders.length === 1 ? holders[0] : undefined;
}

/**
 * One Log line right before the mail, flushed, so a run that dies leaves at most one claimed row whose outcome is
 * unknown: the batch's mails go in order, and a claimed row without this line was never mailed (stale-sweep.ts sends
 * it back). Flushed because whether writes still pending reach the sheet when Apps Script kills an execution is not
 * documented: one more call per mail.
 */
function markAboutToSend(run: Run, row: QueueRow): void {
  run.deps.audit.append([logLineOf(row, { at: run.deps.clock.now(), from: 'SENDING', to: 'SENDING', by: 'system', detail: ABOUT_TO_SEND })]);
  run.deps.queue.flush();
}

/** A mailed row: its claim as mailed and its SENT move in the batch of outcomes. */
interface Mailed {
  claimed: QueueRow;
  row: QueueRow;
  sentAt: number;
}

/** The mailed row, 'quota' when the daily quota refused it (it goes back), or null when its outcome is FAILED or NEEDS_REVIEW. */
function deliver(run: Run, results: Batch, claimed: QueueRow, mail: OutgoingMail, back: Status): Mailed | 'quota' | null {
  try {
    run.deps.mailer.send(mail);
  } catch (thrown) {
    const message = messageOf(thrown);
    const kind = classifyMailError(message);
    if (kind === 'quota') {
      applyOutcome(run, results, claimed, 'mail-quota', { detail: errorSummary('MAIL_QUOTA', message, run.secrets), claimedFrom: back });
      return 'quota';
    }
    if (kind === 'permanent') {
      failPermanently(run, results, claimed, message);
      return null;
    }
    const error = errorSummary('MAIL_UNKNOWN', `${message} — the mail may or may not have been sent; it is not resent automatically`, run.secrets);
    applyOutcome(run, results, claimed, 'mail-unknown', { detail: error, patch: { error } });
    return null;
  }
  // From here on the SENDING claim in the Log and, once the batch is written, sent_at guard this row against any second send.
  const sentAt = run.deps.clock.now();
  const row = applyOutcome(run, results, claimed, 'sent', { detail: sentDetail(claimed.mailRef, sentAt), patch: { sentAt, error: '' } });
  markGone(run, ['MAIL_QUOTA_EXHAUSTED']);
  return { claimed, row, sentAt };
}
