// Which waiting rows make the next send batch: the per-recipient limit, the form's Config, the mail quota and the send ledger checked before any claim.
import { codeOf, messageOf } from '../domain/failures/errors';
import type { QueueRow } from '../domain/queue/queue-row';
import { errorSummary } from '../domain/failures/redact';
import type { Status } from '../domain/queue/statuses';
import { standingSendClaim, suppressedReason } from '../domain/mail/mail-guard';
import { ledgerStateOf, withLedgerFacts } from '../domain/mail/send-ledger';
import { submissionIdentity } from '../domain/queue/submission-identity';
import { DAY_MS } from '../domain/time';
import { mailboxOf } from '../domain/mail/mail-addresses';
import { buildMail, recipientCount, type MailBuild } from './mail';
import { newMailRef } from './mail-ref';
import { ceilingVerdict, firstMailedAt } from './recipient-ceiling';
import { replyPolicySummary, rowReplyBreaches } from './reply-policy';
import { applyOutcome } from './apply-outcome';
import { answersOf, claimTime, processingConfigFor } from './row-inputs';
import { isoTime, markGone, newBatch, runningAccountOf, suppressedOf, type Batch, type Run } from './run-context';
import { moveRow } from './run-writes';
import { ledgerRecheck, submissionLedger } from './run-ledger';

/**
 * Mails to this mailbox in the last 24 hours, as far as the Queue shows (a rolling day: no time zone to guess);
 * A@x, a@x and a+tag@x are one mailbox.
 */
export function sendsToRecipientToday(rows: readonly QueueRow[], recipient: string, now: number): number {
  const mailbox = mailboxOf(recipient);
  return rows.filter((row) => row.sentAt !== null && row.sentAt > now - DAY_MS && mailboxOf(row.recipient) === mailbox).length;
}

/** What the send step gathers for its incidents. */
export interface SendStep {
  limited: number[];
  /** Rows held back by the new-recipient ceiling (MAX_NEW_RECIPIENTS_PER_HOUR / _PER_DAY). */
  ceiling: number[];
  configProblems: string[];
  configRows: Map<number, string>;
  /**
   * Rows held because their form's send_hours or time_zone cannot be read: noted CONFIG_INVALID (the cell's code) but
   * named by TEMPLATE_INVALID's incident with the template's rows, so the triage mail says who waits.
   */
  windowProblemRows: Set<number>;
  /** Rows outside their form's send window, with their "not before" note. */
  windowRows: Map<number, string>;
  /** Problems of the Config sheet itself (an address that is not one): their own incident, not a template's. */
  configSheetProblems?: string[];
}

/** The mail, or null when the form's Config is broken (the row waits for the fix, the step goes on). */
export function prepareMail(run: Run, step: SendStep, row: QueueRow): MailBuild | null {
  try {
    const built = buildMail({ row, config: processingConfigFor(row.formId, run.forms), answers: answersOf(run.deps, row) });
    if (built.kind === 'mail') markGone(run, ['TEMPLATE_INVALID']);
    return built;
  } catch (error) {
    const code = codeOf(error);
    if (code !== 'TEMPLATE_INVALID' && code !== 'CONFIG_INVALID') throw error;
    const problems = code === 'CONFIG_INVALID' ? (step.configSheetProblems ??= []) : step.configProblems;
    if (!problems.includes(messageOf(error))) problems.push(messageOf(error));
    step.configRows.set(row.rowNumber, errorSummary(code, messageOf(error), run.secrets));
    run.setAside.add(row.rowNumber);
    return null;
  }
}

/**
 * The reply policy's word on a row about to be claimed or mailed: the row's `error` (REPLY_POLICY: …) when its reply
 * breaks the policy and no person has approved it, else null. An APPROVED row (or one claimed from APPROVED) was read
 * and approved by a person: that person decided, so it goes as they left it. A READY row has had no person: it is
 * checked now, whatever it was checked against when written (Config may have changed, staff may have edited it, or
 * it was READY before the policy existed), so nothing that breaks the policy is mailed without a person.
 */
