// Which triage mails go out now: first mail at once, throttled reminders, one recovery mail; quota-aware, never twice.
import type { OutgoingMail } from '../domain/ports';
import type { IncidentCode } from '../domain/failures/codes';
import { secretValues, type Settings } from '../domain/config/settings';
import { STATUSES } from '../domain/queue/statuses';
import type { QueueHealth, UserImpact } from './health';
import { assessApprovalImpact, assessUserImpact, oldestPendingMinutes } from './health';
import { INCIDENTS, hasFollowUps, isGoogleError, remindsWhileOpen } from './incident-catalog';
import { CLASS_LABEL, RECOVERY_QUIET_MINUTES, type IncidentClass } from './incident-policy';
import type { Incident, MailKind } from './incidents';
import { isNotifiable } from './incidents';
import type { MailPart, RedactionContext } from './mail-text';
import { redactSubject, renderMail } from './mail-text';
import { needsPersonOperatorNotes, needsPersonRowIds, needsPersonRowParts, needsPersonStepParts } from './needs-person-mail';
import { operatorFooterParts, withoutRepoPointers } from './operator-footer';
import { assessRefusedCallsImpact, type RefusedCallsFacts } from './refused-calls-impact';
import { formatDuration, formatTime, plural } from '../domain/text';
import { MINUTE_MS } from '../domain/time';

export const SUBJECT_PREFIX = '[formqueue]';
/**
 * Recipients of the daily mail quota that triage mail and the daily summary never take: they are kept for replies.
 * A staff mail goes only if at least this many recipients are left after it. 20 is a fifth of a consumer account's
 * 100 a day (Workspace: 1,500); MailApp tells only what is left, not the day's total
 * (https://developers.google.com/apps-script/reference/mail/mail-app#getRemainingDailyQuota()), so the reserve is a
 * fixed number. A mail held by it stays due and goes once the quota allows (docs/quotas.md).
 */
export const TRIAGE_MAIL_RESERVE = 20;

/** Whether a staff mail to `recipients` addresses may take from a quota of `remaining` without touching the replies' reserve. */
export function staffMailFits(remaining: number, recipients: number): boolean {
  return recipients > 0 && Math.floor(remaining) - recipients >= TRIAGE_MAIL_RESERVE;
}
const ROWS_SHOWN = 30;

export interface PlannedTriageMail {
  code: IncidentCode;
  kind: MailKind;
  mail: OutgoingMail;
  /** Recipients it costs against the daily quota. */
  recipients: number;
}

export interface TriagePlan {
  /** Send these, in order; after each success call book.markMailed(code, kind). */
  mails: PlannedTriageMail[];
  /** Due but held back; they stay due (nothing is lost) and are planned again on a later run. */
  held: { code: IncidentCode; kind: MailKind; reason: 'mail-reserve' | 'no-staff-emails' }[];
}

export interface TriageContext {
  /** Recipients MailApp may still reach today (Mailer.remainingDailyQuota()); TRIAGE_MAIL_RESERVE of them stay for replies. */
  remainingMailQuota: number;
  /** Finished submissions refused today although they came with our token (rejection-kinds.ts); 0 when unknown. */
  finishedSubmissionsRefused?: number;
}

/** The secret values of the settings: stripped by value from every mail, whatever their shape. */
export function knownSecretsOf(settings: Settings): string[] {
  return secretValues(settings);
}

/**
 * How every staff mail is redacted: the settings' secrets go, and our own spreadsheet's link stays (it is long and
 * opaque enough to pass for a secret). With no link known it is '', which redact skips.
 */
export function staffMailRedaction(settings: Settings, health: QueueHealth): RedactionContext {
  return { knownSecrets: knownSecretsOf(settings), keep: [health.spreadsheetUrl] };
}

/** The mail an incident is due, if any, at `now`. */
export function dueMailKind(incident: Incident, now: number, reminderMinutes: number): MailKind | null {
  const followUps = hasFollowUps(incident.code);
  if (incident.state === 'cleared') {
    // IncidentBook.clear ends an incident without follow-ups at once; one stored cleared by an older version ends unmailed.
    if (!followUps) return null;
    const quietMs = RECOVERY_QUIET_MINUTES * MINUTE_MS;
    return incident.clearedAt !== null && now - incident.clearedAt >= quietMs ? 'recovery' : null;
  }
  if (!isNotifiable(incident)) return null;
  if (incident.lastMailedAt === null) return 'first';
  if (!remindsWhileOpen(incident.code)) return null;
  const seenSinceMail = incident.lastSeen > incident.lastMailedAt;
  return seenSinceMail && now - incident.lastMailedAt >= reminderMinutes * MINUTE_MS ? 'reminder' : null;
}

