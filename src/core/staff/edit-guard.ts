// The on-edit guard's decisions: which staff edits of the Queue stand, and what is put back (with a note) when not.
import type { LogEntry } from '../domain/sheet-ports';
import { TIME_HEADERS, type QueueHeader, type QueueRow } from '../domain/queue/queue-row';
import { FINISHED_STATUSES, type Status } from '../domain/queue/statuses';
import { DAY_MS } from '../domain/time';
import { errorSummary } from '../domain/failures/redact';
import { formatTime } from '../domain/text';
import { UNCHECKED_KEEPS } from '../domain/queue/transitions';
import { decideStaffMove, parseStatus, staffName, type StaffContext } from './staff-moves';

/** Columns staff may edit and the statuses in which each edit stands; status is guarded by the move table instead. */
export const STAFF_EDITABLE: Readonly<Partial<Record<QueueHeader, readonly Status[]>>> = {
  // What staff leave in result is what is mailed, so it may change only before a send is claimed.
  result: ['AWAITING_APPROVAL', 'READY'],
};

export function canStaffEdit(header: QueueHeader, status: string): boolean {
  const allowed = STAFF_EDITABLE[header];
  return allowed !== undefined && (allowed as readonly string[]).includes(status);
}

export interface StatusEdit extends StaffContext {
  /** The cell before the edit (e.oldValue); '' when it was empty. */
  from: string;
  /** The cell after the edit (e.value). */
  to: string;
  /** The row as read after the edit. */
  row: QueueRow;
}

export type EditDecision =
  /** Nothing to do, except write `rewrite` (the canonical spelling) when set. */
  | { kind: 'unchanged'; rewrite?: string }
  /** `row` is what the row must now hold (status written canonically, updated_at, side effects of the move). */
  | { kind: 'allowed'; row: QueueRow; log: LogEntry }
  /** Put `putBack` into the cell and `note` on it; `log` records the attempt (the status stays `putBack`'s). */
  | { kind: 'refused'; putBack: string; note: string; log: LogEntry };

/** The last status a set of Log lines recorded, in time order (of two at the same moment, the later written); null for none. */
export function latestStatusOf(lines: readonly LogEntry[]): string | null {
  let latest: LogEntry | null = null;
  for (const entry of lines) if (latest === null || entry.at >= latest.at) latest = entry;
  return latest === null ? null : latest.to;
}

/**
 * DUPLICATE is final, so a Log line into it is about a copy of the submission that processing collapsed (or a
 * refused edit of one), never about the row still answering it: one submission's lines may tell of several rows.
 */
export function isCopyLine(entry: LogEntry): boolean {
  return entry.to === 'DUPLICATE';
}

/**
 * The row's status before an edit Sheets gave no previous value for (a paste): the last status the Log
 * recorded for its submission; null when the Log has no line for it, or when it has copies as well (the row
 * pasted over may be the one answering it or a DUPLICATE copy, so the Log cannot say which status it had).
 */
export function lastLoggedStatus(history: readonly LogEntry[]): string | null {
  if (history.some(isCopyLine)) return null;
  return latestStatusOf(history);
}

export function refusalNote(what: string, reason: string, context: StaffContext): string {
  return `formqueue put back ${what} (${formatTime(context.now)}, edit by ${staffName(context.user)}): ${reason}.`;
}

/** A refused edit is logged too: the audit shows who tried what, and that nothing moved. */
function refused(row: QueueRow, status: string, putBack: string, what: string, attempt: string, reason: string, context: StaffContext): EditDecision {
  return {
    kind: 'refused',
    putBack,
    note: refusalNote(what, reason, context),
    log: { at: context.now, eventId: row.eventId, from: status, to: status, by: staffName(context.user), detail: `refused ${attempt}: ${reason}` },
  };
}

