// What the on-edit guards share: one edit's scope, the batched write-back that never overwrites a newer change, and the finish.
import { DIRTY_PROPERTY } from '../core/domain/queue/tick-gate';
import type { AuditLog, LogEntry, PropertyStore } from '../core/domain/ports';
import type { ColumnIndex } from '../core/domain/queue/queue-row';
import { editToast } from '../core/staff/edit-event';
import type { StaffContext } from '../core/staff/staff-moves';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export interface EditGuardDeps {
  props: PropertyStore;
  audit: AuditLog;
  now: number;
}

/** One edit as the guard sees it: the event, the Queue's columns, and the touched rows as they are after the edit. */
export interface EditScope {
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

export function cellText(value: unknown): string {
  return value === undefined || value === null || typeof value === 'object' ? '' : String(value);
}

function sameCell(a: unknown, b: unknown): boolean {
  const time = (x: unknown) => (Object.prototype.toString.call(x) === '[object Date]' ? (x as Date).getTime() : x);
  return time(a) === time(b);
}

export const SUPERSEDED = 'superseded: the row changed again before the check ran; left as it is now';

/** A block of whole rows (a sort, or rows pasted whole) moves submissions with all their cells. */
export function isWholeRows(scope: EditScope): boolean {
  return scope.e.range.getColumn() === 1 && scope.e.range.getNumColumns() >= scope.width;
}

/**
 * Writes the box around every changed cell in one call (the batch rule: no per-cell writes). False, writing
 * nothing, when the rows changed since they were read: a claim or a send made meanwhile is never overwritten.
 */
export function writeChanges(sheet: Sheet, top: number, before: unknown[][], after: unknown[][]): boolean {
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

/** Logs what the guard decided, marks the queue dirty when a status changed, and tells staff. */
export function finish(scope: EditScope, after: unknown[][], log: LogEntry[], outcome: GuardOutcome): GuardOutcome {
  const { e, deps, index, before } = scope;
  deps.audit.append(log);
  // A row that changed status may have work for processing: the next tick must not be skipped as idle.
  const statusChanged = before.some((cells, i) => !sameCell(cells[index.status], after[i][index.status]));
  if (outcome.allowed > 0 || statusChanged) deps.props.set(DIRTY_PROPERTY, String(deps.now));
  if (outcome.notes.length > 0) e.source.toast(editToast(outcome.notes), 'formqueue', 15);
  return outcome;
}