/**
 * The next moment a mail falls due with nothing else happening (a recovery mail after its quiet minutes), or null.
 * Reminders need the incident seen again, i.e. a run that happens anyway; a mail already due but held waits for any run.
 */
export function nextTriageMailAt(incidents: readonly Incident[], now: number): number | null {
  const recoveries = incidents
    .flatMap((incident) => (incident.state === 'cleared' && incident.clearedAt !== null ? [incident.clearedAt + RECOVERY_QUIET_MINUTES * MINUTE_MS] : []))
    .filter((at) => at > now);
  return recoveries.length > 0 ? Math.min(...recoveries) : null;
}

/** When mail is scarce: news before reminders, and the classes staff can act on first. */
const KIND_ORDER: Readonly<Record<MailKind, number>> = { first: 0, recovery: 1, reminder: 2 };
const CLASS_ORDER: Readonly<Record<IncidentClass, number>> = { 'code-bug': 0, configuration: 1, platform: 2, quota: 3, 'needs-person': 4 };

export function planTriageMails(
  incidents: readonly Incident[],
  health: QueueHealth,
  now: number,
  settings: Settings,
  context: TriageContext,
): TriagePlan {
  const due = incidents
    .map((incident) => ({ incident, kind: dueMailKind(incident, now, settings.triageReminderMinutes) }))
    .filter((entry): entry is { incident: Incident; kind: MailKind } => entry.kind !== null)
    .sort(
      (a, b) =>
        KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
        CLASS_ORDER[INCIDENTS[a.incident.code].class] - CLASS_ORDER[INCIDENTS[b.incident.code].class] ||
        a.incident.firstSeen - b.incident.firstSeen,
    );
  const plan: TriagePlan = { mails: [], held: [] };
  const recipients = settings.staffEmails.length;
  let quota = Math.max(0, Math.floor(context.remainingMailQuota));
  const redaction = staffMailRedaction(settings, health);
  for (const { incident, kind } of due) {
    if (recipients === 0) {
      plan.held.push({ code: incident.code, kind, reason: 'no-staff-emails' });
    } else if (!staffMailFits(quota, recipients)) {
      plan.held.push({ code: incident.code, kind, reason: 'mail-reserve' });
    } else {
      quota -= recipients;
      const impact = impactFor(incident, health, now, {
        finishedSubmissionsRefused: context.finishedSubmissionsRefused ?? 0,
        typeformCheckOn: settings.typeformToken !== '',
      });
      const mail = composeTriageMail(incident, kind, health, impact, now, redaction, settings.triageReminderMinutes);
      plan.mails.push({ code: incident.code, kind, recipients, mail: { to: settings.staffEmails.join(','), ...mail } });
    }
  }
  return plan;
}

function impactFor(incident: Incident, health: QueueHealth, now: number, facts: RefusedCallsFacts): UserImpact {
  if (INCIDENTS[incident.code].mayHideRefusedCalls) return assessRefusedCallsImpact(health, now, facts);
  if (incident.code === 'ROWS_NEED_A_PERSON' && health.needsPersonCount > 0) {
    return {
      affected: true,
      statement: `${plural(health.needsPersonCount, 'row waits', 'rows wait')} for a person: those respondents get no reply until someone acts.`,
    };
  }
  if (INCIDENTS[incident.code].rowsAwaitApproval) return assessApprovalImpact(health, now);
  if (incident.code === 'SUBMISSIONS_IN_REJECTED') {
    // Their respondents wait for staff in Rejected, where the queue's figures do not look.
    return { affected: true, statement: 'Respondents whose finished submission is only in Rejected get no reply until staff accept it there (the detail counts them and names their response tokens).' };
  }
  return assessUserImpact(health, now, isGoogleError(incident.code));
}

