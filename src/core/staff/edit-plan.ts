// The on-edit guard's planner: from the rows one Queue edit touched (as read after it) and the Log, which rows to put back or park, which notes, which Log lines.
import type { AuditLog, LogEntry } from '../domain/sheet-ports';
import { fieldOf, TIME_HEADERS, type QueueHeader, type QueueRow } from '../domain/queue/queue-row';
import { cellBeforeEdit, isIntactRow, readSingleCellEdit, toldOldValue } from './edit-event';
import {
  decideResultEdit,
  decideStatusEdit,
  decideSystemColumnEdit,
  decideUncheckedResultEdit,
  decideUncheckedStatusEdit,
  lastLoggedStatus,
  type EditDecision,
} from './edit-guard';
import type { StaffContext } from './staff-moves';
import { decideSystemBlockRow, eventIdOfPayload } from './system-block';

export const SUPERSEDED = 'superseded: the row changed again before the check ran; left as it is now';

/** One row of the edit: as read after it, with its status and result cells' text exactly as Sheets holds it (untrimmed). */
export interface EditedRow {
  row: QueueRow;
  statusText: string;
  resultText: string;
}

/** What the guard did, for the execution log, the toast and the tests. */
export interface GuardOutcome {
  allowed: number;
  refused: number;
  notes: string[];
}

/** Notes for one column of the edited rows, in row order; null leaves a cell's note as it is. */
export interface ColumnNotes {
  header: QueueHeader;
  notes: (string | null)[];
}

/**
 * An allowed single-cell edit's review trail (src/gas/review-trail.ts): an approval's line says how the reply was
 * reviewed; a reply's first edit keeps the model's text (`draft`, the cell before the edit) in Payloads.
 */
export type ReviewNeed = { kind: 'approval' } | { kind: 'result-edit'; draft: string };

export interface EditPlan {
  /** `write`: apply `written` and `lines` (staff/apply-moves.ts), then the notes; `superseded`/`nothing`: leave the rows. */
  kind: 'write' | 'superseded' | 'nothing';
  read: QueueRow[];
  /** Per row, what it must hold now; null: left as read. */
  written: (QueueRow | null)[];
  lines: LogEntry[][];
  notes: ColumnNotes[];
  outcome: GuardOutcome;
  /** The queue is marked dirty even when no status changed. */
  wake: boolean;
  review?: ReviewNeed;
}

/** Reads the Log lines of submissions: only when a rule needs them (a Log search costs a Sheets call). */
export type Histories = Pick<AuditLog, 'historiesOf'>;

function emptyPlan(edited: readonly EditedRow[], kind: 'superseded' | 'nothing' = 'nothing'): EditPlan {
  return {
    kind,
    read: edited.map((e) => e.row),
    written: edited.map(() => null),
    lines: edited.map(() => []),
    notes: [],
    outcome: { allowed: 0, refused: 0, notes: kind === 'superseded' ? [SUPERSEDED] : [] },
    wake: false,
  };
}

function historyOf(audit: Histories, eventId: string): readonly LogEntry[] {
  return audit.historiesOf([eventId]).get(eventId) ?? [];
}

export interface SingleCellEdit {
  edited: EditedRow;
  column: 'status' | 'result';
  /** The trigger's e.value and e.oldValue as text; undefined when Sheets gave none. */
  value?: string;
  oldValue?: string;
  context: StaffContext;
  audit: Histories;
}

/**
 * One status or result cell: judged from e.oldValue, or, when Sheets did not tell it (a paste, or a value typed into
 * what may have been an empty cell), from the Log's last status (cellBeforeEdit); 'unchecked' when nothing records
 * it, and the edit goes through the unchecked rules (planUncheckedEdit).
 */
