// The one outcome table: for each way a generation or send step ends, the state the row goes to, whether the attempt is charged, the counter and the incident.
import type { IncidentCode } from '../failures/codes';
import { codedError } from '../failures/errors';
import type { Status } from './statuses';
import { COLLAPSIBLE_STATUSES } from './transitions';

/**
 * Every way the system ends a step on a row. Generation outcomes settle the attempt the GENERATING claim started;
 * send outcomes settle a SENDING claim or a row the send step looked at; housekeeping ones come from the run's sweeps.
 */
export const OUTCOME_CLASSES = [
  'reply-written',
  'reply-held',
  'retryable',
  'rate-limited',
  'retries-spent',
  'not-asked',
  'outage',
  'systemic',
  'generation-permanent',
  'no-address',
  'stale-generating',
  'sent',
  'mail-permanent',
  'mail-unknown',
  'mail-quota',
  'not-mailed',
  'outside-send-window',
  'held-for-person',
  'parked',
  'stale-sending',
  'claim-never-mailed',
  'found-in-sent',
  'resent-after-sent-check',
  'duplicate',
] as const;

export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

/** The state a send claim came from (READY or APPROVED), so an approval is never lost when nothing was mailed. */
export const CLAIMED_FROM = 'claimed from';

/**
 * The attempt a GENERATING claim started: charged (it counts toward MAX_ATTEMPTS), not charged (not the row's fault:
 * it keeps its place), or none (no attempt was started: sending, or no Gemini call).
 */
export type AttemptCharge = 'charged' | 'not charged' | 'none';

/** The run's counters a step may count once the row's write lands (processing/batch.ts, countWhenWritten). */
type WrittenCounter = 'generated' | 'failed' | 'deferred' | 'needsReview';

/** The run's counters (processing summary); `at once` when the step counts it whether or not its write lands. */
export type OutcomeCounter = WrittenCounter | 'sent' | 'duplicates';

/**
 * An outcome's counter and when it counts: once its write lands ('written'), or at once ('at once': the mail went, or
 * the row is set aside this run). `sent` and `duplicates` count only at once, so a counter counted when written is one
 * the batch can count.
 */
type OutcomeCount =
  | { counter: WrittenCounter | null; counted: 'written' }
  | { counter: OutcomeCounter | null; counted: 'at once' };

export type Outcome = OutcomeEffects & OutcomeCount;

interface OutcomeEffects {
  /** The states a row is in when the step ends this way. */
  from: readonly Status[];
  /** The state the row goes to; CLAIMED_FROM: back to the state its send claim came from. */
  to: Status | typeof CLAIMED_FROM;
  attempt: AttemptCharge;
  /** The incident the run raises for it (with the rows), or null; 'named by the verdict' when the verdict names it (systemic). */
  incident: IncidentCode | 'named by the verdict' | null;
  /** Which step stops for the rest of the run. */
  pauses: 'generation' | null;
  /** What the row waits for before its next step (notBefore in not-before.ts), or null. */
  waits: 'back-off' | 'send window' | null;
  /** One line for docs/states.md. */
  when: string;
}

/**
 * The outcome table's row for one class. docs/states.md prints the table (scripts/docs/states-doc.ts); applyOutcome
 * (src/core/processing/apply-outcome.ts) is the one function that moves a row by it.
 */
export function outcomeRule(outcome: OutcomeClass): Outcome {
  return outcomeTable()[outcome];
}

/**
 * The outcome table, built when asked rather than once at load: a table built at load is fixed before any test runs,
 * so a mutation tester that switches one change on per test could never see a changed entry (docs/quality.md).
 */
function outcomeTable(): Readonly<Record<OutcomeClass, Outcome>> {
  return { ...generationOutcomes(), ...mailOutcomes(), ...checkOutcomes() };
}

