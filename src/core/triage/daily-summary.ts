// The optional daily summary (DAILY_SUMMARY on): counts per status and the day's incidents, once per date key.
import { kindsLine, type KindCounts } from '../domain/typeform/rejection-kinds';
import type { RejectedTotals } from '../domain/typeform/rejection-tally';
import type { OutgoingMail } from '../domain/ports';
import type { Settings } from '../domain/config/settings';
import { STATUSES } from '../domain/queue/statuses';
import type { QueueHealth } from './health';
import { mailFiguresLine, type MailFigures } from './mail-figures';
import { INCIDENTS } from './incident-catalog';
import type { Incident, IncidentHistoryEntry } from './incidents';
import type { MailPart } from './mail-text';
import { needsPersonRowIds, needsPersonRowParts } from './needs-person-mail';
import { operatorFooterParts, withoutRepoPointers } from './operator-footer';
import { redactSubject, renderMail } from './mail-text';
import { missedDeliveriesNote } from '../domain/typeform/missed-deliveries';
import { SUBJECT_PREFIX, staffMailFits, staffMailRedaction } from './triage-mail';
import { formatDuration, formatTime, plural } from '../domain/text';
import { DAY_MS } from '../domain/time';
import type { UsageSection } from '../domain/gemini/usage-tally';

export interface DailySummaryInput {
  /** The caller's calendar day in the script's time zone, e.g. "2025-06-01": the summary goes once per key. */
  dateKey: string;
  /** IncidentBook.lastDailySummaryDate(). */
  lastSentDateKey: string;
  health: QueueHealth;
  incidents: readonly Incident[];
  /** IncidentBook.recentHistory(): incidents resolved lately. */
  history: readonly IncidentHistoryEntry[];
  now: number;
  settings: Settings;
  remainingMailQuota: number;
  /** The day's rejected deliveries as last folded (REJECTED_DELIVERIES sends no reminder: this is where staff see them go on). */
  rejected?: RejectedTotals;
  /** Replies, tokens and estimated cost per form and model (domain/gemini/usage-tally.ts usageSections). */
  usage?: readonly UsageSection[];
  /** Approvals by staff: as written, edited, skipped, median wait (staff/review-stats.ts reviewLines). */
  reviews?: readonly string[];
  /** Bounces and the Suppressed sheet (mail-figures.ts), asked only when the summary goes (it reads a sheet). */
  mail?: () => MailFigures;
}

/** " (2 without their body; unknown form 1, partial response 3)": how many kept no body, and the kinds when known. */
function dayDetail(dropped: number, kinds: KindCounts): string {
  const named = kindsLine(kinds);
  return ` (${dropped} without their body${named === '' ? '' : `; ${named}`})`;
}

/** Today's rejections so far and the last earlier day's, each with how many kept no body and their kinds; null when there were none. */
function rejectedLine(totals: RejectedTotals | undefined): string | null {
  if (!totals) return null;
  const days: string[] = [];
  if (totals.count > 0) days.push(`${totals.count} today so far${dayDetail(totals.dropped, totals.kinds)}`);
  if (totals.previous && totals.previous.count > 0) days.push(`${totals.previous.count} on ${totals.previous.day}${dayDetail(totals.previous.dropped, totals.previous.kinds)}`);
  return days.length > 0 ? `${days.join('; ')}; see the Rejected sheet` : null;
}

/** Replies, tokens and estimated cost per period, one line per form and model. */
function usageParts(usage: readonly UsageSection[]): MailPart[] {
  const parts: MailPart[] = [{ kind: 'heading', text: 'Replies, tokens and estimated cost (Gemini)' }];
  if (usage.length === 0) parts.push({ kind: 'line', text: 'No Gemini call recorded this month.' });
  for (const section of usage) {
    parts.push({ kind: 'field', label: section.title, text: section.lines.length === 1 ? section.lines[0] : `${section.lines.length} forms × models` });
    if (section.lines.length > 1) for (const line of section.lines) parts.push({ kind: 'line', text: line });
  }
  return parts;
}