export function decideStatusEdit(edit: StatusEdit): EditDecision {
  const from = edit.from.trim();
  const to = edit.to.trim();
  const target = parseStatus(to);
  if (edit.row.eventId === '') {
    // A status typed into an empty row would look like a submission to processing.
    return refused(edit.row, from, from, `"${from || '(empty)'}"`, `status edit to "${to}"`, 'this row holds no submission (event_id is empty)', edit);
  }
  if (target !== null && target === parseStatus(from)) {
    // Same state, perhaps typed in lower case: no move, only the canonical spelling.
    return to === target ? { kind: 'unchanged' } : { kind: 'unchanged', rewrite: target };
  }
  const decision = decideStaffMove(edit.row, from, to, edit);
  if (decision.ok) return { kind: 'allowed', row: decision.row, log: decision.log };
  return refused(edit.row, from, from, `"${from || '(empty)'}"`, `status edit to "${to}"`, decision.reason, edit);
}

export interface ResultEdit extends StaffContext {
  from: string;
  to: string;
  row: QueueRow;
}

export function decideResultEdit(edit: ResultEdit): EditDecision {
  if (edit.from === edit.to) return { kind: 'unchanged' };
  const status = String(edit.row.status);
  if (!canStaffEdit('result', status)) {
    const reason = `result can be edited only while the row is AWAITING_APPROVAL or READY, and this row is ${status || '(empty)'}`;
    return refused(edit.row, status, edit.from, 'the previous result', 'result edit', reason, edit);
  }
  const by = staffName(edit.user);
  return {
    kind: 'allowed',
    row: { ...edit.row, result: edit.to, updatedAt: edit.now },
    log: { at: edit.now, eventId: edit.row.eventId, from: status, to: status, by, detail: `result edited (${edit.to.length} characters)` },
  };
}

/**
 * A multi-cell edit of the status column: Sheets reports no old values then, so nothing can be put back.
 * A value that stops the system stays (with a note and a Log line); anything else (APPROVED or PENDING
 * over a row that may be SENDING, a typo) parks the row in NEEDS_REVIEW, where nothing is sent until a
 * person has looked. The menu's "… selected" items are the checked way to act on several rows.
 */
export function decideUncheckedStatusEdit(row: QueueRow, to: string, context: StaffContext): { row: QueueRow; log: LogEntry; note: string } {
  const target = parseStatus(to);
  const by = staffName(context.user);
  const kept = UNCHECKED_KEEPS.find((status) => status === target);
  const status: Status = kept ?? 'NEEDS_REVIEW';
  const detail = kept
    ? `multi-cell edit to ${status}: not checked, as Sheets gives no previous values`
    : `multi-cell edit to "${to || '(empty)'}" could not be checked, as Sheets gives no previous values; ` +
      'parked in NEEDS_REVIEW so nothing is sent until a person looks (use the formqueue menu to act on several rows)';
  return {
    row: { ...withReason(row, status, detail, kept !== undefined), status, updatedAt: context.now },
    log: { at: context.now, eventId: row.eventId, from: '(unknown)', to: status, by, detail },
    note: `formqueue (${formatTime(context.now)}, edit by ${by}): ${detail}. The row's history is in the Log sheet.`,
  };
}

/** Statuses a row never shows without a reason in `error` (a person must know why it waits for them). */
const SHOWN_WITH_REASON: readonly string[] = ['NEEDS_REVIEW', 'FAILED'];

/**
 * The row with `error` saying why an unchecked edit left it in a status that waits for a person: a row parked
 * while PENDING or GENERATING has no reason of its own, and an older one (a past retry's) would mislead. Staff
 * filtering NEEDS_REVIEW see on the row itself that a paste put it there. A status typed as it stands
 * (`keepOwn`) keeps a reason the row already has.
 */
function withReason(row: QueueRow, status: string, detail: string, keepOwn = false): QueueRow {
  if (!SHOWN_WITH_REASON.includes(status) || (keepOwn && row.error.trim() !== '')) return row;
  return { ...row, error: errorSummary('STAFF_EDIT_UNCHECKED', detail) };
}

/**
 * The result cell of a multi-cell edit: no previous text to put back. An APPROVED row would mail text nobody
 * approved, so it is parked in NEEDS_REVIEW; in any other status the edit is only noted and logged.
 */