function subjectSuffix(incident: Incident, health: QueueHealth, impact: UserImpact, now: number): string {
  if (incident.code === 'ROWS_NEED_A_PERSON') return `${plural(health.needsPersonCount, 'row needs', 'rows need')} a person`;
  if (impact.affected === null) return 'queue unreadable, impact unknown';
  if (impact.affected === 'possibly') return `${health.waiting} waiting, a respondent may be affected`;
  if (!impact.affected) return `${health.waiting} waiting, no user impact`;
  const awaiting = health.counts.AWAITING_APPROVAL;
  if (INCIDENTS[incident.code].rowsAwaitApproval && awaiting > 0) return `${awaiting} awaiting approval, ${health.waiting} waiting`;
  const oldest = health.oldestWaitingAt === null ? '' : `, oldest ${formatDuration(now - health.oldestWaitingAt)}`;
  return `${health.waiting} waiting${oldest}`;
}

function caughtUpTotal(incident: Incident): number {
  return Object.values(incident.caughtUp ?? {}).reduce((sum, count) => sum + count, 0);
}

function subjectFor(incident: Incident, kind: MailKind, health: QueueHealth, impact: UserImpact, now: number): string {
  const title = INCIDENTS[incident.code].title;
  if (kind === 'recovery') {
    const lasted = formatDuration((incident.clearedAt ?? now) - incident.firstSeen);
    const total = caughtUpTotal(incident);
    return `${SUBJECT_PREFIX} Resolved: ${title} (lasted ${lasted})${total > 0 ? ` — ${total} caught up` : ''}`;
  }
  const suffix = subjectSuffix(incident, health, impact, now);
  if (kind === 'reminder') {
    return `${SUBJECT_PREFIX} Still: ${title} (for ${formatDuration(now - incident.firstSeen)}, ${plural(incident.count, 'time')}) — ${suffix}`;
  }
  return `${SUBJECT_PREFIX} ${title} — ${suffix}`;
}

function queueParts(health: QueueHealth, now: number, redaction: RedactionContext): MailPart[] {
  const counts = STATUSES.map((status) => `${status} ${health.counts[status]}`).join(', ');
  const unknown = health.unknownStatus > 0 ? `, unknown status ${health.unknownStatus}` : '';
  const spilled = health.spilled > 0 ? `, in the spill ${health.spilled}` : '';
  const asOf = health.readable ? '' : health.countedAt === null ? ' (could not be read; no earlier figures)' : ` (could not be read; as last read ${formatTime(health.countedAt)})`;
  const pendingAge = oldestPendingMinutes(health, now);
  const parts: MailPart[] = [
    { kind: 'field', label: 'Queue', text: `${counts}${unknown}${spilled}${asOf}` },
    {
      kind: 'field',
      label: 'Oldest PENDING',
      text: pendingAge === null ? 'none' : `${formatDuration(now - (health.oldestPendingAt ?? now))} (received ${formatTime(health.oldestPendingAt ?? now)})`,
    },
    { kind: 'field', label: 'Rows that need a person', text: String(health.needsPersonCount) },
    ...needsPersonRowParts(health, now, redaction),
  ];
  return parts;
}

/** When and how often, and which rows: staff words; the code and the raw error go to the operator's footer. */
function detailParts(incident: Incident, now: number): MailPart[] {
  const shown = incident.rows.slice(0, ROWS_SHOWN).join(', ');
  const rows =
    incident.rowCount === 0 ? 'none named' : `${shown}${incident.rowCount > ROWS_SHOWN ? ` … (${incident.rowCount} in all)` : ''}`;
  const parts: MailPart[] = [
    { kind: 'heading', text: 'Details' },
    { kind: 'field', label: 'First seen', text: formatTime(incident.firstSeen) },
    { kind: 'field', label: 'Last seen', text: `${formatTime(incident.lastSeen)} (${formatDuration(now - incident.lastSeen)} ago)` },
    { kind: 'field', label: 'Seen', text: `${plural(incident.count, 'time')} in ${plural(incident.runs, 'run')}` },
    { kind: 'field', label: 'Affected rows', text: rows },
  ];
  return parts;
}

