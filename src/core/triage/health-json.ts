// The JSON doGet answers (token protected) for an uptime checker: the same figures the triage mails print.
import type { IncidentCode } from '../domain/failures/codes';
import { overdueReason, type RunGap } from '../domain/queue/run-gap';
import type { Status } from '../domain/queue/statuses';
import type { QueueHealth } from './health';
import type { MailFigures } from './mail-figures';
import { oldestPendingMinutes } from './health';
import type { Incident } from './incidents';
import { isNotifiable } from './incidents';
import { missedDeliveriesNote } from '../domain/typeform/missed-deliveries';

export interface HealthReport {
  /**
   * False when the queue could not be read, an incident staff are told about is open, any row needs a person
   * (FAILED, NEEDS_REVIEW, AWAITING_APPROVAL past APPROVAL_WAIT_HOURS, an unknown status: nothing moves such a row),
   * or processQueue runs are overdue (runsOverdue).
   */
  ok: boolean;
  /** Whether the figures are from now or, with Sheets down, from the last read (`countedAt`). */
  readable: boolean;
  counts: Record<Status, number>;
  waiting: number;
  oldestPendingMinutes: number | null;
  needsPerson: number;
  openIncidents: { code: IncidentCode; since: string; count: number }[];
  /**
   * processQueue has not run for over an hour while deliveries wait (src/core/domain/queue/run-gap.ts): Apps Script runs none of
   * its triggers, most often because the daily trigger runtime is used up. Null while runs happen.
   */
  runsOverdue: { lastRunAt: string; minutes: number; reason: string } | null;
  countedAt: string | null;
  checkedAt: string;
  /** Present only when TYPEFORM_TOKEN is not set: missed deliveries cannot be recovered, and how to fix that. */
  missedDeliveries?: string;
  /**
   * Bounces and the suppression list (mail-figures.ts): bounces in the last 24 hours (null: RECONCILE_BOUNCES off),
   * addresses on the Suppressed sheet (null: not read), rows stopped because their address is suppressed. Informative:
   * a bounce does not make `ok` false (a suppressed row does, as any row that needs a person).
   */
  bounces: { last24h: number | null; suppressedAddresses: number | null; rowsSuppressed: number };
}

/** What the report says besides the rows and incidents: runs overdue, TYPEFORM_TOKEN set (default yes), bounces and Suppressed. */
export interface HealthReportContext {
  gap?: RunGap | null;
  typeformTokenSet?: boolean;
  /** Absent: both figures unknown (null). */
  mail?: MailFigures;
}

export function healthReport(health: QueueHealth, incidents: readonly Incident[], now: number, context: HealthReportContext = {}): HealthReport {
  const gap = context.gap ?? null;
  const typeformTokenSet = context.typeformTokenSet ?? true;
  const mail = context.mail ?? { bouncesLast24h: null, suppressedAddresses: null };
  const missed = missedDeliveriesNote(typeformTokenSet);
  // Rows needing a person are judged from the rows read now, not from ROWS_NEED_A_PERSON, which clears only at the
  // next run: with none left it is not listed either, so the answer never says ok beside an open incident it lists.
  const stale = (incident: Incident) => incident.code === 'ROWS_NEED_A_PERSON' && health.readable && health.needsPersonCount === 0;
  const open = incidents.filter((incident) => incident.state === 'open' && isNotifiable(incident) && !stale(incident));
  return {
    ok: health.readable && open.length === 0 && health.needsPersonCount === 0 && gap === null,
    readable: health.readable,
    counts: { ...health.counts },
    waiting: health.waiting,
    oldestPendingMinutes: oldestPendingMinutes(health, now),
    needsPerson: health.needsPersonCount,
    openIncidents: open.map((incident) => ({ code: incident.code, since: new Date(incident.firstSeen).toISOString(), count: incident.count })),
    runsOverdue: gap === null ? null : { lastRunAt: iso(gap.lastRunAt), minutes: gap.minutes, reason: overdueReason(gap, iso) },
    countedAt: health.countedAt === null ? null : new Date(health.countedAt).toISOString(),
    checkedAt: new Date(now).toISOString(),
    ...(missed === null ? {} : { missedDeliveries: missed }),
    bounces: { last24h: mail.bouncesLast24h, suppressedAddresses: mail.suppressedAddresses, rowsSuppressed: health.rowsSuppressed },
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();