export function decideUncheckedResultEdit(row: QueueRow, context: StaffContext): { row: QueueRow; log: LogEntry; note: string | null } {
  const status = String(row.status);
  const by = staffName(context.user);
  const base = { at: context.now, eventId: row.eventId, from: status, by };
  if (canStaffEdit('result', status)) {
    return { row: { ...row, updatedAt: context.now }, log: { ...base, to: status, detail: 'result edited (multi-cell edit)' }, note: null };
  }
  const parked = status === 'APPROVED';
  const detail = parked
    ? 'result changed after approval by a multi-cell edit; parked in NEEDS_REVIEW so unapproved text is not mailed'
    : `result changed while ${status || '(empty)'} by a multi-cell edit; it could not be put back (Sheets gives no previous values)`;
  return {
    row: parked ? { ...withReason(row, 'NEEDS_REVIEW', detail), status: 'NEEDS_REVIEW', updatedAt: context.now } : row,
    log: { ...base, to: parked ? 'NEEDS_REVIEW' : status, detail },
    note: `formqueue (${formatTime(context.now)}, edit by ${by}): ${detail}.`,
  };
}

/**
 * Columns that carry the system's memory: who the row is (`event_id`), that it was mailed (`sent_at`, `mail_ref`)
 * and that a step is in flight (`claimed_at`). A person's change to one is put back, with a note.
 */
export const SYSTEM_MEMORY_COLUMNS: readonly QueueHeader[] = ['event_id', 'sent_at', 'mail_ref', 'claimed_at'];

const SERIAL_EPOCH_MS = Date.UTC(1899, 11, 30);

/** An edit event's old value of a time cell as a Date: Sheets gives a day serial ("45625.41") or a date text; an empty cell stays ''. */
function timeOf(oldValue: string): Date | string {
  const serial = Number(oldValue);
  if (oldValue.trim() !== '' && Number.isFinite(serial)) return new Date(SERIAL_EPOCH_MS + serial * DAY_MS);
  const parsed = Date.parse(oldValue);
  return Number.isFinite(parsed) ? new Date(parsed) : oldValue;
}

export type SystemColumnDecision =
  /** Write `value` back into the cell and `note` on it. */
  | { kind: 'put-back'; value: unknown; note: string; log: LogEntry }
  /** The old value is unknown (a paste or a multi-cell edit): `row` is what the row must hold now. */
  | { kind: 'park'; row: QueueRow; note: string; log: LogEntry };

/**
 * A person changed a system-memory cell. With the old value known (typed or cleared) it is put back. Without it
 * (a paste, a multi-cell edit) nothing can be put back: an unfinished row is parked in NEEDS_REVIEW, so nothing
 * is generated or mailed for it until a person looks; a finished row only gets the note.
 */
export function decideSystemColumnEdit(header: QueueHeader, oldValue: string, row: QueueRow, context: StaffContext): Extract<SystemColumnDecision, { kind: 'put-back' }>;
export function decideSystemColumnEdit(header: QueueHeader, oldValue: string | null, row: QueueRow, context: StaffContext): SystemColumnDecision;
export function decideSystemColumnEdit(header: QueueHeader, oldValue: string | null, row: QueueRow, context: StaffContext): SystemColumnDecision {
  const by = staffName(context.user);
  const status = String(row.status);
  const base = { at: context.now, eventId: row.eventId, from: status, by };
  if (oldValue !== null) {
    const value = (TIME_HEADERS as readonly string[]).includes(header) ? timeOf(oldValue) : oldValue;
    const reason = `${header} is formqueue's memory of this row (it is how a reply is never mailed twice); set the status instead`;
    return {
      kind: 'put-back',
      value,
      note: refusalNote(`${header}`, reason, context),
      log: { ...base, to: status, detail: `refused ${header} edit: ${reason}` },
    };
  }
  const park = !(FINISHED_STATUSES as readonly string[]).includes(status) && status !== 'NEEDS_REVIEW' && status !== '';
  const detail =
    `${header} was changed by a paste or a multi-cell edit and could not be put back (Sheets gives no previous value)` +
    (park ? '; parked in NEEDS_REVIEW so nothing is sent until a person looks' : '');
  return {
    kind: 'park',
    row: park ? { ...withReason(row, 'NEEDS_REVIEW', detail), status: 'NEEDS_REVIEW', updatedAt: context.now } : row,
    note: `formqueue (${formatTime(context.now)}, edit by ${by}): ${detail}.`,
    log: { ...base, to: park ? 'NEEDS_REVIEW' : status, detail },
  };
}
