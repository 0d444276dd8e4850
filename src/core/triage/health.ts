// The queue's health for triage, doGet and the daily summary: counts, ages, rows needing a person, and user impact; kept between runs by health-snapshot.ts.
import type { QueueRow } from '../domain/queue/queue-row';
import { DEFAULT_APPROVAL_WAIT_HOURS } from '../domain/config/settings';
import { STATUSES, isStatus } from '../domain/queue/statuses';
import type { Status } from '../domain/queue/statuses';
import { approvalWaitingSince, needsPersonReason } from './needs-person';
import type { NeedsPersonReason } from './needs-person';
import { minutesBetween, plural } from '../domain/text';

/** Rows listed by name (with links); the count is always complete. */
export const MAX_NEEDS_PERSON_LISTED = 20;

/** States in which a respondent is still waiting for the system (not for a person) to reply. */
export const WAITING_STATUSES: readonly Status[] = ['PENDING', 'GENERATING', 'READY', 'APPROVED', 'SENDING'];

export interface NeedsPersonRow {
  rowNumber: number;
  /** As in the sheet: a mistyped status is listed verbatim, since nothing will move that row either. */
  status: string;
  /** Straight to the row in the spreadsheet; null when the caller gave no spreadsheet URL. */
  link: string | null;
  /** Why it waits for a person (src/core/triage/needs-person.ts says what to do about each). */
  reason: NeedsPersonReason;
  /** What staff filter the Log sheet by. */
  eventId: string;
  /** The reference printed in the reply ('' before one was sent). */
  mailRef: string;
  /** The `error` cell as read (not redacted or cut: whoever shows it does both, in that order). */
  error: string;
  /** For an AWAITING_APPROVAL row: since when it waits; null otherwise or when unknown. */
  waitingSince: number | null;
}

export interface UserImpact {
  /**
   * null = unknown (the queue could not be read and no figures were kept); 'possibly' = nothing here shows one, but
   * what the incident is about can hide one (refused-calls-impact.ts), so it is never called no impact.
   */
  affected: boolean | null | 'possibly';
  /** The rule applied, in words, with the figures. */
  statement: string;
}

export interface QueueHealth {
  /** False when the rows could not be read now: the figures are the last known ones (or zero). */
  readable: boolean;
  /** When these figures were taken from the sheet; null if never. */
  countedAt: number | null;
  /** When this health was made. */
  checkedAt: number;
  counts: Record<Status, number>;
  /** Rows whose status is not one of ours (mistyped). */
  unknownStatus: number;
  /** Deliveries kept in Script Properties (spill), not yet in Queue: they wait too. */
  spilled: number;
  /** PENDING+GENERATING+READY+APPROVED+SENDING, plus spilled deliveries. */
  waiting: number;
  /** receivedAt of the oldest PENDING row. */
  oldestPendingAt: number | null;
  oldestWaitingAt: number | null;
  needsPersonCount: number;
  /** NEEDS_REVIEW rows stopped because their recipient is on the Suppressed sheet (SUPPRESSED); among needsPersonCount. */
  rowsSuppressed: number;
  /** The first MAX_NEEDS_PERSON_LISTED rows needing a person, in sheet order. */
  needsPerson: NeedsPersonRow[];
  spreadsheetUrl: string;
  sheetId: number | null;
  userImpact: UserImpact;
}

/** The figures the user impact is judged from. */
export type HealthFigures = Omit<QueueHealth, 'userImpact'>;

export interface HealthExtras {
  /** Deliveries waiting in the spill (Script Properties). */
  spilled?: number;
  /** Settings' APPROVAL_WAIT_HOURS: an AWAITING_APPROVAL row needs a person once it has waited this long. */
  approvalWaitHours?: number;
}

export function emptyCounts(): Record<Status, number> {
  const counts = {} as Record<Status, number>;
  for (const status of STATUSES) counts[status] = 0;
  return counts;
}

