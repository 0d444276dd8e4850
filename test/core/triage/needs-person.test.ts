// The one rule for rows needing a person, and the words staff get for each reason (table-driven).
import { describe, expect, it } from 'vitest';
import { NO_PROOF_IN_SENT } from '../../../src/core/processing/sent-check';
import { emptyRow, type QueueRow } from '../../../src/core/domain/queue/queue-row';
import { NEEDS_PERSON_GUIDE, NEEDS_PERSON_REASONS, needsPersonReason } from '../../../src/core/triage/needs-person';
import { MINUTE, T0 } from '../fakes/rows';

const HOUR = 60 * MINUTE;
const WAIT_HOURS = 24;

const cell = (error: string, times: Partial<QueueRow> = {}): QueueRow => ({ ...emptyRow(), receivedAt: T0 - HOUR, updatedAt: T0 - HOUR, error, ...times });

describe('needsPersonReason', () => {
  const cases: [string, string, QueueRow, string | null][] = [
    // Rows formqueue moves by itself, or that are finished, never need a person.
    ['PENDING', 'PENDING', cell('GEMINI_RETRYABLE: 503'), null],
    ['SENDING', 'SENDING', cell(''), null],
    ['READY with a template note', 'READY', cell('TEMPLATE_INVALID: x'), null],
    ['SENT', 'SENT', cell(''), null],
    ['SKIPPED', 'SKIPPED', cell(''), null],
    ['SENT long ago (only AWAITING_APPROVAL waits too long)', 'SENT', cell('', { receivedAt: T0 - 72 * HOUR, updatedAt: T0 - 72 * HOUR }), null],
    ['PENDING with no time at all', 'PENDING', cell('', { receivedAt: null, updatedAt: null }), null],
    // NEEDS_REVIEW, by the code its error cell starts with.
    ['a stale send', 'NEEDS_REVIEW', cell('STALE_SENDING: sending started 21 min ago'), 'send-interrupted'],
    ['an unclear Gmail answer', 'NEEDS_REVIEW', cell('MAIL_UNKNOWN: Exception: odd — the mail may or may not have been sent'), 'mail-outcome-unknown'],
    ['a claim the Log never settled', 'NEEDS_REVIEW', cell('ALREADY_CLAIMED: the Log shows…'), 'send-claim-unsettled'],
    ['sent_at filled', 'NEEDS_REVIEW', cell('ALREADY_SENT: sent_at is filled'), 'already-sent'],
    ['an address on the Suppressed sheet', 'NEEDS_REVIEW', cell('SUPPRESSED: ann@example.org is on the Suppressed sheet (added by bounce: …)'), 'suppressed'],
    ['the Sent check found 2 copies', 'NEEDS_REVIEW', cell('SENT_CHECK: mailed 2 times (message ids a, b); a person must look'), 'mailed-several-times'],
    ['the Sent check looks again (a parked row)', 'NEEDS_REVIEW', cell('SENT_CHECK: no copy in Sent yet at 2026-12-01T10:00:00.000Z; looking again after 2026-12-01T10:45:00.000Z'), 'sent-check-looks-again'],
    ['the Sent check found none', 'NEEDS_REVIEW', cell('SENT_CHECK: no copy in Sent: safe to resend — set PENDING'), 'no-copy-in-sent'],
    ['the claim was made as another account', 'NEEDS_REVIEW', cell("SENT_CHECK: the claim was made by a run as ana@x.org, so the mail, if it went, is in ana@x.org's Sent folder"), 'sent-from-another-account'],
    ['a row removed by hand and put back', 'NEEDS_REVIEW', cell('RESTORED: its row was removed from Queue by hand'), 'restored'],
    ['a copy of another row (NEEDS_REVIEW)', 'NEEDS_REVIEW', cell('COPIED: row(s) 3 hold the same submission'), 'copied'],
    ['a copy of another row (FAILED)', 'FAILED', cell('COPIED: row(s) 3 hold the same submission'), 'copied'],
    ['a copy of another row waits for a person at once, however young (AWAITING_APPROVAL)', 'AWAITING_APPROVAL', cell('COPIED: row(s) 3 hold the same submission'), 'copied'],
    ['the Sent check found none, and no later reply either', 'NEEDS_REVIEW', cell(`SENT_CHECK: ${NO_PROOF_IN_SENT}`), 'sent-check-unproven'],
    ['a paste parked it (old error of another step)', 'NEEDS_REVIEW', cell('GEMINI_RETRYABLE: 503'), 'parked-by-edit'],
    ['a paste parked it (no error)', 'NEEDS_REVIEW', cell(''), 'parked-by-edit'],
    ['the Sent check found 12 copies', 'NEEDS_REVIEW', cell('SENT_CHECK: mailed 12 times (message ids a, …); a person must look'), 'mailed-several-times'],
    ['a Sent check note a person edited into other words', 'NEEDS_REVIEW', cell('SENT_CHECK: looked at it, all fine'), 'parked-by-edit'],
    ['a code after leading blanks', 'NEEDS_REVIEW', cell('  MAIL_UNKNOWN: odd answer'), 'mail-outcome-unknown'],
    // FAILED, likewise.
    ['no address', 'FAILED', cell('MAIL_PERMANENT: no email address in the submission; no reply was generated'), 'no-address'],
    ['an address refused', 'FAILED', cell('MAIL_PERMANENT: Invalid email: x@'), 'mail-refused'],
    ['a blocked prompt', 'FAILED', cell('GEMINI_CONTENT: Gemini blocked the prompt (SAFETY)'), 'prompt-blocked'],
    ['a refused request', 'FAILED', cell('GEMINI_REJECTED: HTTP 400'), 'gemini-refused'],
    ['Gemini gave up', 'FAILED', cell('GEMINI_RETRYABLE: gave up after 5 attempts; last: 503'), 'gemini-gave-up'],
    ['anything else', 'FAILED', cell('something a person typed'), 'failed-other'],
    ['a code later in the cell is no code', 'FAILED', cell('retried after GEMINI_REJECTED: HTTP 400'), 'failed-other'],
    // AWAITING_APPROVAL: only once it has waited APPROVAL_WAIT_HOURS, from updated_at (else received_at).
    ['approval, 1 h', 'AWAITING_APPROVAL', cell(''), null],
    ['approval, a minute short of 24 h', 'AWAITING_APPROVAL', cell('', { updatedAt: T0 - 24 * HOUR + MINUTE }), null],
    ['approval, exactly 24 h', 'AWAITING_APPROVAL', cell('', { updatedAt: T0 - 24 * HOUR }), 'approval-overdue'],
    ['approval edited lately although received long ago', 'AWAITING_APPROVAL', cell('', { receivedAt: T0 - 72 * HOUR, updatedAt: T0 - HOUR }), null],
    ['approval with no updated_at: received_at counts', 'AWAITING_APPROVAL', cell('', { receivedAt: T0 - 30 * HOUR, updatedAt: null }), 'approval-overdue'],
    ['approval with no time at all', 'AWAITING_APPROVAL', cell('', { receivedAt: null, updatedAt: null }), 'approval-overdue'],
    // A word formqueue does not know: nothing moves that row either.
    ['a mistyped status', 'SENTT', cell(''), 'unknown-status'],
    ['a lower-case status', 'sent', cell(''), 'unknown-status'],
  ];
  for (const [name, status, row, reason] of cases) {
    it(`${name} (${status}) → ${reason ?? 'no person needed'}`, () => {
      expect(needsPersonReason(row, status, T0, WAIT_HOURS)).toBe(reason);
    });
  }

  it('follows APPROVAL_WAIT_HOURS', () => {
    const row = cell('', { updatedAt: T0 - 3 * HOUR });
    expect(needsPersonReason(row, 'AWAITING_APPROVAL', T0, 2)).toBe('approval-overdue');
    expect(needsPersonReason(row, 'AWAITING_APPROVAL', T0, 4)).toBeNull();
  });
});