/** The summary due now, or null (off, already sent for this date, nobody to send to, or the quota is down to the replies' reserve: it waits). */
export function planDailySummary(input: DailySummaryInput): OutgoingMail | null {
  const { settings, health, now } = input;
  if (!settings.dailySummary || input.dateKey === '' || input.dateKey === input.lastSentDateKey) return null;
  if (!staffMailFits(input.remainingMailQuota, settings.staffEmails.length)) return null;
  const dayStart = now - DAY_MS;
  const current = input.incidents.filter((incident) => incident.lastSeen >= dayStart || incident.state === 'open');
  const resolved = input.history.filter((entry) => entry.clearedAt >= dayStart);
  const redaction = staffMailRedaction(settings, health);
  const parts: MailPart[] = [
    { kind: 'field', label: 'Queue', text: STATUSES.map((status) => `${status} ${health.counts[status]}`).join(', ') },
    { kind: 'field', label: 'Waiting for a reply', text: String(health.waiting) },
    { kind: 'field', label: 'Rows that need a person', text: String(health.needsPersonCount) },
    ...needsPersonRowParts(health, now, redaction),
  ];
  if (input.mail) parts.push({ kind: 'field', label: 'Bounces and suppression', text: mailFiguresLine(input.mail(), health.rowsSuppressed) });
  const rejected = rejectedLine(input.rejected);
  if (rejected) parts.push({ kind: 'field', label: 'Rejected deliveries', text: rejected });
  const missed = missedDeliveriesNote(settings.typeformToken !== '');
  if (missed !== null) parts.push({ kind: 'field', label: 'Missed deliveries', text: missed });
  if (!health.readable) parts.push({ kind: 'line', text: health.countedAt === null ? 'The queue could not be read.' : `The queue could not be read; figures as last read ${formatTime(health.countedAt)}.` });
  if (input.usage) parts.push(...usageParts(input.usage));
  if (input.reviews && input.reviews.length > 0) {
    parts.push({ kind: 'heading', text: 'Replies that waited for approval' }, ...input.reviews.map((text): MailPart => ({ kind: 'line', text })));
  }
  parts.push({ kind: 'heading', text: 'Incidents of the last 24 hours' });
  if (current.length === 0 && resolved.length === 0) parts.push({ kind: 'line', text: 'None.' });
  for (const incident of current) {
    const state = incident.state === 'open' ? `open since ${formatTime(incident.firstSeen)}` : `cleared ${formatTime(incident.clearedAt ?? now)}`;
    const about = INCIDENTS[incident.code].summaryShowsDetail ? `: ${incident.detail}` : '';
    parts.push({ kind: 'line', text: `${INCIDENTS[incident.code].title}: ${state}, seen ${plural(incident.count, 'time')}${about}` });
  }
  for (const entry of resolved) {
    parts.push({
      kind: 'line',
      text: `${INCIDENTS[entry.code].title}: resolved ${formatTime(entry.clearedAt)} after ${formatDuration(entry.clearedAt - entry.firstSeen)}, seen ${plural(entry.count, 'time')}`,
    });
  }
  // The incidents' codes and the rows' event_ids are for whoever set formqueue up: one footer, last.
  const staff = withoutRepoPointers(parts);
  const codes = [...new Set([...current, ...resolved].map((entry) => entry.code))].map((code) => `${code} (${INCIDENTS[code].title})`);
  const footer = operatorFooterParts({ codes, rowIds: needsPersonRowIds(health, redaction), pointers: staff.pointers });
  const rendered = renderMail([...staff.parts, ...footer], redaction);
  const incidentsCount = current.length + resolved.length;
  return {
    to: settings.staffEmails.join(','),
    subject: redactSubject(
      `${SUBJECT_PREFIX} Daily summary ${input.dateKey} — ${health.waiting} waiting, ${health.needsPersonCount} need a person, ${plural(incidentsCount, 'incident')}`,
      redaction,
    ),
    body: rendered.body,
    htmlBody: rendered.htmlBody,
    name: 'formqueue',
  };
}
