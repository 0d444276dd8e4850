// The rows needing a person as mail lines (link, mail_ref, reason, error cell) and what to do for each reason present.
import { redact } from '../domain/failures/redact';
import type { QueueHealth } from './health';
import type { MailPart, RedactionContext } from './mail-text';
import { NEEDS_PERSON_GUIDE, NEEDS_PERSON_REASONS } from './needs-person';
import { formatDuration } from '../domain/text';

/** The `error` cell as a mail shows it: after redaction, so a cut never keeps part of a secret. */
export const ERROR_SHOWN_CHARS = 140;

/** Redacted first, then cut: cutting first could leave a secret's head that no longer matches by value. */
export function shownText(text: string, redaction: RedactionContext, max: number): string {
  const clean = redact(text, redaction.knownSecrets, redaction.keep).replace(/\s+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** One link per listed row (status, mail_ref), then a line with its reason and error cell (its event_id goes to the operator's footer). */
export function needsPersonRowParts(health: QueueHealth, now: number, redaction: RedactionContext): MailPart[] {
  const parts: MailPart[] = [];
  for (const row of health.needsPerson) {
    const waited = row.waitingSince === null ? '' : ` for ${formatDuration(now - row.waitingSince)}`;
    const label = `row ${row.rowNumber} (${row.status || 'no status'}${waited}, mail_ref ${row.mailRef || 'none yet'})`;
    parts.push(row.link ? { kind: 'link', text: label, href: row.link } : { kind: 'line', text: `  ${label}` });
    const error = shownText(row.error, redaction, ERROR_SHOWN_CHARS);
    parts.push({ kind: 'line', text: `      ${NEEDS_PERSON_GUIDE[row.reason].label}${error ? ` · ${error}` : ''}` });
  }
  if (health.needsPersonCount > health.needsPerson.length) {
    parts.push({ kind: 'line', text: `  … and ${health.needsPersonCount - health.needsPerson.length} more (filter the status column).` });
  }
  return parts;
}

/** "row 4: ev-4" for each listed row with an event_id: the operator's footer, where the Log and Journal are searched by it. */
export function needsPersonRowIds(health: QueueHealth, redaction: RedactionContext): string[] {
  return health.needsPerson.filter((row) => row.eventId).map((row) => `row ${row.rowNumber}: ${shownText(row.eventId, redaction, 80)}`);
}

/** What only the operator can switch on for the listed rows' reasons, once each. */
export function needsPersonOperatorNotes(health: QueueHealth): string[] {
  const notes = health.needsPerson.map((row) => NEEDS_PERSON_GUIDE[row.reason].operatorNote).filter((note): note is string => note !== undefined);
  return [...new Set(notes)];
}

/** For each reason among the listed rows, once: which rows, and what to check, where, and what to set. */
export function needsPersonStepParts(health: QueueHealth): MailPart[] {
  const parts: MailPart[] = [];
  for (const reason of NEEDS_PERSON_REASONS) {
    const rows = health.needsPerson.filter((row) => row.reason === reason).map((row) => row.rowNumber);
    if (rows.length === 0) continue;
    const guide = NEEDS_PERSON_GUIDE[reason];
    const label = guide.label.charAt(0).toUpperCase() + guide.label.slice(1);
    parts.push({ kind: 'line', text: `${label} (row${rows.length === 1 ? '' : 's'} ${rows.join(', ')}): ${guide.step}` });
  }
  if (parts.length === 0) return [];
  return [{ kind: 'heading', text: 'What to do' }, ...parts];
}
