// The send step: READY and APPROVED rows mailed one at a time, each claimed and read back first, never twice.
import { codeOf, messageOf } from '../errors';
import type { OutgoingMail } from '../ports';
import type { QueueRow } from '../queue-row';
import { errorSummary } from '../redact';
import type { Status } from '../statuses';
import { hasBeenMailed, isMailable, isMailedButUnsent, standingSendClaim } from '../mail-guard';
import { withLedgerFacts } from '../send-ledger';
import { DAY_MS } from '../time';
import { buildMail, classifyMailError, mailboxOf, recipientCount, type MailBuild } from './mail';
import { newMailRef } from './mail-ref';
import { answersOf, claimTime, isOurClaim, processingConfigFor } from './row-inputs';
import { commitBatch, isOverBudget, isoTime, markGone, moveRow, newBatch, noteWaitingRows, raiseIncident, remember, type Run } from './run-context';

/**
 * Mails to this mailbox in the last 24 hours, as far as the Queue shows (a rolling day: no time zone to guess);
 * A@x, a@x and a+tag@x are one mailbox.
 */
export function sendsToRecipientToday(rows: readonly QueueRow[], recipient: string, now: number): number {
  const mailbox = mailboxOf(recipient);
  return rows.filter((row) => row.sentAt !== null && row.sentAt > now - DAY_MS && mailboxOf(row.recipient) === mailbox).length;
}

/** What the send step gathers for its incidents. */
interface SendStep {
  limited: number[];
  configProblems: string[];
  configRows: Map<number, string>;
}

/**
 * One row's move, written, flushed and logged at once: a run killed after the send still leaves the
 * READY → SENDING line in the Log, where a person checking the row looks first.
 */
function write(run: Run, row: QueueRow, to: Status, detail: string, patch: Partial<QueueRow>): QueueRow {
  const batch = newBatch();
  const moved = moveRow(run, batch, row, to, detail, patch);
  commitBatch(run, batch);
  return moved;
}

/** The mail, or null when the form's Config is broken (the row waits for the fix, the step goes on). */
function prepareMail(run: Run, step: SendStep, row: QueueRow): MailBuild | null {
  try {
    const built = buildMail({ row, config: processingConfigFor(row.formId, run.forms), answers: answersOf(run.deps, row) });
    if (built.kind === 'mail') markGone(run, ['TEMPLATE_INVALID']);
    return built;
  } catch (error) {
    const code = codeOf(error);
    if (code !== 'TEMPLATE_INVALID' && code !== 'CONFIG_INVALID') throw error;
    if (!step.configProblems.includes(messageOf(error))) step.configProblems.push(messageOf(error));
    step.configRows.set(row.rowNumber, errorSummary(code, messageOf(error), run.secrets));
    run.setAside.add(row.rowNumber);
    run.summary.deferred++;
    return null;
  }
}

/** Sends every sendable row this run may send; stops at the budget, the mail quota or MAX_MAILS_PER_RUN. */
export function runSendStep(run: Run): void {
  const step: SendStep = { limited: [], configProblems: [], configRows: new Map() };
  sendRows(run, step);
  if (step.configProblems.length > 0) {
    noteWaitingRows(run, step.configRows);
    raiseIncident(run, 'TEMPLATE_INVALID', step.configProblems.join('\n'), Array.from(step.configRows.keys()));
  }
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
}

function sendRows(run: Run, step: SendStep): void {
  for (const row of run.rows.filter(isMailedButUnsent)) {
    // A filled sent_at cannot lie: whatever the status says, this row was mailed once already.
    const error = errorSummary('ALREADY_SENT', `sent_at is filled (${isoTime(row.sentAt as number)}), so it is not mailed again; set PENDING to write and send a new reply`);
    write(run, row, 'NEEDS_REVIEW', error, { error, claimedAt: null });
    run.summary.needsReview++;
  }
  for (const row of run.rows.filter((r) => isMailable(r) && r.result.trim() === '')) {
    // formqueue never makes a row READY without a reply, and approving an empty one is refused: a status pasted
    // while the on-edit trigger failed or was refused. There is nothing to mail, and waiting would never end.
    const error = errorSummary('NO_REPLY', `the row is ${row.status} but its result is empty, so there is no reply to mail; set PENDING to have one written, or SKIPPED`);
    write(run, row, 'NEEDS_REVIEW', error, { error, claimedAt: null });
    run.summary.needsReview++;
  }
  const waiting = run.rows.filter((row) => isMailable(row) && !run.setAside.has(row.rowNumber));
  for (let i = 0; i < waiting.length; i++) {
    const rest = waiting.length - i;
    if (isOverBudget(run)) {
      run.summary.stoppedBecause = 'budget';
      break;
    }
    if (run.summary.sent >= run.settings.maxMailsPerRun) {
      step.limited.push(...waiting.slice(i).map((row) => row.rowNumber));
      run.summary.deferred += rest;
      break;
    }
    const outcome = sendOne(run, step, waiting[i]);
    if (outcome === 'quota') {
      run.summary.deferred += rest - 1;
      raiseIncident(
        run,
        'MAIL_QUOTA_EXHAUSTED',
        `the daily mail quota is used up; ${rest} row(s) wait as they are and are sent once it resets`,
        waiting.slice(i).map((row) => row.rowNumber),
      );
      break;
    }
  }
}

/**
 * The Log, not the row's cells, has the last word before a claim: a send claimed for this submission that no
 * later line settles (a paste over status, a cleared sent_at) parks the row in NEEDS_REVIEW instead.
 */