export function replyPolicyHold(run: Run, row: QueueRow, approvedByPerson: boolean): string | null {
  if (approvedByPerson) return null;
  const breaches = rowReplyBreaches(row, processingConfigFor(row.formId, run.forms));
  return breaches.length === 0 ? null : errorSummary('REPLY_POLICY', replyPolicySummary(breaches), run.secrets);
}

/**
 * Rows claimed for sending together: one claim write and one write of the outcomes for all of them, instead of two
 * each. Kept small: a mailed row's SENT waits for at most this many mails (about a second each). A run that dies
 * mid-batch leaves them in SENDING, but at most one with an unknown outcome: each mail's "about to send" Log line
 * (send-step.ts) shows which one it reached, and the stale sweep sends the others back (stale-sweep.ts).
 */
export const SEND_BATCH_ROWS = 5;

export interface Claim {
  claim: QueueRow;
  /** The status the row goes back to when nothing was mailed (READY or APPROVED). */
  back: Status;
}

interface BatchPlan {
  /** The batch's moves, written together: the SENDING claims and the rows that go to a person or FAILED instead. */
  moves: Batch;
  claims: Claim[];
  /** Where the next batch starts in `waiting`. */
  next: number;
  /** Index in `waiting` of the row the mail quota could not take (sending stops there), or null. */
  quotaAt: number | null;
}

/**
 * Decides, from the run's copies alone, which rows of `waiting` from `from` on make the next batch: each is checked
 * against the per-recipient limit, its form's Config, the mail quota and the send ledger before it is claimed.
 */
export function planBatch(run: Run, step: SendStep, waiting: readonly QueueRow[], from: number): BatchPlan {
  const now = run.deps.clock.now();
  const room = Math.min(SEND_BATCH_ROWS, run.settings.maxMailsPerRun - run.summary.sent);
  const plan: BatchPlan = { moves: newBatch(), claims: [], next: from, quotaAt: null };
  // An empty mail_ref among them is harmless: a new reference is never empty.
  const taken = new Set(run.rows.map((other) => other.mailRef));
  const plannedTo = new Map<string, number>();
  const firstMailed = firstMailedAt(run.rows);
  const newRecipients = (run.newRecipients ??= new Set());
  const limits = { perHour: run.settings.maxNewRecipientsPerHour, perDay: run.settings.maxNewRecipientsPerDay };
  let quotaLeft: number | null = null;
  for (; plan.next < waiting.length && plan.claims.length < room; plan.next++) {
    const row = waiting[plan.next];
    if (parkSuppressed(run, plan.moves, row)) continue;
    const held = replyPolicyHold(run, row, row.status === 'APPROVED');
    if (held !== null) {
      applyOutcome(run, plan.moves, row, 'held-for-person', { detail: `held for a person: ${held}`, patch: { error: held } });
      continue;
    }
    const mailbox = mailboxOf(row.recipient);
    if (sendsToRecipientToday(run.rows, row.recipient, now) + (plannedTo.get(mailbox) ?? 0) >= run.settings.maxMailsPerRecipientPerDay) {
      step.limited.push(row.rowNumber);
      run.setAside.add(row.rowNumber);
      run.summary.deferred++;
      continue;
    }
    const ceiling = ceilingVerdict(firstMailed, newRecipients, mailbox, now, limits);
    if (ceiling === 'hour' || ceiling === 'day') {
      step.ceiling.push(row.rowNumber);
      run.setAside.add(row.rowNumber);
      run.summary.deferred++;
      continue;
    }
    const planned = prepareMail(run, step, row);
    if (planned === null) {
      run.summary.deferred++;
      continue;
    }
    if (planned.kind === 'permanent') {
      failPermanently(run, plan.moves, row, planned.reason);
      continue;
    }
    quotaLeft ??= run.deps.mailer.remainingDailyQuota();
    if (quotaLeft < recipientCount(planned.mail)) {
      plan.quotaAt = plan.next;
      break;
    }
    if (hasStandingClaim(run, plan.moves, row)) continue;
    quotaLeft -= recipientCount(planned.mail);
    plannedTo.set(mailbox, (plannedTo.get(mailbox) ?? 0) + 1);
    if (ceiling === 'room') newRecipients.add(mailbox);
    const mailRef = row.mailRef || newMailRef(run.deps.random, taken);
    taken.add(mailRef);
    const claimedAt = claimTime(now);
    // The claim line is the ledger's record of mail_ref and claimed_at (send-ledger.ts): a person's clear is put back from it.
    const claim = moveRow(run, plan.moves, row, 'SENDING', withLedgerFacts('claimed for sending', { mailRef, claimedAt, sender: runningAccountOf(run), marked: true }), { claimedAt, mailRef, error: '' });
    plan.claims.push({ claim, back: row.status as Status });
  }
  return plan;
}