describe('what staff are told per reason', () => {
  it('every reason has a label and a next step that names a status to set', () => {
    for (const reason of NEEDS_PERSON_REASONS) {
      const guide = NEEDS_PERSON_GUIDE[reason];
      expect(guide.label, reason).not.toBe('');
      expect(guide.step, reason).toMatch(/\b(SENT|PENDING|APPROVED|SKIPPED)\b|the status it should have/);
    }
  });

  const unknownOutcome = ['send-interrupted', 'mail-outcome-unknown', 'send-claim-unsettled'] as const;
  for (const reason of unknownOutcome) {
    it(`${reason}: doable without the deploying account's Sent folder (the Log line, the respondent, or the deployer)`, () => {
      const step = NEEDS_PERSON_GUIDE[reason].step;
      expect(step).toContain('Log');
      expect(step).toContain('respondent');
      expect(step).toContain('whoever deployed formqueue');
      expect(step).toContain('mail_ref');
    });
  }

  it('a row the Sent check will look at again: nothing to do, or ask the respondent or the deployer to settle it sooner', () => {
    const step = NEEDS_PERSON_GUIDE['sent-check-looks-again'].step;
    expect(step).toContain('Nothing to do meanwhile');
    expect(step).toContain('respondent');
    expect(step).toContain('whoever deployed formqueue');
  });

  for (const reason of ['send-interrupted', 'mail-outcome-unknown', 'send-claim-unsettled'] as const) {
    it(`${reason}: tells staff the Sent folder check can settle such rows, and the operator note names RECONCILE_SENT_MAIL and where it is explained`, () => {
      expect(NEEDS_PERSON_GUIDE[reason].step).toContain('Whoever set formqueue up can switch on its Sent folder check');
      expect(NEEDS_PERSON_GUIDE[reason].step).not.toMatch(/Script Property|RECONCILE_SENT_MAIL|docs\//);
      expect(NEEDS_PERSON_GUIDE[reason].operatorNote).toContain('RECONCILE_SENT_MAIL=true');
      expect(NEEDS_PERSON_GUIDE[reason].operatorNote).toContain('docs/oauth-scopes.md');
    });
  }
});

describe('needsPersonReason for a row with no time', () => {
  it('a row awaiting approval with neither an updated nor a received time is overdue at once, even early in the epoch', () => {
    expect(needsPersonReason(cell('', { receivedAt: null, updatedAt: null }), 'AWAITING_APPROVAL', HOUR, WAIT_HOURS)).toBe('approval-overdue');
  });
});
