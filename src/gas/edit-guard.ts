// The installable on-edit handler's body: checks staff edits of the Queue's status and result cells, puts back what may not stand.
import { DIRTY_PROPERTY } from '../core/tick-gate';
import type { AuditLog, LogEntry, PropertyStore } from '../core/ports';
import { indexColumns, rowFromValues, rowToValues, type ColumnIndex, type QueueHeader, type QueueRow } from '../core/queue-row';
import { SHEETS } from '../core/sheet-names';
import {
  decideResultEdit,
  decideStatusEdit,
  decideSystemColumnEdit,
  lastLoggedStatus,
  SYSTEM_MEMORY_COLUMNS,
  decideUncheckedResultEdit,
  decideUncheckedStatusEdit,
  type EditDecision,
} from '../core/staff/edit-guard';
import type { StaffContext } from '../core/staff/staff-moves';
import { decideSystemBlockRow, eventIdOfPayload } from '../core/staff/system-block';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export interface EditGuardDeps {
  props: PropertyStore;
  audit: AuditLog;
  now: number;
}

/** One edit as the guard sees it: the event, the Queue's columns, and the touched rows as they are after the edit. */
interface EditScope {
  e: GoogleAppsScript.Events.SheetsOnEdit;
  deps: EditGuardDeps;
  sheet: Sheet;
  index: ColumnIndex;
  /** The first touched row below the header, and the Queue's width. */
  top: number;
  width: number;
  before: unknown[][];
  statusTouched: boolean;
  resultTouched: boolean;
  context: StaffContext;
}

/** What the guard did, for the execution log and the tests. */
export interface GuardOutcome {
  allowed: number;
  refused: number;
  notes: string[];
}

/** e.user is a User in Apps Script; some runtimes hand over the address itself. */
export function editorEmail(e: GoogleAppsScript.Events.SheetsOnEdit): string {
  const user = (e as unknown as { user?: unknown }).user;
  if (typeof user === 'string') return user;
  const getEmail = (user as { getEmail?: () => string } | undefined)?.getEmail;
  return typeof getEmail === 'function' ? String(getEmail.call(user) ?? '') : '';
}

function cellText(value: unknown): string {
  return value === undefined || value === null || typeof value === 'object' ? '' : String(value);
}

function sameCell(a: unknown, b: unknown): boolean {
  const time = (x: unknown) => (Object.prototype.toString.call(x) === '[object Date]' ? (x as Date).getTime() : x);
  return time(a) === time(b);
}

const SUPERSEDED = 'superseded: the row changed again before the check ran; left as it is now';

/**
 * Writes the box around every changed cell in one call (the batch rule: no per-cell writes). False, writing
 * nothing, when the rows changed since they were read: a claim or a send made meanwhile is never overwritten.
 */
function writeChanges(sheet: Sheet, top: number, before: unknown[][], after: unknown[][]): boolean {
  let r0 = Infinity, r1 = -1, c0 = Infinity, c1 = -1;
  after.forEach((cells, i) =>
    cells.forEach((cell, j) => {
      if (sameCell(cell, before[i][j])) return;
      r0 = Math.min(r0, i); r1 = Math.max(r1, i); c0 = Math.min(c0, j); c1 = Math.max(c1, j);
    }),
  );
  if (r1 < 0) return true;
  const now = sheet.getRange(top, 1, before.length, before[0].length).getValues();
  if (now.some((cells, i) => cells.some((cell, j) => !sameCell(cell, before[i][j])))) return false;
  const box = after.slice(r0, r1 + 1).map((cells) => cells.slice(c0, c1 + 1));
  sheet.getRange(top + r0, c0 + 1, box.length, c1 - c0 + 1).setValues(box);
  return true;
}

