// The run's mail to staff: triage mails as planned by the incident book, then the daily summary.
import type { RunOutcome, TickPorts } from './tick-ports';
import { messageOf } from '../domain/failures/errors';
import { finishedSubmissionsRefused } from '../domain/typeform/rejection-kinds';
import type { RejectedTotals } from '../domain/typeform/rejection-tally';
import type { Clock } from '../domain/ports';
import { bouncesSince, readBounceCheckState } from '../processing/bounces';
import { mailFigures, type MailFigures } from '../triage/mail-figures';
import { usageSections, type StoredUsage } from '../domain/gemini/usage-tally';
import type { Settings } from '../domain/config/settings';
import type { QueueHealth } from '../triage/health';
import { IncidentBook } from '../triage/incidents';
import { planDailySummary } from '../triage/daily-summary';
import { knownSecretsOf, planTriageMails } from '../triage/triage-mail';
import { redact } from '../domain/failures/redact';
import { DAY_MS } from '../domain/time';


/** What the daily summary reports besides the queue: the day's rejected deliveries and the Gemini spending. */
interface SummaryFigures {
  rejected: RejectedTotals;
  usage: StoredUsage;
  /** Approvals as the staff console counted them (REVIEWS_PROPERTY). */
  reviews: string[];
  /** Bounces and the Suppressed sheet: the sheet is read only when the summary goes. */
  mail: () => MailFigures;
}

/** The bounce count as this run left it (RECONCILE_BOUNCES off: null) and the Suppressed sheet, read when asked. */
export function mailFiguresOf(outcome: RunOutcome, snapshot: Record<string, string>, settings: Settings, clock: Clock): () => MailFigures {
  const state = outcome.summary?.bounceCheck ?? readBounceCheckState(snapshot);
  return () => mailFigures(settings.reconcileBounces ? bouncesSince(state, clock.now() - DAY_MS) : null, outcome.readSuppressed ?? null);
}

export function sendTriage(book: IncidentBook, ports: TickPorts, health: QueueHealth, settings: Settings, figures: SummaryFigures): void {
  const { rejected, usage, reviews, mail } = figures;
  let quota = 0;
  try {
    quota = ports.mailer.remainingDailyQuota();
  } catch (error) {
    ports.warn(`mail quota unknown, triage mail waits: ${messageOf(error)}`);
    return;
  }
  const now = ports.clock.now();
  const plan = planTriageMails(book.all(), health, now, settings, { remainingMailQuota: quota, finishedSubmissionsRefused: finishedSubmissionsRefused(rejected.kinds) });
  for (const planned of plan.mails) {
    try {
      ports.mailer.send(planned.mail);
      book.markMailed(planned.code, planned.kind);
      // Committed after each mail, so a later failure in this run cannot resend it. Staff mail is at-least-once:
      // only a run killed between the send and this commit (milliseconds) would send it again next run.
      book.commit();
    } catch (error) {
      ports.warn(`triage mail for ${planned.code} not sent, it stays planned: ${redact(messageOf(error), knownSecretsOf(settings))}`);
    }
  }
  const dateKey = ports.dateKey(now);
  const summary = planDailySummary({
    dateKey,
    lastSentDateKey: book.lastDailySummaryDate(),
    health,
    incidents: book.all(),
    history: book.recentHistory(),
    now,
    settings,
    remainingMailQuota: quota - plan.mails.length * settings.staffEmails.length,
    rejected,
    usage: usageSections(usage, dateKey),
    reviews,
    mail,
  });
  if (!summary) return;
  try {
    ports.mailer.send(summary);
    book.markDailySummarySent(dateKey);
  } catch (error) {
    ports.warn(`daily summary not sent: ${messageOf(error)}`);
  }
}