/** What a Gemini request (or its stale claim) ends in. */
function generationOutcomes() {
  return {
    'reply-written': { from: ['GENERATING'], to: 'READY', attempt: 'charged', counter: 'generated', counted: 'written', incident: null, pauses: null, waits: null, when: 'Gemini wrote a reply' },
    'reply-held': {
      from: ['GENERATING'],
      to: 'AWAITING_APPROVAL',
      attempt: 'charged',
      counter: 'generated',
      counted: 'written',
      incident: null,
      pauses: null,
      waits: null,
      when: 'Gemini wrote a reply, and the form asks for approval or the reply breaks the reply policy',
    },
    retryable: { from: ['GENERATING'], to: 'PENDING', attempt: 'charged', counter: 'deferred', counted: 'written', incident: null, pauses: null, waits: 'back-off', when: 'a timeout, 5xx or no connection, attempts left' },
    'rate-limited': {
      from: ['GENERATING'],
      to: 'PENDING',
      attempt: 'charged',
      counter: 'deferred',
      counted: 'written',
      incident: 'GEMINI_RATE_LIMITED',
      pauses: null,
      waits: 'back-off',
      when: "Gemini's per-minute limit (429), attempts left",
    },
    'retries-spent': { from: ['GENERATING'], to: 'FAILED', attempt: 'charged', counter: 'failed', counted: 'written', incident: null, pauses: null, waits: null, when: 'a retryable failure on the last of MAX_ATTEMPTS' },
    'not-asked': { from: ['GENERATING'], to: 'PENDING', attempt: 'not charged', counter: 'deferred', counted: 'written', incident: null, pauses: null, waits: null, when: 'the request was never asked (the run ended first)' },
    outage: {
      from: ['GENERATING'],
      to: 'PENDING',
      attempt: 'not charged',
      counter: 'deferred',
      counted: 'written',
      incident: 'GEMINI_UNAVAILABLE',
      pauses: 'generation',
      waits: null,
      when: 'Gemini unreachable over several runs (a lasting outage)',
    },
    systemic: {
      from: ['GENERATING'],
      to: 'PENDING',
      attempt: 'not charged',
      counter: 'deferred',
      counted: 'written',
      incident: 'named by the verdict',
      pauses: 'generation',
      waits: null,
      when: 'not the row\'s fault: a bad key, a missing model, a daily quota',
    },
    'generation-permanent': {
      from: ['GENERATING'],
      to: 'FAILED',
      attempt: 'charged',
      counter: 'failed',
      counted: 'written',
      incident: null,
      pauses: null,
      waits: null,
      when: 'Gemini blocked the content, refused the request (4xx) or ran out of tokens',
    },
    'no-address': { from: ['PENDING'], to: 'FAILED', attempt: 'none', counter: 'failed', counted: 'written', incident: null, pauses: null, waits: null, when: 'no usable address: no Gemini call is spent' },
    'stale-generating': { from: ['GENERATING'], to: 'PENDING', attempt: 'charged', counter: null, counted: 'written', incident: null, pauses: null, waits: null, when: 'a generation claim outlived its limit (a run died)' },
  } satisfies Partial<Record<OutcomeClass, Outcome>>;
}

/** What a send ends in. */
function mailOutcomes() {
  return {
    sent: { from: ['SENDING'], to: 'SENT', attempt: 'none', counter: 'sent', counted: 'at once', incident: null, pauses: null, waits: null, when: 'MailApp took the mail' },
    'mail-permanent': { from: ['READY', 'APPROVED', 'SENDING'], to: 'FAILED', attempt: 'none', counter: 'failed', counted: 'written', incident: null, pauses: null, waits: null, when: 'the mail can never go (an invalid address, a refused body)' },
    'mail-unknown': { from: ['SENDING'], to: 'NEEDS_REVIEW', attempt: 'none', counter: 'needsReview', counted: 'written', incident: null, pauses: null, waits: null, when: 'MailApp failed in a way that may have sent it' },
    'mail-quota': { from: ['SENDING'], to: CLAIMED_FROM, attempt: 'none', counter: 'deferred', counted: 'at once', incident: 'MAIL_QUOTA_EXHAUSTED', pauses: null, waits: null, when: 'the daily mail quota refused it' },
    'not-mailed': {
      from: ['SENDING'],
      to: CLAIMED_FROM,
      attempt: 'none',
      counter: 'deferred',
      counted: 'at once',
      incident: null,
      pauses: null,
      waits: null,
      when: "claimed but not mailed: the run's budget or the quota ended first, or the reply policy or Config says no",
    },
    'outside-send-window': {
      from: ['SENDING'],
      to: CLAIMED_FROM,
      attempt: 'none',
      counter: 'deferred',
      counted: 'at once',
      incident: null,
      pauses: null,
      waits: 'send window',
      when: "claimed inside the form's send window, which closed before its mail",
    },
  } satisfies Partial<Record<OutcomeClass, Outcome>>;
}