function repeatsLine(code: IncidentCode, reminderMinutes: number): string {
  if (remindsWhileOpen(code)) {
    return `Repeats fold into this incident: at most one reminder every ${formatDuration(reminderMinutes * MINUTE_MS)}, and one mail when it clears.`;
  }
  return hasFollowUps(code)
    ? 'Repeats fold into this incident without another mail (Queue health and the daily summary list rows that join it), and one mail says when it clears.'
    : 'Repeats fold into this incident: no reminder and no mail when it clears (at most one mail a day); the daily summary lists it.';
}

/** "Yes", "No", "Unknown" or "Possibly", before the statement. */
function affectedWord(impact: UserImpact): string {
  if (impact.affected === 'possibly') return 'Possibly';
  return impact.affected === null ? 'Unknown' : impact.affected ? 'Yes' : 'No';
}

function composeTriageMail(
  incident: Incident,
  kind: MailKind,
  health: QueueHealth,
  impact: UserImpact,
  now: number,
  redaction: RedactionContext,
  reminderMinutes: number,
): Omit<OutgoingMail, 'to'> {
  const cls = INCIDENTS[incident.code].class;
  const firstLine = incident.detail.split('\n')[0].slice(0, 200);
  const parts: MailPart[] = [];
  if (kind === 'recovery') {
    const lasted = formatDuration((incident.clearedAt ?? now) - incident.firstSeen);
    const caught = Object.entries(incident.caughtUp ?? {}).map(([what, count]) => `${count} ${what}`);
    parts.push(
      {
        kind: 'field',
        label: 'What happened',
        text: `${INCIDENTS[incident.code].title} is over. It lasted ${lasted} (first seen ${formatTime(incident.firstSeen)}, cleared ${formatTime(incident.clearedAt ?? now)}), seen ${plural(incident.count, 'time')}.`,
      },
      { kind: 'field', label: 'Caught up', text: caught.length > 0 ? caught.join(', ') : 'nothing was reported as caught up' },
      { kind: 'field', label: 'Respondents affected', text: `${affectedWord(impact)}. ${impact.statement}` },
      ...queueParts(health, now, redaction),
      {
        kind: 'field',
        label: 'Next step',
        text:
          health.needsPersonCount > 0
            ? `Nothing for this incident; ${plural(health.needsPersonCount, 'row still needs', 'rows still need')} a person (linked above).`
            : 'Nothing: this incident is over.',
      },
    );
    if (incident.mailsSent === 0) parts.push({ kind: 'line', text: 'No mail went out while it lasted (mail quota or no staff address); this is the first word of it.' });
  } else {
    const seen = kind === 'reminder' ? ` Still going after ${formatDuration(now - incident.firstSeen)}: seen ${plural(incident.count, 'time')} since ${formatTime(incident.firstSeen)}.` : '';
    parts.push(
      { kind: 'field', label: 'What happened', text: `${INCIDENTS[incident.code].whatHappened}${firstLine ? ` (${firstLine})` : ''}${seen}` },
      { kind: 'field', label: 'Respondents affected', text: `${affectedWord(impact)}. ${impact.statement}` },
      ...queueParts(health, now, redaction),
      { kind: 'field', label: 'Next step', text: INCIDENTS[incident.code].nextStep },
    );
    if (kind === 'first') parts.push({ kind: 'line', text: repeatsLine(incident.code, reminderMinutes) });
    if (incident.code === 'ROWS_NEED_A_PERSON') parts.push(...needsPersonStepParts(health));
  }
  parts.push(...detailParts(incident, now));
  // Staff read down to here; what only the person who set formqueue up can use comes last, in one footer.
  const staff = withoutRepoPointers(parts);
  const footer = operatorFooterParts({
    codes: [`${incident.code} (class: ${CLASS_LABEL[cls]})`],
    rowIds: needsPersonRowIds(health, redaction),
    notes: kind !== 'recovery' && incident.code === 'ROWS_NEED_A_PERSON' ? needsPersonOperatorNotes(health) : [],
    pointers: staff.pointers,
    lastError: incident.detail,
  });
  const rendered = renderMail([...staff.parts, ...footer], redaction);
  return {
    subject: redactSubject(subjectFor(incident, kind, health, impact, now), redaction),
    body: rendered.body,
    htmlBody: rendered.htmlBody,
    name: 'formqueue',
  };
}