export function guardQueueEdit(e: GoogleAppsScript.Events.SheetsOnEdit, deps: EditGuardDeps): GuardOutcome {
  const outcome: GuardOutcome = { allowed: 0, refused: 0, notes: [] };
  const range = e.range;
  const sheet = range.getSheet();
  if (sheet.getName() !== SHEETS.queue) return outcome;
  const firstRow = range.getRow();
  const lastRow = firstRow + range.getNumRows() - 1;
  const firstCol = range.getColumn();
  const lastCol = firstCol + range.getNumColumns() - 1;
  if (lastRow < 2) return outcome; // the header row: protected with a warning, not ours to judge
  const width = sheet.getLastColumn();
  const index = indexColumns(sheet.getRange(1, 1, 1, width).getValues()[0]);
  const touches = (at: number) => at >= 0 && at + 1 >= firstCol && at + 1 <= lastCol;
  const statusTouched = touches(index.status);
  const resultTouched = touches(index.result);
  const systemTouched = SYSTEM_MEMORY_COLUMNS.filter((header) => touches(index[header]));
  if (!statusTouched && !resultTouched && systemTouched.length === 0) return outcome;

  const top = Math.max(firstRow, 2);
  const before = sheet.getRange(top, 1, lastRow - top + 1, width).getValues();
  const after = before.map((cells) => cells.slice());
  const context: StaffContext = { user: editorEmail(e), now: deps.now };
  const log: LogEntry[] = [];
  const single = firstRow === lastRow && firstCol === lastCol;
  const scope: EditScope = { e, deps, sheet, index, top, width, before, statusTouched, resultTouched, context };
  // One system cell changed by hand; a paste or clear over several rows is checked against the payload and the
  // Log's ledger instead (Sheets gives no old values), then the status and result rules below judge what remains.
  if (systemTouched.length > 0) return guardSystemEdit(scope, systemTouched, single);
  if (!statusTouched && !resultTouched) return outcome;

  if (single) {
    const row = rowFromValues(index, before[0], top);
    const column = statusTouched ? index.status : index.result;
    const to = cellText(before[0][column]);
    // A paste gives neither e.value nor e.oldValue: the previous status is the last one the Log recorded.
    const pasted = e.value === undefined && e.oldValue === undefined && to !== '';
    // The trigger runs after the edit: if the cell no longer holds what staff typed, processing (or another
    // person) moved the row since, and judging that newer value as a staff edit would put back a stale one.
    if (!pasted && to !== (e.value === undefined ? '' : cellText(e.value))) {
      outcome.notes.push(SUPERSEDED);
      return outcome;
    }
    const logged = pasted && statusTouched ? loggedStatusOf(deps, row.eventId) : null;
    // A pasted result, or a paste over a row the Log knows nothing of, has no previous value to judge from.
    if (pasted && (!statusTouched || logged === null)) return guardUnchecked(scope);
    const from = logged ?? cellText(e.oldValue);
    const decision: EditDecision = statusTouched
      ? decideStatusEdit({ from, to, row, ...context })
      : decideResultEdit({ from, to, row, ...context });
    if (decision.kind === 'unchanged') {
      if (decision.rewrite !== undefined) after[0][column] = decision.rewrite;
    } else if (decision.kind === 'allowed') {
      after[0] = rowToValues(index, decision.row, width, before[0]);
    } else {
      after[0][column] = decision.putBack;
    }
    if (!writeChanges(sheet, top, before, after)) {
      outcome.notes.push(SUPERSEDED);
      return outcome;
    }
    if (decision.kind === 'allowed') {
      log.push(decision.log);
      outcome.allowed++;
    } else if (decision.kind === 'refused') {
      log.push(decision.log);
      outcome.refused++;
      outcome.notes.push(decision.note);
    }
    // A note from an earlier refusal would mislead once a move stands; a refusal says why on the cell itself.
    if (decision.kind !== 'unchanged') range.setNote(decision.kind === 'refused' ? decision.note : '');
  } else {
    return guardUnchecked(scope);
  }

  return finish(scope, after, log, outcome);
}

/** Logs what the guard decided, marks the queue dirty when a status changed, and tells staff. */
function finish(scope: EditScope, after: unknown[][], log: LogEntry[], outcome: GuardOutcome): GuardOutcome {
  const { e, deps, index, before } = scope;
  deps.audit.append(log);
  // A row that changed status may have work for processing: the next tick must not be skipped as idle.
  const statusChanged = before.some((cells, i) => !sameCell(cells[index.status], after[i][index.status]));
  if (outcome.allowed > 0 || statusChanged) deps.props.set(DIRTY_PROPERTY, String(deps.now));
  if (outcome.notes.length > 0) {
    const first = outcome.notes[0];
    e.source.toast(outcome.notes.length === 1 ? first : `${first} (and ${outcome.notes.length - 1} more: see the cell notes)`, 'formqueue', 15);
  }
  return outcome;
}

/**
 * A multi-cell edit, or a paste over a row the Log knows nothing of: each row whose previous status the Log
 * records is judged like any edit (from that status); the others go through the unchecked rules.
 */
