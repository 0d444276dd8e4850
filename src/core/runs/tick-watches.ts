// The incidents a run raises or clears from the whole picture after processing: missed runs, spill, rejections, Typeform, rows needing a person.
import type { RunOutcome, TickPorts } from './tick-ports';
import { SPILL_LIMIT_CHARS, SPILL_WARN_CHARS } from '../intake/intake';
import { rejectedIncidentDetail } from '../domain/typeform/rejection-kinds';
import { REJECTED_TOTALS_PROPERTY, totalsOn } from '../domain/typeform/rejection-tally';
import type { ProcessingSummary } from '../processing/process-run';
import { inRejectedDetail, readCheckRecord, recoveredDetail } from '../reconcile/check-record';
import { readWatchRecord, watchDetail } from '../reconcile/webhook-watch';
import type { QueueHealth } from '../triage/health';
import { holdsRowsBack } from '../triage/incident-catalog';
import { IncidentBook } from '../triage/incidents';
import { missedRunsDetail, runGap } from '../domain/queue/run-gap';
import { DAY_MS } from '../domain/time';


/**
 * The first full run after runs stopped while work waited tells staff once (RUNS_MISSED, src/core/domain/queue/run-gap.ts). It has
 * no follow-ups, so it ends at a later run, but only once mailed: a mail held back (no quota to spare) still goes.
 */
export function watchRunGap(book: IncidentBook, snapshot: Record<string, string>, now: number): void {
  const gap = runGap(snapshot, now);
  if (gap !== null) book.raise('RUNS_MISSED', missedRunsDetail(gap, now, (ms) => new Date(ms).toISOString()));
  else if ((book.get('RUNS_MISSED')?.mailsSent ?? 0) > 0) book.clear('RUNS_MISSED');
}

/**
 * What this run did for rows an incident had held back, added up in each incident awaiting its recovery mail.
 * Replies sent only: a delivery drained from the spill and then answered would otherwise count twice in the subject.
 */
export function addCaughtUp(book: IncidentBook, summary: ProcessingSummary): void {
  const caughtUp = { 'replies sent': summary.sent };
  for (const incident of book.all()) {
    if (incident.state === 'cleared' && holdsRowsBack(incident.code)) book.clear(incident.code, caughtUp);
  }
}

/**
 * Conditions read from the whole picture after the run: the spill filling up, a burst of rejected deliveries,
 * and rows needing a person. ROWS_NEED_A_PERSON is raised here only, from the Queue as measured.
 */
export function watchSideConditions(book: IncidentBook, ports: TickPorts, outcome: RunOutcome, snapshot: Record<string, string>, now: number): void {
  const health = outcome.health;
  const spillChars = ports.spill.size();
  if (spillChars > SPILL_WARN_CHARS) {
    book.raise('SPILL_BACKLOG', `${health.spilled} deliveries wait in Script Properties (${spillChars} characters of ${SPILL_LIMIT_CHARS.toLocaleString('en-US')})`);
  } else {
    book.clear('SPILL_BACKLOG');
  }
  const today = ports.dateKey(now);
  const rejected = outcome.rejected ?? totalsOn(snapshot[REJECTED_TOTALS_PROPERTY], today);
  // One incident per calendar day, like its count: yesterday's ends (silently, it has no follow-ups) before today's opens.
  const open = book.get('REJECTED_DELIVERIES');
  if (open && ports.dateKey(open.firstSeen) !== today) book.clear('REJECTED_DELIVERIES');
  // When the day's rejections make an incident is decided in one place (rejection-kinds.ts), which also words it.
  const detail = rejectedIncidentDetail(rejected);
  if (detail !== null) {
    book.raise('REJECTED_DELIVERIES', detail);
  } else {
    book.clear('REJECTED_DELIVERIES');
  }
  watchTypeformCheck(book, snapshot, now);
  if (!health.readable) return;
  // Which rows count is decided once, by computeHealth (src/core/triage/needs-person.ts); doGet reads the same figure.
  if (health.needsPersonCount > 0) {
    book.raise('ROWS_NEED_A_PERSON', needsPersonSummary(health), health.needsPerson.map((row) => row.rowNumber));
  } else {
    book.clear('ROWS_NEED_A_PERSON');
  }
}

/** "3 rows need a person: FAILED 1, NEEDS_REVIEW 2" (the listed rows by status, and the full count). */
function needsPersonSummary(health: QueueHealth): string {
  const byStatus = new Map<string, number>();
  for (const row of health.needsPerson) byStatus.set(row.status || 'no status', (byStatus.get(row.status || 'no status') ?? 0) + 1);
  const listed = Array.from(byStatus, ([status, count]) => `${status} ${count}`).join(', ');
  const among = health.needsPersonCount > health.needsPerson.length ? ` among the first ${health.needsPerson.length}` : '';
  return `${health.needsPersonCount} row(s) need a person: ${listed}${among}`;
}

/** What the last Typeform check found (docs/reconciliation.md): a disabled webhook, submissions it recovered, and those only in Rejected. */
function watchTypeformCheck(book: IncidentBook, snapshot: Record<string, string>, now: number): void {
  const check = readCheckRecord(snapshot);
  const watch = readWatchRecord(snapshot);
  // The newer look decides: the 15-minute watch, or the daily check (or the menu's) made after it.
  if (watch !== null && (check === null || watch.at >= check.at)) {
    if (watch.unhealthy.length > 0) book.raise('WEBHOOK_DISABLED', watchDetail(watch));
    else book.clear('WEBHOOK_DISABLED');
  } else if (check !== null && check.disabled.length > 0) {
    book.raise('WEBHOOK_DISABLED', `the Typeform webhook of form ${check.disabled.join(', ')} is disabled or missing (Typeform check ${new Date(check.at).toISOString()})`);
  } else {
    book.clear('WEBHOOK_DISABLED');
  }
  if (check !== null && check.recovered > 0 && now - check.at < DAY_MS) {
    book.raise('SUBMISSIONS_RECOVERED', recoveredDetail(check));
  } else {
    book.clear('SUBMISSIONS_RECOVERED');
  }
  // What the check left for staff to accept in Rejected: told, since nothing else would tell it.
  if (check !== null && check.inRejected > 0 && now - check.at < DAY_MS) {
    book.raise('SUBMISSIONS_IN_REJECTED', inRejectedDetail(check));
  } else {
    book.clear('SUBMISSIONS_IN_REJECTED');
  }
}
