// The Queue health dialog's HTML: counts by status, the oldest PENDING row, rows needing a person, open incidents.
import { staffWords } from './operator-footer';
import { overdueReason, type RunGap } from '../domain/queue/run-gap';
import { STATUSES, STATUS_COLOURS } from '../domain/queue/statuses';
import type { QueueHealth } from './health';
import { mailFiguresLine, type MailFigures } from './mail-figures';
import { INCIDENTS } from './incident-catalog';
import type { Incident } from './incident-record';
import { escapeHtml, formatDuration, formatTime, plural } from '../domain/text';
import type { UsageSection } from '../domain/gemini/usage-tally';
import { missedDeliveriesNote } from '../domain/typeform/missed-deliveries';

/** `state`: whether formqueue is paused, and whether TYPEFORM_TOKEN is set (missed deliveries recoverable; true when only `paused` is given). */
/** What stands above the counts: missed deliveries that cannot be recovered, a pause, runs overdue. */
function banners(state: boolean | { paused: boolean; typeformTokenSet: boolean }, gap: RunGap | null): string[] {
  const paused = typeof state === 'boolean' ? state : state.paused;
  const parts: string[] = [];
  const missed = staffNote(missedDeliveriesNote(typeof state === 'boolean' || state.typeformTokenSet));
  if (missed !== null) parts.push(`<p style="background:#fff2cc;padding:6px">${escapeHtml(missed)}</p>`);
  if (paused) parts.push('<p style="background:#f4cccc;padding:6px"><b>Paused</b>: nothing is generated or sent until you choose formqueue → Resume.</p>');
  if (gap !== null) parts.push(`<p style="background:#f4cccc;padding:6px"><b>Queue runs are overdue</b>: ${escapeHtml(overdueReason(gap, formatTime))}.</p>`);
  return parts;
}

export function healthDialogHtml(
  health: QueueHealth,
  incidents: readonly Incident[],
  now: number,
  state: boolean | { paused: boolean; typeformTokenSet: boolean },
  extras: { gap?: RunGap | null; usage?: readonly UsageSection[]; mail?: MailFigures } = {},
): string {
  const usage = extras.usage ?? [];
  const parts: string[] = ['<div style="font-family:Arial,sans-serif;font-size:13px">', ...banners(state, extras.gap ?? null)];
  parts.push('<table style="border-collapse:collapse">');
  for (const status of STATUSES) {
    const count = health.counts[status];
    if (count === 0) continue;
    parts.push(`<tr><td style="background:${STATUS_COLOURS[status]};padding:2px 8px">${status}</td><td style="padding:2px 8px;text-align:right">${count}</td></tr>`);
  }
  if (health.unknownStatus > 0) parts.push(`<tr><td style="padding:2px 8px">not a status</td><td style="padding:2px 8px;text-align:right">${health.unknownStatus}</td></tr>`);
  parts.push('</table>');
  const total = STATUSES.reduce((sum, status) => sum + health.counts[status], 0) + health.unknownStatus;
  if (total === 0) parts.push('<p>The Queue is empty.</p>');
  if (health.spilled > 0) parts.push(`<p>${health.spilled} deliveries wait outside the sheet (kept while Sheets was unavailable).</p>`);
  parts.push(
    health.oldestPendingAt === null
      ? '<p>No PENDING rows.</p>'
      : `<p>Oldest PENDING: received ${escapeHtml(formatTime(health.oldestPendingAt))}, ${escapeHtml(formatDuration(now - health.oldestPendingAt))} ago.</p>`,
  );
  if (health.needsPersonCount > 0) {
    const rows = health.needsPerson.map((row) => {
      const label = `row ${row.rowNumber} (${escapeHtml(row.status || 'empty')})`;
      return row.link ? `<a href="${escapeHtml(row.link)}" target="_top">${label}</a>` : label;
    });
    const more = health.needsPersonCount > rows.length ? `, and ${health.needsPersonCount - rows.length} more` : '';
    const verb = health.needsPersonCount === 1 ? 'needs' : 'need';
    parts.push(`<p><b>${plural(health.needsPersonCount, 'row')} ${verb} a person:</b> ${rows.join(', ')}${more}.</p>`);
  }
  if (extras.mail) parts.push(`<p><b>Bounces and suppression:</b> ${escapeHtml(mailFiguresLine(extras.mail, health.rowsSuppressed))}.</p>`);
  const open = incidents.filter((incident) => incident.state === 'open');
  if (open.length === 0) parts.push('<p>No open incidents.</p>');
  else {
    parts.push('<p><b>Open incidents</b></p><ul>');
    for (const incident of open) {
      parts.push(
        `<li><b>${escapeHtml(INCIDENTS[incident.code].title)}</b> since ${escapeHtml(formatTime(incident.firstSeen))} ` +
          `(${incident.count}×): ${escapeHtml(incident.detail)}<br><i>Next step:</i> ${escapeHtml(staffWords(INCIDENTS[incident.code].nextStep))}</li>`,
      );
    }
    parts.push('</ul>');
  }
  if (usage.length > 0) {
    parts.push('<p><b>Replies, tokens and estimated cost</b></p>');
    for (const section of usage) parts.push(`<p><i>${escapeHtml(section.title)}</i><br>${section.lines.map(escapeHtml).join('<br>')}</p>`);
  }
  parts.push(`<p style="color:#666">${escapeHtml(health.userImpact.statement)}</p></div>`);
  return parts.join('\n');
}

/** The note without its repository pointer: the dialog has no operator footer, and staff cannot open the repository. */
function staffNote(note: string | null): string | null {
  return note === null ? null : staffWords(note);
}