function guardUnchecked(scope: EditScope): GuardOutcome {
  const { e, deps, sheet, index, top, width, before, statusTouched, resultTouched, context } = scope;
  const outcome: GuardOutcome = { allowed: 0, refused: 0, notes: [] };
  const after = before.map((cells) => cells.slice());
  const log: LogEntry[] = [];
  // A block of whole rows (a sort, or rows pasted whole) moves submissions with all their cells.
  const wholeRows = e.range.getColumn() === 1 && e.range.getNumColumns() >= width;
  const histories = statusTouched || wholeRows ? deps.audit.historiesOf(before.map((cells) => rowFromValues(index, cells, 0).eventId)) : new Map();
  let judged = 0;
  const statusNotes: string[][] = [];
  const resultNotes: string[][] = [];
  before.forEach((cells, i) => {
    let row = rowFromValues(index, cells, top + i);
    let statusNote = '';
    let resultNote = '';
    const history = histories.get(row.eventId);
    const logged = history === undefined ? null : lastLoggedStatus(history);
    if (wholeRows && isIntactRow(row, logged)) {
      statusNotes.push(['']);
      resultNotes.push(['']);
      return;
    }
    judged++;
    if (row.eventId !== '') {
      if (statusTouched && logged !== null) {
        const decision = decideStatusEdit({ from: logged, to: cellText(cells[index.status]), row, ...context });
        if (decision.kind === 'allowed') {
          row = decision.row;
          log.push(decision.log);
          outcome.allowed++;
        } else if (decision.kind === 'refused') {
          row = { ...row, status: decision.putBack };
          statusNote = decision.note;
          log.push(decision.log);
        } else if (decision.rewrite !== undefined) {
          row = { ...row, status: decision.rewrite };
        }
      } else if (statusTouched) {
        const unchecked = decideUncheckedStatusEdit(row, cellText(cells[index.status]), context);
        row = unchecked.row;
        statusNote = unchecked.note;
        log.push(unchecked.log);
      }
      if (resultTouched) {
        const unchecked = decideUncheckedResultEdit(row, context);
        row = unchecked.row;
        resultNote = unchecked.note ?? '';
        log.push(unchecked.log);
      }
      after[i] = rowToValues(index, row, width, cells);
      if (statusNote !== '' || resultNote !== '') outcome.notes.push(statusNote || resultNote);
    }
    statusNotes.push([statusNote]);
    resultNotes.push([resultNote]);
  });
  if (!writeChanges(sheet, top, before, after)) {
    outcome.notes = [SUPERSEDED];
    return outcome;
  }
  if (statusTouched && judged > 0) sheet.getRange(top, index.status + 1, statusNotes.length, 1).setNotes(statusNotes);
  if (resultTouched && resultNotes.some(([note]) => note !== '')) sheet.getRange(top, index.result + 1, resultNotes.length, 1).setNotes(resultNotes);
  outcome.refused += outcome.notes.length;
  return finish(scope, after, log, outcome);
}

/**
 * A person changed one event_id, sent_at, mail_ref or claimed_at cell. A typed edit or a clear (Sheets gives the
 * old value) is put back with a note; a paste (no old value) parks an unfinished row in NEEDS_REVIEW with a note
 * instead, so nothing is generated or mailed for it until a person looks.
 */
function guardSystemColumns(scope: EditScope, header: QueueHeader): GuardOutcome {
  const { e, sheet, index, top, width, before, context } = scope;
  const outcome: GuardOutcome = { allowed: 0, refused: 0, notes: [] };
  const after = before.map((cells) => cells.slice());
  const log: LogEntry[] = [];
  const known = e.value !== undefined || e.oldValue !== undefined;
  const oldValue = known ? cellText(e.oldValue) : null;
  if (known && oldValue === cellText(e.value)) return outcome;
  const notes = before.map((cells, i) => {
    let row = rowFromValues(index, cells, top + i);
    // The Log line names the submission the row was: for an event_id edit, the value put back.
    if (header === 'event_id' && oldValue !== null) row = { ...row, eventId: oldValue };
    if (row.eventId === '') return [''];
    const decision = decideSystemColumnEdit(header, oldValue, row, context);
    if (decision.kind === 'put-back') after[i][index[header]] = decision.value;
    else after[i] = rowToValues(index, decision.row, width, cells);
    log.push(decision.log);
    outcome.refused++;
    outcome.notes.push(decision.note);
    return [decision.note];
  });
  if (!writeChanges(sheet, top, before, after)) {
    outcome.notes = [SUPERSEDED];
    return outcome;
  }
  sheet.getRange(top, index[header] + 1, notes.length, 1).setNotes(notes);
  return finish(scope, after, log, outcome);
}

