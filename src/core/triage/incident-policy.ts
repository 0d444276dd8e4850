// What a catalog record says about an incident: who acts, when staff are first mailed, what follows, and the thresholds those rules use.

/** Who has to act: Google, time (a quota), whoever owns the settings, a person on a row, or the developer. */
export type IncidentClass = 'platform' | 'quota' | 'configuration' | 'needs-person' | 'code-bug';

export const CLASS_LABEL: Readonly<Record<IncidentClass, string>> = {
  platform: 'Google platform outage',
  quota: 'quota',
  configuration: 'configuration',
  'needs-person': 'needs a person',
  'code-bug': 'code bug',
};

/**
 * A per-minute rate limit is normal and retried by itself: staff hear of it only once it persists,
 * i.e. seen in at least 3 runs spanning at least 15 minutes. A Gemini outage likewise (OUTAGE_PERSIST_*); every other code is mailed at once.
 */
export const RATE_LIMIT_PERSIST_RUNS = 3;
export const RATE_LIMIT_PERSIST_MINUTES = 15;

/** A Gemini outage is mailed once it outlasts a passing blip: seen in at least 3 runs spanning at least 10 minutes. */
export const OUTAGE_PERSIST_RUNS = 3;
export const OUTAGE_PERSIST_MINUTES = 10;

/** A cleared incident must stay clear this long before the recovery mail: a flapping condition stays one incident. */
export const RECOVERY_QUIET_MINUTES = 5;

/** When staff get the first mail: at once, or only once the condition has persisted over several runs. */
export type MailRule = { kind: 'at-once' } | { kind: 'once-persistent'; runs: number; minutes: number };

/**
 * What follows the first mail. 'reminders-and-recovery': reminders while it lasts and one "Resolved" mail when it
 * clears. 'recovery-only': no reminder (TRIAGE_REMINDER_MINUTES does not apply), one "Resolved" mail when it clears:
 * for rows needing a person, where rows joining the open incident are told by Queue health and the daily summary, so
 * a busy week is one mail, not one an hour. 'none': the first mail only; no reminder and no recovery mail (the incident
 * ends silently and the daily summary lists it), for a condition outsiders can cause again every hour, which would
 * otherwise mail staff every hour.
 */
export type FollowUps = 'reminders-and-recovery' | 'recovery-only' | 'none';

export const AT_ONCE: MailRule = { kind: 'at-once' };

export interface IncidentRecord {
  class: IncidentClass;
  /** Short enough for a subject line. */
  title: string;
  /** What the condition is, in a sentence a person on duty understands without the code. */
  whatHappened: string;
  /** One concrete sentence: what staff do now, and what happens to the rows meanwhile. */
  nextStep: string;
  /** Which check opens it and what clears it (docs/triage.md prints it). */
  raisedBy: string;
  mails: MailRule;
  followUps: FollowUps;
  /**
   * Rows wait for the condition to end: when it clears, what later runs catch up (replies sent) is added to it
   * and told in its recovery mail.
   */
  holdsRowsBack: boolean;
  /** The daily summary's line for it ends with its detail: what it is about (e.g. what was recovered), not only that it happened. */
  summaryShowsDetail?: true;
  /** Its rows wait in AWAITING_APPROVAL for staff: respondents count as affected while any row does (assessApprovalImpact). */
  rowsAwaitApproval?: true;
  /**
   * It comes with requests in numbers that can make Google refuse executions, leaving no trace here: its mail never
   * says no user impact, and says what to check (assessRefusedCallsImpact).
   */
  mayHideRefusedCalls?: true;
}
