// The run's ledger step: system columns a person changed (while the on-edit guard could not run) are put back from the Log.
import { describeRepair, ledgerRepairOf, looksEditedByHand } from '../domain/mail/send-ledger';
import type { CellNote } from '../domain/sheet-ports';
import { newBatch, type Run } from './run-context';
import { commitBatch } from './run-writes';

/**
 * The on-edit trigger puts back a person's change to sent_at, mail_ref or claimed_at, but Google refuses it when 30
 * executions of the deployer already run (a burst of deliveries), and then nothing judged the edit. Each full run
 * therefore looks up, in the Log, the rows whose cells contradict their own status (SENT without sent_at …) and
 * puts back what the ledger line recorded, with a note on each cell and a Log line; compare-and-set by event_id
 * and status, so a row a person moved since is left alone. A run whose rows all agree reads no Log line for this.
 */
export function restoreFromLedger(run: Run): void {
  const suspects = run.rows.filter(looksEditedByHand);
  if (suspects.length === 0) return;
  const histories = run.deps.audit.historiesOf(suspects.map((row) => row.eventId));
  const batch = newBatch();
  const notes = new Map<string, { columns: readonly CellNote['header'][]; note: string }>();
  const now = run.deps.clock.now();
  for (const row of suspects) {
    const repair = ledgerRepairOf(row, histories.get(row.eventId) ?? []);
    if (repair === null) continue;
    const detail = describeRepair(repair, row);
    batch.rows.push({ ...repair.row, updatedAt: now });
    batch.read.push(row);
    batch.entries.push({ at: now, eventId: row.eventId, from: String(row.status), to: String(row.status), by: 'system', detail });
    notes.set(row.eventId, { columns: repair.columns, note: `formqueue ${detail}.` });
  }
  const written = commitBatch(run, batch);
  const cellNotes: CellNote[] = written.flatMap((row) => {
    const repaired = notes.get(row.eventId);
    return repaired === undefined ? [] : repaired.columns.map((header) => ({ rowNumber: row.rowNumber, expected: { eventId: row.eventId, status: row.status }, header, note: repaired.note }));
  });
  run.deps.queue.noteCells(cellNotes);
}