/** A mail that can never go (MAIL_PERMANENT): FAILED, where a person sees why; the one place that says so for the send step. */
export function failPermanently(run: Run, batch: Batch, row: QueueRow, reason: string): void {
  const error = errorSummary('MAIL_PERMANENT', reason, run.secrets);
  applyOutcome(run, batch, row, 'mail-permanent', { detail: error, patch: { error } });
}

/**
 * A row whose recipient is on the suppression list goes to a person instead of being claimed or generated (the mail
 * guard's suppressedReason). `logNote`, when given, goes before the reason in the Log line (the row's `error` is the
 * same wherever it was stopped). True when it was parked.
 */
export function parkSuppressed(run: Run, batch: Batch, row: QueueRow, logNote = ''): boolean {
  const reason = suppressedReason(row, suppressedOf(run));
  if (reason === null) return false;
  const error = errorSummary('SUPPRESSED', reason, run.secrets);
  applyOutcome(run, batch, row, 'parked', { detail: logNote === '' ? error : `${logNote}: ${error}`, patch: { error } });
  return true;
}

/**
 * The Log, not the row's cells, has the last word before a claim: a send claimed for this submission that no
 * later line settles (a paste over status, a cleared sent_at) parks the row in NEEDS_REVIEW instead. The run's
 * ledger is read once; a claim it shows is read again first, in case a person settled it since.
 */
function hasStandingClaim(run: Run, batch: Batch, row: QueueRow): boolean {
  const keys = [row.eventId, submissionIdentity(row)].filter((key) => key !== '');
  run.claimedForSending ??= new Set();
  // Another row of this submission claimed by this run (its line not in the Log yet: a batch's claims are written together).
  if (keys.some((key) => run.claimedForSending?.has(key))) {
    const error = errorSummary('ALREADY_CLAIMED', 'another row of this submission was claimed for sending by the same run; it is not mailed twice: set SKIPPED on this copy');
    applyOutcome(run, batch, row, 'parked', { detail: error, patch: { error } });
    return true;
  }
  if (standingSendClaim(submissionLedger(run, row)) === null) {
    for (const key of keys) run.claimedForSending.add(key);
    return false;
  }
  const history = ledgerRecheck(run, row);
  const standing = standingSendClaim(history);
  if (standing === null) {
    for (const key of keys) run.claimedForSending.add(key);
    return false;
  }
  // The Log says the mail went (its row pasted over or deleted, this one a copy): the row gets that record back, so
  // what was sent stays on the sheet, and a filled sent_at keeps it from being mailed again.
  const ledger = ledgerStateOf(history);
  if (ledger?.status === 'SENT' && ledger.facts.mailRef && ledger.facts.sentAt !== undefined) {
    const { mailRef, sentAt } = ledger.facts;
    const error = errorSummary('ALREADY_SENT', `the Log shows this submission was mailed at ${isoTime(sentAt)} (${mailRef}), so it is not mailed again; set PENDING to write and send a new reply`);
    applyOutcome(run, batch, row, 'parked', { detail: error, patch: { error, mailRef, sentAt } });
    return true;
  }
  const error = errorSummary(
    'ALREADY_CLAIMED',
    `the Log shows this submission was claimed for sending at ${isoTime(standing.at)} and the mail may have gone; ` +
      'it is not mailed again until a person sets PENDING (write and send a new reply) or SENT',
  );
  applyOutcome(run, batch, row, 'parked', { detail: error, patch: { error } });
  return true;
}