/** What a hold, the Sent check or the duplicate check ends in. */
function checkOutcomes() {
  return {
    'held-for-person': {
      from: ['READY'],
      to: 'AWAITING_APPROVAL',
      attempt: 'none',
      counter: null,
      counted: 'written',
      incident: null,
      pauses: null,
      waits: null,
      when: 'a READY reply breaks the reply policy, approval was switched on, or its form\'s template changed since it was written',
    },
    parked: {
      from: ['PENDING', 'READY', 'APPROVED'],
      to: 'NEEDS_REVIEW',
      attempt: 'none',
      counter: 'needsReview',
      counted: 'written',
      incident: null,
      pauses: null,
      waits: null,
      when: 'must not be mailed by itself: suppressed address (PENDING: before any Gemini call), sent_at filled, no reply, a standing send claim',
    },
    'stale-sending': { from: ['SENDING'], to: 'NEEDS_REVIEW', attempt: 'none', counter: 'needsReview', counted: 'at once', incident: null, pauses: null, waits: null, when: 'a send claim outlived its limit, or the Sent check cannot settle it: the mail may have gone' },
    'claim-never-mailed': {
      from: ['SENDING'],
      to: CLAIMED_FROM,
      attempt: 'none',
      counter: null,
      counted: 'written',
      incident: null,
      pauses: null,
      waits: null,
      when: 'a stale send claim the Log proves was never mailed (no "about to send" line)',
    },
    'found-in-sent': {
      from: ['NEEDS_REVIEW'],
      to: 'SENT',
      attempt: 'none',
      counter: null,
      counted: 'written',
      incident: null,
      pauses: null,
      waits: null,
      when: 'the Sent check found one copy of a parked row\'s mail (no mail of this run)',
    },
    'resent-after-sent-check': {
      from: ['NEEDS_REVIEW'],
      to: CLAIMED_FROM,
      attempt: 'none',
      counter: null,
      counted: 'written',
      incident: null,
      pauses: null,
      waits: null,
      when: 'no copy in Sent after two looks, and RECONCILE_RESEND: sent again, once',
    },
    duplicate: { from: COLLAPSIBLE_STATUSES, to: 'DUPLICATE', attempt: 'none', counter: 'duplicates', counted: 'at once', incident: null, pauses: null, waits: null, when: 'the same submission is already in another row or the Archive' },
  } satisfies Partial<Record<OutcomeClass, Outcome>>;
}

/**
 * The row's `attempts` after an outcome, from the count its GENERATING claim wrote (bullmq's attemptsStarted: the
 * claim counts the attempt as started, so a run that dies mid-call still uses it up, and the stale sweep keeps it).
 * The sheet has one `attempts` column: attempts charged once the outcome is known. An outcome that does not
 * charge settles it at the count before the claim, never below zero.
 */
export function attemptsAfter(startedCount: number, outcome: OutcomeClass): number {
  return outcomeRule(outcome).attempt === 'not charged' ? Math.max(0, startedCount - 1) : startedCount;
}

/** The count a GENERATING claim writes: one attempt more started. */
export function attemptsOnClaim(chargedCount: number): number {
  return chargedCount + 1;
}

/** Where a row goes for `outcome`, given the state its send claim came from (for CLAIMED_FROM). */
export function outcomeTarget(outcome: OutcomeClass, claimedFrom?: Status): Status {
  const to = outcomeRule(outcome).to;
  if (to !== CLAIMED_FROM) return to;
  if (claimedFrom === undefined) throw codedError('CODE_BUG', `outcome ${outcome} needs the state the claim came from`);
  return claimedFrom;
}
