// The installable on-edit handler's I/O: reads one Queue edit (the event and the touched rows), hands it to core's planner, applies the plan and writes its notes.
import type { LogEntry } from '../core/domain/sheet-ports';
import { indexColumns, rowFromValues, type ColumnIndex, type QueueHeader, type QueueRow } from '../core/domain/queue/queue-row';
import { SHEETS } from '../core/domain/queue/sheet-names';
import { applyMoves } from '../core/staff/apply-moves';
import { editToast } from '../core/staff/edit-event';
import { SYSTEM_MEMORY_COLUMNS } from '../core/staff/edit-guard';
import {
  planSingleCellEdit,
  planSystemBlockEdit,
  planSystemCellEdit,
  planUncheckedEdit,
  type ColumnNotes,
  type EditedRow,
  type EditPlan,
  type GuardOutcome,
  SUPERSEDED,
} from '../core/staff/edit-plan';
import type { StaffContext } from '../core/staff/staff-moves';
import { draftKey } from '../core/staff/review-trail';
import { keepModelDraft, withReviewTrail } from './review-trail';
import type { Services } from './services';
import { scriptDateKey } from './system-clock';

export type { GuardOutcome } from '../core/staff/edit-plan';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** What the guard takes from the composition root (services.ts); the Queue's store is opened only when a plan writes. */
export type EditGuardDeps = Pick<Services, 'props' | 'audit' | 'queue'> & { now: number };

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

/** One edit as read: the event, the Queue's columns, and the touched rows as they are after the edit. */
interface EditRead {
  e: GoogleAppsScript.Events.SheetsOnEdit;
  deps: EditGuardDeps;
  sheet: Sheet;
  index: ColumnIndex;
  /** The first touched row below the header, and the Queue's width. */
  top: number;
  width: number;
  rows: EditedRow[];
  statusTouched: boolean;
  resultTouched: boolean;
  /** A block of whole rows (a sort, or rows pasted whole) moves submissions with all their cells. */
  wholeRows: boolean;
  context: StaffContext;
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
  const context: StaffContext = { user: editorEmail(e), now: deps.now };
  const wholeRows = firstCol === 1 && range.getNumColumns() >= width;
  const read: EditRead = { e, deps, sheet, index, top, width, rows: [], statusTouched, resultTouched, wholeRows, context };
  read.rows = readRows(read, lastRow - top + 1);
  const single = firstRow === lastRow && firstCol === lastCol;
  // One system cell changed by hand; a paste or clear over several rows is checked against the payload and the
  // Log's ledger instead (Sheets gives no old values), then the status and result rules below judge what remains.
  if (systemTouched.length > 0) return guardSystemEdit(read, systemTouched, single);
  return single ? guardSingleCell(read) : guardUnchecked(read);
}

function readRows(read: EditRead, count: number): EditedRow[] {
  const { sheet, index, top, width } = read;
  return sheet.getRange(top, 1, count, width).getValues().map((cells, i) => ({
    row: rowFromValues(index, cells, top + i),
    statusText: index.status < 0 ? '' : cellText(cells[index.status]),
    resultText: index.result < 0 ? '' : cellText(cells[index.result]),
  }));
}

/** An edit that touched system columns: one cell (its old value known), or a block judged row by row, then the rest. */
function guardSystemEdit(read: EditRead, touched: readonly QueueHeader[], single: boolean): GuardOutcome {
  const { e, rows, wholeRows, context, deps } = read;
  const cell = single
    ? planSystemCellEdit({ rows, header: touched[0], value: textOf(e.value), oldValue: textOf(e.oldValue), context })
    : 'block';
  if (cell !== 'block') return apply(read, cell);
  const block = apply(read, planSystemBlockEdit({ rows, touched, wholeRows, singleCell: single, context, audit: deps.audit() }));
  if (single || (!read.statusTouched && !read.resultTouched)) return block;
  // The status rules judge the rows as the block left them (a sort leaves every row intact: nothing to read again).
  const wrote = block.refused > 0 || block.notes.length > 0;
  const rest = guardUnchecked(wrote ? { ...read, rows: readRows(read, rows.length) } : read);
  return { allowed: block.allowed + rest.allowed, refused: block.refused + rest.refused, notes: [...block.notes, ...rest.notes] };
}

