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
    // The caller sees the budget spent too and ends the run as 'budget'.
    if (isOverBudget(run)) break;
    if (run.summary.sent >= run.settings.maxMailsPerRun) {
      step.limited.push(...waiting.slice(i).map((row) => row.rowNumber));
      run.summary.deferred += rest;
      break;
    }
    if (!sendOne(run, step, waiting[i])) {
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

/** Sends one row, or leaves it where its state says; false only when the mail quota stops the step. */
function sendOne(run: Run, step: SendStep, seen: QueueRow): boolean {
  const now = run.deps.clock.now();
  // The run's copy may be minutes old: a row staff moved since (e.g. SKIPPED) or edited is taken as it is now.
  const row = run.deps.queue.readRows([seen.rowNumber])[0];
  if (row) remember(run, [row]);
  if (!row || row.eventId !== seen.eventId || row.status !== seen.status || !isMailable(row)) {
    run.setAside.add(seen.rowNumber);
    return true;
  }
  if (sendsToRecipientToday(run.rows, row.recipient, now) >= run.settings.maxMailsPerRecipientPerDay) {
    step.limited.push(row.rowNumber);
    run.setAside.add(row.rowNumber);
    run.summary.deferred++;
    return true;
  }
  const planned = prepareMail(run, step, row);
  if (planned === null) return true;
  if (planned.kind === 'permanent') {
    const error = errorSummary('MAIL_PERMANENT', planned.reason, run.secrets);
    write(run, row, 'FAILED', error, { error, claimedAt: null });
    run.summary.failed++;
    return true;
  }
  if (run.deps.mailer.remainingDailyQuota() < recipientCount(planned.mail)) {
    run.summary.sendingHaltedBy = 'MAIL_QUOTA_EXHAUSTED';
    run.summary.deferred++;
    return false;
  }

  if (hasStandingClaim(run, row)) return true;

  // An empty mailRef in the set is harmless: newMailRef never draws ''.
  const taken = new Set(run.rows.map((other) => other.mailRef));
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
    return true;
  }

  // Built again from the row as it is now: an APPROVED row is mailed exactly as staff left its result.
  const mail = prepareMail(run, step, current);
  const back = row.status as Status;
  if (mail === null) {
    write(run, current, back, 'Config template must be fixed before sending', { claimedAt: null });
    return true;
  }
  if (mail.kind === 'permanent') {
    const error = errorSummary('MAIL_PERMANENT', mail.reason, run.secrets);
    write(run, current, 'FAILED', error, { error, claimedAt: null });
    run.summary.failed++;
    return true;
  }
  return deliver(run, current, mail.mail, back);
}

/** Mails the claimed row and records the outcome; false only when the mail quota stops the step. */
function deliver(run: Run, claimed: QueueRow, mail: OutgoingMail, back: Status): boolean {
  try {
    run.deps.mailer.send(mail);
  } catch (thrown) {
    const message = messageOf(thrown);
    const kind = classifyMailError(message);
    if (kind === 'quota') {
      write(run, claimed, back, errorSummary('MAIL_QUOTA', message, run.secrets), { claimedAt: null });
      run.summary.sendingHaltedBy = 'MAIL_QUOTA_EXHAUSTED';
      run.summary.deferred++;
      return false;
    }
    if (kind === 'permanent') {
      const error = errorSummary('MAIL_PERMANENT', message, run.secrets);
      write(run, claimed, 'FAILED', error, { error, claimedAt: null });
      run.summary.failed++;
      return true;
    }
    const error = errorSummary('MAIL_UNKNOWN', `${message} — the mail may or may not have been sent; it is not resent automatically`, run.secrets);
    write(run, claimed, 'NEEDS_REVIEW', error, { error, claimedAt: null });
    run.summary.needsReview++;
    return true;
  }
  // Recorded and flushed at once: from here on, sent_at guards this row against any second send.
  recordSent(run, claimed, run.deps.clock.now());
  run.summary.sent++;
  markGone(run, ['MAIL_QUOTA_EXHAUSTED']);
  return true;
}

/**
 * The mail went: its outcome is recorded whatever a person did to the row meanwhile. The SENT write is
 * compare-and-set (the row must still show SENDING); if a person changed or moved it so that it is not found, the
 * row holding this claim's event_id and mail_ref is looked for again and marked SENT from what it shows now (SENT is
 * the truth, and what keeps it from a second mail). With no such row (deleted), the Log still gets the SENT line
 * with its ledger facts: the claim then stands settled as mailed (never mailed again), and a row put back later
 * showing SENT gets its sent_at and mail_ref back from that line (send-ledger.ts).
 */
function recordSent(run: Run, claimed: QueueRow, sentAt: number): void {
  const facts = { mailRef: claimed.mailRef, sentAt };
  const detail = withLedgerFacts(`mailed to the respondent (${claimed.mailRef})`, facts);
  const patch: Partial<QueueRow> = { sentAt, claimedAt: null, error: '' };
  const batch = newBatch();
  moveRow(run, batch, claimed, 'SENT', detail, patch);
  if (commitBatch(run, batch).length > 0) return;
  run.rows = run.deps.queue.readAll();
  const holders = run.rows.filter((row) => row.eventId === claimed.eventId && row.mailRef === claimed.mailRef);
  if (holders.length === 1 && holders[0].status !== 'SENT') {
    // Not a move of the transition table (a person's status is overwritten): the one place the mail's outcome, a
    // fact outside the sheet, outranks what the row shows. Compare-and-set on what it shows now.
    const found = holders[0];
    const now = run.deps.clock.now();
    const again = newBatch();
    again.rows.push({ ...found, ...patch, status: 'SENT', updatedAt: now });
    again.expected.push({ eventId: found.eventId, status: found.status });
    again.entries.push({
      at: now,
      eventId: found.eventId,
      from: String(found.status),
      to: 'SENT',
      by: 'system',
      detail: withLedgerFacts(`mailed to the respondent (${claimed.mailRef}); marked SENT over ${String(found.status)}, which a person set while it was SENDING`, facts),
    });
    if (commitBatch(run, again).length > 0) return;
  }
  const where =
    holders.length === 0 ? 'no row holds its event_id and mail_ref (deleted?)'
    : holders.length > 1 ? `${holders.length} rows hold its event_id and mail_ref`
    : holders[0].status === 'SENT' ? 'its row already shows SENT (set by a person)'
    : 'its row changed again while being marked';
  run.deps.audit.append([{
    at: run.deps.clock.now(),
    eventId: claimed.eventId,
    from: 'SENDING',
    to: 'SENT',
    by: 'system',
    detail: withLedgerFacts(`mailed to the respondent (${claimed.mailRef}); not marked SENT on the sheet: ${where}`, facts),
  }]);
}