/** An edit that touched system columns: one cell (its old value known), or a block judged row by row, then the rest. */
function guardSystemEdit(scope: EditScope, touched: readonly QueueHeader[], single: boolean): GuardOutcome {
  if (single) return guardSystemColumns(scope, touched[0]);
  const block = guardSystemBlock(scope, touched);
  if (!scope.statusTouched && !scope.resultTouched) return block;
  // The status rules judge the rows as the block left them (a sort leaves every row intact: nothing to read again).
  const wrote = block.refused > 0 || block.notes.length > 0;
  const rest = guardUnchecked(wrote ? { ...scope, before: scope.sheet.getRange(scope.top, 1, scope.before.length, scope.width).getValues() } : scope);
  return { allowed: block.allowed + rest.allowed, refused: block.refused + rest.refused, notes: [...block.notes, ...rest.notes] };
}

/**
 * A paste or clear over several rows of event_id, sent_at, mail_ref or claimed_at (decideSystemBlockRow): each row's
 * event_id is put back from its payload, the others from the Log's ledger line, with a note on each cell; a value
 * nothing records parks an unfinished row in NEEDS_REVIEW. One Log read for the block, one write, one notes write.
 */
function guardSystemBlock(scope: EditScope, touched: readonly QueueHeader[]): GuardOutcome {
  const { e, deps, sheet, index, top, width, before, context } = scope;
  const outcome: GuardOutcome = { allowed: 0, refused: 0, notes: [] };
  const wholeRows = e.range.getColumn() === 1 && e.range.getNumColumns() >= width;
  const rows = before.map((cells, i) => rowFromValues(index, cells, top + i));
  const ids = rows.flatMap((row) => [row.eventId, eventIdOfPayload(row.payload) ?? '']).filter((id) => id !== '');
  const histories = deps.audit.historiesOf(Array.from(new Set(ids)));
  const after = before.map((cells) => cells.slice());
  const log: LogEntry[] = [];
  const noted = new Map<number, { columns: readonly QueueHeader[]; note: string }>();
  rows.forEach((row, i) => {
    const id = touched.includes('event_id') ? eventIdOfPayload(row.payload) ?? row.eventId : row.eventId;
    const decision = decideSystemBlockRow({ row, touched, history: histories.get(id) ?? [], wholeRows, context });
    if (decision.kind === 'intact') return;
    after[i] = rowToValues(index, decision.row, width, before[i]);
    log.push(decision.log);
    noted.set(i, { columns: decision.columns, note: decision.note });
    outcome.refused++;
    outcome.notes.push(decision.note);
  });
  if (noted.size === 0) return outcome;
  if (!writeChanges(sheet, top, before, after)) return { allowed: 0, refused: 0, notes: [SUPERSEDED] };
  const columns = touched.map((header) => index[header] + 1);
  const left = Math.min(...columns);
  const box = sheet.getRange(top, left, before.length, Math.max(...columns) - left + 1);
  const notes = box.getNotes();
  noted.forEach(({ columns: put, note }, i) => {
    for (const header of put) if (index[header] + 1 >= left && index[header] + 1 - left < notes[i].length) notes[i][index[header] + 1 - left] = note;
  });
  box.setNotes(notes);
  return finish(scope, after, log, outcome);
}

/**
 * A row of a whole-row block that is the same submission as before: its status is the one the Log last recorded
 * for its event_id, or PENDING with no Log line at all (every submission starts there, and intake logs nothing).
 * A sort moves such rows with every cell; judging them as edits would park every row the guard cannot check.
 */
function isIntactRow(row: QueueRow, logged: string | null): boolean {
  if (row.eventId === '') return true;
  return logged === null ? row.status === 'PENDING' : row.status === logged;
}

/** The last status the Log recorded for one submission; null when it has no Log line. */
function loggedStatusOf(deps: EditGuardDeps, eventId: string): string | null {
  return lastLoggedStatus(deps.audit.historiesOf([eventId]).get(eventId) ?? []);
}
