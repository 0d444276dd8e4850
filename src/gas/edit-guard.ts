// The installable on-edit handler's body: reads one Queue edit, judges status and result cells, and hands system columns to system-edit-guard.ts.
import type { LogEntry } from '../core/domain/ports';
import { indexColumns, rowFromValues, rowToValues, type QueueHeader } from '../core/domain/queue/queue-row';
import { SHEETS } from '../core/domain/queue/sheet-names';
import { cellBeforeEdit, isIntactRow, readSingleCellEdit } from '../core/staff/edit-event';
import {
  decideResultEdit,
  decideStatusEdit,
  lastLoggedStatus,
  SYSTEM_MEMORY_COLUMNS,
  decideUncheckedResultEdit,
  decideUncheckedStatusEdit,
  type EditDecision,
} from '../core/staff/edit-guard';
import type { StaffContext } from '../core/staff/staff-moves';
import { cellText, finish, isWholeRows, SUPERSEDED, writeChanges, type EditGuardDeps, type EditScope, type GuardOutcome } from './edit-scope';
import { guardSystemBlock, guardSystemColumns } from './system-edit-guard';
import { draftKey } from '../core/staff/review-trail';
import { keepModelDraft, withReviewTrail } from './review-trail';
import { scriptDateKey } from './system-clock';

export type { EditGuardDeps, GuardOutcome } from './edit-scope';

/** e.user is a User in Apps Script; some runtimes hand over the address itself. */
export function editorEmail(e: GoogleAppsScript.Events.SheetsOnEdit): string {
  const user = (e as unknown as { user?: unknown }).user;
  if (typeof user === 'string') return user;
  const getEmail = (user as { getEmail?: () => string } | undefined)?.getEmail;
  return typeof getEmail === 'function' ? String(getEmail.call(user) ?? '') : '';
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
  const context: StaffContext = { user: editorEmail(e), now: deps.now };
  const single = firstRow === lastRow && firstCol === lastCol;
  const scope: EditScope = { e, deps, sheet, index, top, width, before, statusTouched, resultTouched, context };
  // One system cell changed by hand; a paste or clear over several rows is checked against the payload and the
  // Log's ledger instead (Sheets gives no old values), then the status and result rules below judge what remains.
  if (systemTouched.length > 0) return guardSystemEdit(scope, systemTouched, single);
  return single ? guardSingleCell(scope) : guardUnchecked(scope);
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
 * One status or result cell: judged from e.oldValue, or, when Sheets did not tell it (a paste, or a value typed into
 * what may have been an empty cell), from the Log's last status (cellBeforeEdit); unchecked when nothing records it.
 */
function guardSingleCell(scope: EditScope): GuardOutcome {
  const { e, deps, sheet, index, top, width, before, statusTouched, context } = scope;
  const outcome: GuardOutcome = { allowed: 0, refused: 0, notes: [] };
  const after = before.map((cells) => cells.slice());
  const log: LogEntry[] = [];
  const row = rowFromValues(index, before[0], top);
  const column = statusTouched ? index.status : index.result;
  const to = cellText(before[0][column]);
  const read = readSingleCellEdit({
    value: e.value === undefined ? undefined : cellText(e.value),
    oldValue: e.oldValue === undefined ? undefined : cellText(e.oldValue),
    now: to,
  });
  if (read === 'superseded') {
    outcome.notes.push(SUPERSEDED);
    return outcome;
  }
  const told = read === 'old-known' ? cellText(e.oldValue) : null;
  // The Log is read only when Sheets did not tell the old value and there is a submission to look up.
  const history = told === null && statusTouched && row.eventId !== '' ? historyOf(deps, row.eventId) : [];
  const from = cellBeforeEdit(statusTouched ? 'status' : 'result', told, row, history);
  if (from === null) return guardUnchecked(scope);
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
    log.push(...reviewed(scope, decision, from));
    outcome.allowed++;
  } else if (decision.kind === 'refused') {
    log.push(decision.log);
    outcome.refused++;
    outcome.notes.push(decision.note);
  }
  // A note from an earlier refusal would mislead once a move stands; a refusal says why on the cell itself.
  if (decision.kind !== 'unchanged') e.range.setNote(decision.kind === 'refused' ? decision.note : '');
  return finish(scope, after, log, outcome);
}

/**
 * The review trail of an allowed single-cell edit: a reply's first edit keeps the model's text (the cell before it) in
 * Payloads, and an approval's line says whether and how much the reply was changed and how long it waited.
 */
function reviewed(scope: EditScope, decision: Extract<EditDecision, { kind: 'allowed' }>, from: string): LogEntry[] {
  const spreadsheet = scope.sheet.getParent();
  if (scope.statusTouched) {
    const counter = { props: scope.deps.props, dayKey: scriptDateKey(scope.deps.now), now: scope.deps.now };
    return withReviewTrail(spreadsheet, scope.deps.audit, [decision.log], [decision.row], counter);
  }
  const kept = keepModelDraft(spreadsheet, decision.row.eventId, from, historyOf(scope.deps, decision.row.eventId));
  return [kept ? { ...decision.log, detail: `${decision.log.detail}; the model's draft is kept in Payloads as ${draftKey(decision.row.eventId)}` } : decision.log];
}

/**
 * A multi-cell edit, or a paste over a row the Log knows nothing of: each row whose previous status the Log
 * records is judged like any edit (from that status); the others go through the unchecked rules.
 */
function guardUnchecked(scope: EditScope): GuardOutcome {
  const { deps, sheet, index, top, width, before, statusTouched, resultTouched, context } = scope;
  const outcome: GuardOutcome = { allowed: 0, refused: 0, notes: [] };
  const after = before.map((cells) => cells.slice());
  const log: LogEntry[] = [];
  const wholeRows = isWholeRows(scope);
  const histories = statusTouched || wholeRows ? deps.audit.historiesOf(before.map((cells) => rowFromValues(index, cells, 0).eventId)) : new Map();
  let judged = 0;
  const statusNotes: string[][] = [];
  const resultNotes: string[][] = [];
  before.forEach((cells, i) => {
    let row = rowFromValues(index, cells, top + i);
    let statusNote = '';
    let resultNote = '';
    const history = histories.get(row.eventId) ?? [];
    if (wholeRows && isIntactRow(row, history)) {
      statusNotes.push(['']);
      resultNotes.push(['']);
      return;
    }
    judged++;
    const logged = lastLoggedStatus(history);
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

/** The Log lines of one submission; none when the Log has no line for it. */
function historyOf(deps: EditGuardDeps, eventId: string): readonly LogEntry[] {
  return deps.audit.historiesOf([eventId]).get(eventId) ?? [];
}