export function planSingleCellEdit(edit: SingleCellEdit): EditPlan | 'unchecked' {
  const { edited, column, context } = edit;
  const row = edited.row;
  const status = column === 'status';
  const to = status ? edited.statusText : edited.resultText;
  const read = readSingleCellEdit({ value: edit.value, oldValue: edit.oldValue, now: to });
  if (read === 'superseded') return emptyPlan([edited], 'superseded');
  const told = read === 'old-known' ? edit.oldValue ?? '' : null;
  // The Log is read only when Sheets did not tell the old value and there is a submission to look up.
  const history = told === null && status && row.eventId !== '' ? historyOf(edit.audit, row.eventId) : [];
  const from = cellBeforeEdit(column, told, row, history);
  if (from === null) return 'unchecked';
  const decision: EditDecision = status ? decideStatusEdit({ from, to, row, ...context }) : decideResultEdit({ from, to, row, ...context });
  const plan = emptyPlan([edited]);
  if (decision.kind === 'unchanged') {
    return decision.rewrite === undefined ? plan : { ...plan, kind: 'write', written: [{ ...row, [fieldOf(column)]: decision.rewrite }] };
  }
  // A note from an earlier refusal would mislead once a move stands; a refusal says why on the cell itself.
  const notes: ColumnNotes[] = [{ header: column, notes: [decision.kind === 'refused' ? decision.note : ''] }];
  if (decision.kind === 'allowed') {
    const review: ReviewNeed = status ? { kind: 'approval' } : { kind: 'result-edit', draft: from };
    return { ...plan, kind: 'write', written: [decision.row], lines: [[decision.log]], notes, outcome: { allowed: 1, refused: 0, notes: [] }, wake: true, review };
  }
  return {
    ...plan,
    kind: 'write',
    written: [{ ...row, [fieldOf(column)]: decision.putBack }],
    lines: [[decision.log]],
    notes,
    outcome: { allowed: 0, refused: 1, notes: [decision.note] },
  };
}

export interface BlockEdit {
  rows: readonly EditedRow[];
  statusTouched: boolean;
  resultTouched: boolean;
  /** Whole rows (a sort, rows pasted whole): they move submissions with all their cells. */
  wholeRows: boolean;
  context: StaffContext;
  audit: Histories;
}

/**
 * A multi-cell edit, or a paste over a row the Log knows nothing of: each row whose previous status the Log
 * records is judged like any edit (from that status); the others go through the unchecked rules. A row of a block of
 * whole rows that is the same submission as before (isIntactRow) is left alone.
 */
export function planUncheckedEdit(edit: BlockEdit): EditPlan {
  const { rows, statusTouched, resultTouched, wholeRows, context } = edit;
  const plan = emptyPlan(rows);
  const histories = statusTouched || wholeRows ? edit.audit.historiesOf(rows.map((e) => e.row.eventId)) : new Map<string, LogEntry[]>();
  let judged = 0;
  let allowed = 0;
  const statusNotes: string[] = [];
  const resultNotes: string[] = [];
  rows.forEach((edited, i) => {
    let row = edited.row;
    let statusNote = '';
    let resultNote = '';
    const history = histories.get(row.eventId) ?? [];
    if (wholeRows && isIntactRow(row, history)) {
      statusNotes.push('');
      resultNotes.push('');
      return;
    }
    judged++;
    const logged = lastLoggedStatus(history);
    if (row.eventId !== '') {
      const lines = plan.lines[i];
      if (statusTouched && logged !== null) {
        const decision = decideStatusEdit({ from: logged, to: edited.statusText, row, ...context });
        if (decision.kind === 'allowed') {
          row = decision.row;
          lines.push(decision.log);
          allowed++;
        } else if (decision.kind === 'refused') {
          row = { ...row, status: decision.putBack };
          statusNote = decision.note;
          lines.push(decision.log);
        } else if (decision.rewrite !== undefined) {
          row = { ...row, status: decision.rewrite };
        }
      } else if (statusTouched) {
        const unchecked = decideUncheckedStatusEdit(row, edited.statusText, context);
        row = unchecked.row;
        statusNote = unchecked.note;
        lines.push(unchecked.log);
      }
      if (resultTouched) {
        const unchecked = decideUncheckedResultEdit(row, context);
        row = unchecked.row;
        resultNote = unchecked.note ?? '';
        lines.push(unchecked.log);
      }
      plan.written[i] = row;
      if (statusNote !== '' || resultNote !== '') plan.outcome.notes.push(statusNote || resultNote);
    }
    statusNotes.push(statusNote);
    resultNotes.push(resultNote);
  });
  if (statusTouched && judged > 0) plan.notes.push({ header: 'status', notes: statusNotes });
  if (resultTouched && resultNotes.some((note) => note !== '')) plan.notes.push({ header: 'result', notes: resultNotes });
  plan.outcome.allowed = allowed;
  plan.outcome.refused = plan.outcome.notes.length;
  return { ...plan, kind: 'write', wake: allowed > 0 };
}