function hasStandingClaim(run: Run, row: QueueRow): boolean {
  const standing = standingSendClaim(run.deps.audit.historiesOf([row.eventId]).get(row.eventId) ?? []);
  if (standing === null) return false;
  const error = errorSummary(
    'ALREADY_CLAIMED',
    `the Log shows this submission was claimed for sending at ${isoTime(standing.at)} and the mail may have gone; ` +
      'it is not mailed again until a person sets PENDING (write and send a new reply) or SENT',
  );
  write(run, row, 'NEEDS_REVIEW', error, { error, claimedAt: null });
  run.summary.needsReview++;
  return true;
}

type SendOutcome = 'sent' | 'failed' | 'needs-review' | 'quota' | 'waiting' | 'lost-claim';

function sendOne(run: Run, step: SendStep, seen: QueueRow): SendOutcome {
  const now = run.deps.clock.now();
  // The run's copy may be minutes old: a row staff moved since (e.g. SKIPPED) or edited is taken as it is now.
  const row = run.deps.queue.readRows([seen.rowNumber])[0];
  if (row) remember(run, [row]);
  if (!row || row.eventId !== seen.eventId || row.status !== seen.status || !isMailable(row)) {
    run.setAside.add(seen.rowNumber);
    return 'lost-claim';
  }
  if (sendsToRecipientToday(run.rows, row.recipient, now) >= run.settings.maxMailsPerRecipientPerDay) {
    step.limited.push(row.rowNumber);
    run.setAside.add(row.rowNumber);
    run.summary.deferred++;
    return 'waiting';
  }
  const planned = prepareMail(run, step, row);
  if (planned === null) return 'waiting';
  if (planned.kind === 'permanent') {
    const error = errorSummary('MAIL_PERMANENT', planned.reason, run.secrets);
    write(run, row, 'FAILED', error, { error, claimedAt: null });
    run.summary.failed++;
    return 'failed';
  }
  if (run.deps.mailer.remainingDailyQuota() < recipientCount(planned.mail)) {
    run.summary.sendingHaltedBy = 'MAIL_QUOTA_EXHAUSTED';
    run.summary.deferred++;
    return 'quota';
  }

  if (hasStandingClaim(run, row)) return 'needs-review';

  const taken = new Set(run.rows.map((other) => other.mailRef).filter((ref) => ref !== ''));
  const claimedAt = claimTime(now);
  const mailRef = row.mailRef || newMailRef(run.deps.random, taken);
  // The claim line is the ledger's record of mail_ref and claimed_at (send-ledger.ts): a person's clear is put back from it.
  const claimed = write(run, row, 'SENDING', withLedgerFacts('claimed for sending', { mailRef, claimedAt }), { claimedAt, mailRef, error: '' });
  // At the row number the claim was written at: commitBatch follows a row a sort moved.
  const current = run.deps.queue.readRows([claimed.rowNumber])[0];
  if (current) remember(run, [current]);
  // A sent_at filled by hand between the claim and this read wins as well: never mailed twice.
  if (!isOurClaim(current, claimed) || hasBeenMailed(current)) {
    run.setAside.add(row.rowNumber);
    return 'lost-claim';
  }

  // Built again from the row as it is now: an APPROVED row is mailed exactly as staff left its result.
  const mail = prepareMail(run, step, current);
  const back = row.status as Status;
  if (mail === null) {
    write(run, current, back, 'Config template must be fixed before sending', { claimedAt: null });
    return 'waiting';
  }
  if (mail.kind === 'permanent') {
    const error = errorSummary('MAIL_PERMANENT', mail.reason, run.secrets);
    write(run, current, 'FAILED', error, { error, claimedAt: null });
    run.summary.failed++;
    return 'failed';
  }
  return deliver(run, step, current, mail.mail, back);
}

function deliver(run: Run, step: SendStep, claimed: QueueRow, mail: OutgoingMail, back: Status): SendOutcome {
  try {
    run.deps.mailer.send(mail);
  } catch (thrown) {
    const message = messageOf(thrown);
    const kind = classifyMailError(message);
    if (kind === 'quota') {
      write(run, claimed, back, errorSummary('MAIL_QUOTA', message, run.secrets), { claimedAt: null });
      run.summary.sendingHaltedBy = 'MAIL_QUOTA_EXHAUSTED';
      run.summary.deferred++;
      return 'quota';
    }
    if (kind === 'permanent') {
      const error = errorSummary('MAIL_PERMANENT', message, run.secrets);
      write(run, claimed, 'FAILED', error, { error, claimedAt: null });
      run.summary.failed++;
      return 'failed';
    }
    const error = errorSummary('MAIL_UNKNOWN', `${message} — the mail may or may not have been sent; it is not resent automatically`, run.secrets);
    write(run, claimed, 'NEEDS_REVIEW', error, { error, claimedAt: null });
    run.summary.needsReview++;
    return 'needs-review';
  }
  // Recorded and flushed at once: from here on, sent_at guards this row against any second send.
  const sentAt = run.deps.clock.now();
  write(run, claimed, 'SENT', withLedgerFacts(`mailed to the respondent (${claimed.mailRef})`, { mailRef: claimed.mailRef, sentAt }), { sentAt, claimedAt: null, error: '' });
  run.summary.sent++;
  markGone(run, ['MAIL_QUOTA_EXHAUSTED']);
  return 'sent';
}
