// The on-edit guard for the system-memory columns (event_id, sent_at, mail_ref, claimed_at): puts back or parks what staff changed.
import type { LogEntry } from '../core/domain/ports';
import { rowFromValues, rowToValues, type QueueHeader } from '../core/domain/queue/queue-row';
import { decideSystemColumnEdit } from '../core/staff/edit-guard';
import { toldOldValue } from '../core/staff/edit-event';
import { decideSystemBlockRow, eventIdOfPayload } from '../core/staff/system-block';
import { cellText, finish, isWholeRows, SUPERSEDED, writeChanges, type EditScope, type GuardOutcome } from './edit-scope';

/**
 * A person changed one event_id, sent_at, mail_ref or claimed_at cell. When Sheets told the old value (typed over,
 * or cleared) it is put back with a note. When it did not (a paste, in either shape Sheets may send, or a value
 * typed into what may have been an empty cell: toldOldValue), the cell is judged as one cell of a block: the payload
 * and the Log's ledger put back what they record, and a value neither records parks an unfinished row in
 * NEEDS_REVIEW, so nothing is generated or mailed for it until a person looks.
 */
export function guardSystemColumns(scope: EditScope, header: QueueHeader): GuardOutcome {
  const { e, sheet, index, top, width, before, context } = scope;
  const oldValue = toldOldValue({ oldValue: e.oldValue === undefined ? undefined : cellText(e.oldValue) });
  if (oldValue === null) return guardSystemBlock(scope, [header], true);
  const outcome: GuardOutcome = { allowed: 0, refused: 0, notes: [] };
  if (oldValue === cellText(e.value)) return outcome;
  const after = before.map((cells) => cells.slice());
  const log: LogEntry[] = [];
  const notes = before.map((cells, i) => {
    let row = rowFromValues(index, cells, top + i);
    // The Log line names the submission the row was: for an event_id edit, the value put back.
    if (header === 'event_id') row = { ...row, eventId: oldValue };
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
 * A paste or clear over several rows of event_id, sent_at, mail_ref or claimed_at, or one such cell whose old value
 * Sheets did not tell (`singleCell`), judged by decideSystemBlockRow: each row's event_id is put back from its
 * payload, the others from the Log's ledger line, with a note on each cell; a value nothing records parks an
 * unfinished row in NEEDS_REVIEW. One Log read for the block, one write, one notes write.
 */
export function guardSystemBlock(scope: EditScope, touched: readonly QueueHeader[], singleCell = false): GuardOutcome {
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
    const decision = decideSystemBlockRow({ row, touched, history: histories.get(id) ?? [], wholeRows, singleCell, context });
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