/** An edit event's put-back value of a system cell as the row's field: a time cell's Date as epoch ms. */
function fieldValue(header: QueueHeader, value: unknown): unknown {
  if (!(TIME_HEADERS as readonly string[]).includes(header)) return value;
  return Object.prototype.toString.call(value) === '[object Date]' && Number.isFinite((value as Date).getTime()) ? (value as Date).getTime() : null;
}

export interface SystemCellEdit {
  rows: readonly EditedRow[];
  header: QueueHeader;
  value?: string;
  oldValue?: string;
  context: StaffContext;
}

/**
 * A person changed one event_id, sent_at, mail_ref or claimed_at cell. When Sheets told the old value (typed over,
 * or cleared) it is put back with a note. When it did not (a paste, in either shape Sheets may send, or a value
 * typed into what may have been an empty cell: toldOldValue), 'block': the cell is judged as one cell of a block
 * (planSystemBlockEdit with singleCell), where the payload and the Log's ledger put back what they record.
 */
export function planSystemCellEdit(edit: SystemCellEdit): EditPlan | 'block' {
  const { rows, header, context } = edit;
  const oldValue = toldOldValue({ oldValue: edit.oldValue });
  if (oldValue === null) return 'block';
  const plan = emptyPlan(rows);
  if (oldValue === (edit.value ?? '')) return plan;
  const notes = rows.map((edited, i) => {
    let row = edited.row;
    // The Log line names the submission the row was: for an event_id edit, the value put back.
    if (header === 'event_id') row = { ...row, eventId: oldValue };
    if (row.eventId === '') return '';
    const decision = decideSystemColumnEdit(header, oldValue, row, context);
    plan.written[i] = { ...edited.row, [fieldOf(header)]: fieldValue(header, decision.value) };
    plan.lines[i].push(decision.log);
    plan.outcome.refused++;
    plan.outcome.notes.push(decision.note);
    return decision.note;
  });
  return { ...plan, kind: 'write', notes: [{ header, notes }] };
}

export interface SystemBlockEdit {
  rows: readonly EditedRow[];
  touched: readonly QueueHeader[];
  wholeRows: boolean;
  /** One cell whose old value Sheets did not tell (a paste): judged the same way, and named so in the note. */
  singleCell?: boolean;
  context: StaffContext;
  audit: Histories;
}

/**
 * A paste or clear over several rows of event_id, sent_at, mail_ref or claimed_at, or one such cell whose old value
 * Sheets did not tell, judged by decideSystemBlockRow: each row's event_id is put back from its payload, the others
 * from the Log's ledger line, with a note on each cell; a value nothing records parks an unfinished row in
 * NEEDS_REVIEW. One Log read for the block.
 */
export function planSystemBlockEdit(edit: SystemBlockEdit): EditPlan {
  const { rows, touched, wholeRows, context } = edit;
  const plan = emptyPlan(rows);
  const ids = rows.flatMap((e) => [e.row.eventId, eventIdOfPayload(e.row.payload) ?? '']).filter((id) => id !== '');
  const histories = edit.audit.historiesOf(Array.from(new Set(ids)));
  const notes = new Map<QueueHeader, (string | null)[]>(touched.map((header) => [header, rows.map(() => null)]));
  rows.forEach(({ row }, i) => {
    const id = touched.includes('event_id') ? eventIdOfPayload(row.payload) ?? row.eventId : row.eventId;
    const decision = decideSystemBlockRow({ row, touched, history: histories.get(id) ?? [], wholeRows, singleCell: edit.singleCell === true, context });
    if (decision.kind === 'intact') return;
    plan.written[i] = decision.row;
    plan.lines[i].push(decision.log);
    // decideSystemBlockRow names only touched columns, each of which has its notes.
    for (const header of decision.columns) notes.get(header)![i] = decision.note;
    plan.outcome.refused++;
    plan.outcome.notes.push(decision.note);
  });
  if (plan.outcome.refused === 0) return plan;
  return { ...plan, kind: 'write', notes: touched.map((header) => ({ header, notes: notes.get(header)! })) };
}