function textOf(value: unknown): string | undefined {
  return value === undefined ? undefined : cellText(value);
}

/** One status or result cell, judged by its old value when a record tells it; otherwise as an unchecked edit. */
function guardSingleCell(read: EditRead): GuardOutcome {
  const { e, rows, statusTouched, context, deps } = read;
  const plan = planSingleCellEdit({
    edited: rows[0],
    column: statusTouched ? 'status' : 'result',
    value: textOf(e.value),
    oldValue: textOf(e.oldValue),
    context,
    audit: deps.audit(),
  });
  return plan === 'unchecked' ? guardUnchecked(read) : apply(read, plan);
}

function guardUnchecked(read: EditRead): GuardOutcome {
  const { rows, statusTouched, resultTouched, wholeRows, context, deps } = read;
  return apply(read, planUncheckedEdit({ rows, statusTouched, resultTouched, wholeRows, context, audit: deps.audit() }));
}

/** Applies a plan (core's applyMoves: the compare-and-set write, the Log, the dirty mark), then its notes and the toast. */
function apply(read: EditRead, plan: EditPlan): GuardOutcome {
  if (plan.kind !== 'write') return plan.outcome;
  const { deps } = read;
  const applied = applyMoves({ queue: deps.queue(), audit: deps.audit(), props: deps.props() }, plan, {
    now: deps.now,
    write: 'as-edited',
    wake: plan.wake,
    annotate: (lines, written) => reviewed(read, plan, lines, written),
  });
  if (applied.superseded) return { allowed: 0, refused: 0, notes: [SUPERSEDED] };
  writeNotes(read, plan.notes);
  if (plan.outcome.notes.length > 0) read.e.source.toast(editToast(plan.outcome.notes), 'formqueue', 15);
  return plan.outcome;
}

/**
 * The review trail of an allowed single-cell edit: a reply's first edit keeps the model's text (the cell before it) in
 * Payloads, and an approval's line says whether and how much the reply was changed and how long it waited.
 */
function reviewed(read: EditRead, plan: EditPlan, lines: readonly LogEntry[], written: readonly QueueRow[]): LogEntry[] {
  const review = plan.review;
  if (review === undefined) return [...lines];
  const spreadsheet = read.sheet.getParent();
  const { deps } = read;
  if (review.kind === 'approval') {
    return withReviewTrail(spreadsheet, deps.audit(), lines, written, { props: deps.props(), dayKey: scriptDateKey(deps.now), now: deps.now });
  }
  const row = written[0];
  const history = deps.audit().historiesOf([row.eventId]).get(row.eventId) ?? [];
  const kept = keepModelDraft(spreadsheet, row.eventId, review.draft, history);
  return lines.map((line) => (kept ? { ...line, detail: `${line.detail}; the model's draft is kept in Payloads as ${draftKey(row.eventId)}` } : line));
}

/**
 * A plan's cell notes: a column whose every note is set is written in one call; otherwise the notes of the box the
 * columns span are read and written back with the set ones changed, so the notes of the cells between stay.
 */
function writeNotes(read: EditRead, notes: readonly ColumnNotes[]): void {
  const { sheet, index, top } = read;
  for (const column of notes.filter((c) => c.notes.every((note) => note !== null))) {
    sheet.getRange(top, index[column.header] + 1, column.notes.length, 1).setNotes(column.notes.map((note) => [note as string]));
  }
  const partial = notes.filter((c) => c.notes.some((note) => note === null));
  if (partial.length === 0) return;
  const columns = partial.map((c) => index[c.header] + 1);
  const left = Math.min(...columns);
  const box = sheet.getRange(top, left, partial[0].notes.length, Math.max(...columns) - left + 1);
  const current = box.getNotes();
  for (const column of partial) {
    column.notes.forEach((note, i) => {
      if (note !== null) current[i][index[column.header] + 1 - left] = note;
    });
  }
  box.setNotes(current);
}
