// The on-edit guard for the system-memory columns (event_id, sent_at, mail_ref, claimed_at): puts back or parks what staff changed.
import type { LogEntry } from '../core/ports';
import { rowFromValues, rowToValues, type QueueHeader } from '../core/queue-row';
import { decideSystemColumnEdit } from '../core/staff/edit-guard';
import { decideSystemBlockRow, eventIdOfPayload } from '../core/staff/system-block';
import { cellText, finish, isWholeRows, SUPERSEDED, writeChanges, type EditScope, type GuardOutcome } from './edit-scope';

/**
 * A person changed one event_id, sent_at, mail_ref or claimed_at cell. A typed edit or a clear (Sheets gives the
 * old value) is put back with a note; a paste (no old value) parks an unfinished row in NEEDS_REVIEW with a note
 * instead, so nothing is generated or mailed for it until a person looks.
 */
export function guardSystemColumns(scope: EditScope, header: QueueHeader): GuardOutcome {
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

/**
 * A paste or clear over several rows of event_id, sent_at, mail_ref or claimed_at (decideSystemBlockRow): each row's
 * event_id is put back from its payload, the others from the Log's ledger line, with a note on each cell; a value
 * nothing records parks an unfinished row in NEEDS_REVIEW. One Log read for the block, one write, one notes write.
 */
export function guardSystemBlock(scope: EditScope, touched: readonly QueueHeader[]): GuardOutcome {
  const { deps, sheet, index, top, width, before, context } = scope;
  const outcome: GuardOutcome = { allowed: 0, refused: 0, notes: [] };
  const wholeRows = isWholeRows(scope);
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