/** `<spreadsheetUrl>#gid=<sheetId>&range=A<row>`: opens the spreadsheet on that row. */
export function rowLink(spreadsheetUrl: string, sheetId: number | null, rowNumber: number): string | null {
  if (!spreadsheetUrl) return null;
  const base = spreadsheetUrl.replace(/#.*$/, '');
  return `${base}#gid=${sheetId ?? 0}&range=A${rowNumber}`;
}

export function oldestPendingMinutes(health: QueueHealth, now: number): number | null {
  return health.oldestPendingAt === null ? null : minutesBetween(health.oldestPendingAt, now);
}

export function computeHealth(
  rows: readonly QueueRow[],
  now: number,
  spreadsheetUrl = '',
  sheetId: number | null = null,
  extras: HealthExtras = {},
): QueueHealth {
  const counts = emptyCounts();
  let unknownStatus = 0;
  let oldestPendingAt: number | null = null;
  let oldestWaitingAt: number | null = null;
  let needsPersonCount = 0;
  let rowsSuppressed = 0;
  const needsPerson: NeedsPersonRow[] = [];
  for (const row of rows) {
    const status = row.status.trim();
    if (status === '' && row.eventId === '') continue; // a blank row, not a submission
    const since = row.receivedAt ?? row.updatedAt;
    if (isStatus(status)) counts[status]++;
    else unknownStatus++;
    if (isStatus(status) && WAITING_STATUSES.includes(status) && since !== null) {
      if (oldestWaitingAt === null || since < oldestWaitingAt) oldestWaitingAt = since;
      if (status === 'PENDING' && (oldestPendingAt === null || since < oldestPendingAt)) oldestPendingAt = since;
    }
    const reason = needsPersonReason(row, status, now, extras.approvalWaitHours ?? DEFAULT_APPROVAL_WAIT_HOURS);
    if (reason === 'suppressed') rowsSuppressed++;
    if (reason !== null) {
      needsPersonCount++;
      if (needsPerson.length < MAX_NEEDS_PERSON_LISTED) {
        needsPerson.push({
          rowNumber: row.rowNumber,
          status,
          link: rowLink(spreadsheetUrl, sheetId, row.rowNumber),
          reason,
          eventId: row.eventId,
          mailRef: row.mailRef,
          error: row.error,
          waitingSince: status === 'AWAITING_APPROVAL' ? approvalWaitingSince(row) : null,
        });
      }
    }
  }
  const spilled = Math.max(0, extras.spilled ?? 0);
  const figures: HealthFigures = {
    readable: true,
    countedAt: now,
    checkedAt: now,
    counts,
    unknownStatus,
    spilled,
    waiting: WAITING_STATUSES.reduce((sum, status) => sum + counts[status], 0) + spilled,
    oldestPendingAt,
    oldestWaitingAt,
    needsPersonCount,
    rowsSuppressed,
    needsPerson,
    spreadsheetUrl,
    sheetId,
  };
  return { ...figures, userImpact: assessUserImpact(figures, now) };
}

/** Health when the rows cannot be read (Sheets down): the last known figures, said to be such. */
export function healthWhenUnreadable(now: number, lastKnown: QueueHealth | null, extras: HealthExtras = {}): QueueHealth {
  const base = lastKnown ?? computeHealth([], now);
  const spilled = Math.max(0, extras.spilled ?? 0);
  const figures: HealthFigures = {
    ...base,
    readable: false,
    countedAt: lastKnown ? lastKnown.countedAt : null,
    checkedAt: now,
    spilled,
    waiting: base.waiting - base.spilled + spilled,
  };
  return { ...figures, userImpact: assessUserImpact(figures, now) };
}

function waitingBreakdown(health: HealthFigures): string {
  const parts = WAITING_STATUSES.filter((status) => health.counts[status] > 0).map((status) => `${status} ${health.counts[status]}`);
  if (health.spilled > 0) parts.push(`spilled ${health.spilled}`);
  return parts.join(', ');
}

/**
 * Whether respondents are affected, stated with its rule. The rule staff used by hand — "a Google error with
 * no PENDING rows means no user impact" — generalised: a respondent is affected while their row waits for the
 * system (PENDING, GENERATING, READY, APPROVED, SENDING, or still in the spill).
 */
export function assessUserImpact(health: HealthFigures, now: number, googleError = false): UserImpact {
  const neverCounted = health.countedAt === null;
  if (!health.readable && neverCounted) {
    return {
      affected: health.spilled > 0 ? true : null,
      statement:
        'The queue could not be read and no earlier figures are kept, so whether respondents are affected is unknown' +
        (health.spilled > 0 ? `; at least ${plural(health.spilled, 'delivery', 'deliveries')} wait in the spill.` : '.'),
    };
  }
  const asOf = health.readable ? '' : ` (the queue could not be read; figures as last read ${minutesBetween(health.countedAt ?? now, now)} min ago)`;
  const pending = health.counts.PENDING;
  if (health.waiting === 0) {
    const rule = googleError ? 'A Google error with no PENDING rows means no user impact' : 'No row is waiting for a reply, so no respondent is affected';
    return { affected: false, statement: `${rule}: 0 PENDING, nothing else waiting${asOf}.` };
  }
  const oldest = health.oldestWaitingAt === null ? '' : `; the oldest has waited ${minutesBetween(health.oldestWaitingAt, now)} min`;
  const lead =
    googleError && pending === 0
      ? 'A Google error with no PENDING rows would mean no user impact, but other rows are waiting: '
      : googleError
        ? 'A Google error with PENDING rows delays replies: '
        : '';
  return {
    affected: true,
    statement: `${lead}${plural(health.waiting, 'respondent is', 'respondents are')} waiting for a reply (${waitingBreakdown(health)}${oldest})${asOf}; they get it once this clears.`,
  };
}

/**
 * For an incident whose rows wait for staff, not for formqueue (SUBMISSIONS_RECOVERED: the recovered rows wait in
 * AWAITING_APPROVAL): while any row is in that status its respondent is affected, whatever waits for formqueue, and
 * gets no reply until staff approve it. With no such row left, or figures never read, the usual rule.
 */
export function assessApprovalImpact(health: QueueHealth, now: number): UserImpact {
  const usual = assessUserImpact(health, now);
  const awaiting = health.counts.AWAITING_APPROVAL;
  if (awaiting === 0 || usual.affected === null) return usual;
  const asOf = health.readable ? '' : ` (the queue could not be read; figures as last read ${minutesBetween(health.countedAt ?? now, now)} min ago)`;
  const approval = `${plural(awaiting, 'row waits', 'rows wait')} in AWAITING_APPROVAL${asOf}: those respondents get no reply until staff approve ${awaiting === 1 ? 'it' : 'them'}`;
  return { affected: true, statement: usual.affected ? `${approval}; and ${usual.statement}` : `${approval}.` };
}
