// A paste or clear of system cells with no old value told: each row's event_id from its payload, the rest from the Log's ledger.
import type { LogEntry } from '../domain/sheet-ports';
import type { QueueHeader, QueueRow } from '../domain/queue/queue-row';
import { describeRepair, ledgerRepairOf, vouchedColumns, type LedgerColumn, type LedgerRepair } from '../domain/mail/send-ledger';
import { decideSystemColumnEdit } from './edit-guard';
import { staffName, type StaffContext } from './staff-moves';

/**
 * The event_id a row's payload was delivered with: the payload cell is the delivery's JSON (a recovered row's too,
 * with its reconciled: id), so it tells who the row is even after its event_id cell was pasted over. Null when
 * the payload is in the Payloads sheet, blank, or not a delivery.
 */
export function eventIdOfPayload(payload: string): string | null {
  // A placeholder or blank cell is no JSON, and JSON that is no object has no event_id: both come out null.
  try {
    const id = (JSON.parse(payload) as { event_id?: unknown }).event_id;
    return typeof id === 'string' && id !== '' ? id : null;
  } catch {
    return null;
  }
}

export type BlockRowDecision =
  /** The row agrees with its payload and the ledger in every touched column. */
  | { kind: 'intact' }
  /** `row` is what the row must hold now (values put back, or parked); each of `columns` gets `note`. */
  | { kind: 'changed'; row: QueueRow; columns: QueueHeader[]; note: string; log: LogEntry };

/**
 * One row of a multi-cell edit that touched system columns, or one cell whose old value Sheets did not tell (a
 * paste: edit-event.ts, toldOldValue). Sheets gives no old values for it, but two records
 * independent of the cells do: the payload names the event_id, and the Log's ledger line (found by that event_id)
 * the mail_ref, sent_at and claimed_at of a row in the status the line left it in (send-ledger.ts). What they
 * vouch for and differs is put back; a touched column neither vouches for is judged as a paste
 * (decideSystemColumnEdit: an unfinished row parked in NEEDS_REVIEW), except in a block of whole rows, where a
 * sort moves every cell together.
 */
export function decideSystemBlockRow(input: {
  row: QueueRow;
  touched: readonly QueueHeader[];
  /** The Log lines of the row's event_id as put back (eventIdOfPayload), or as it stands. */
  history: readonly LogEntry[];
  wholeRows: boolean;
  /** One cell whose old value Sheets did not tell (a paste): judged the same way, and named so in the note. */
  singleCell?: boolean;
  context: StaffContext;
}): BlockRowDecision {
  const { touched, history, wholeRows, context } = input;
  const seen = input.row;
  if (seen.eventId === '' && seen.payload === '') return { kind: 'intact' };
  const fromPayload = touched.includes('event_id') ? eventIdOfPayload(seen.payload) : seen.eventId;
  const putBack: QueueHeader[] = [];
  let row = seen;
  if (fromPayload !== null && fromPayload !== seen.eventId) {
    row = { ...row, eventId: fromPayload };
    putBack.push('event_id');
  }
  const details: string[] = [];
  if (putBack.includes('event_id')) details.push(`put back event_id from the row's payload (${seen.eventId || '(empty)'} → ${row.eventId})`);
  const repair = touchedPart(ledgerRepairOf(row, history), touched);
  if (repair !== null) {
    for (const column of repair.columns) row = { ...row, ...columnOf(repair.row, column) };
    putBack.push(...repair.columns);
    details.push(describeRepair(repair, seen));
  }

  const vouched = new Set<QueueHeader>(vouchedColumns(row, history));
  if (fromPayload !== null) vouched.add('event_id');
  const unknown = touched.filter((column) => !vouched.has(column));
  let columns = putBack;
  if (unknown.length > 0 && !wholeRows) {
    const parked = decideSystemColumnEdit(unknown[0], null, row, context);
    if (parked.kind === 'park') {
      row = parked.row;
      details.push(parked.log.detail);
      columns = [...putBack, ...unknown];
    }
  }
  if (details.length === 0) return { kind: 'intact' };
  const by = staffName(context.user);
  const edit = input.singleCell ? `edit of ${touched.join(', ')} with no previous value given` : `multi-cell edit of ${touched.join(', ')}`;
  const detail = `${edit}: ${details.join('; ')}`;
  return {
    kind: 'changed',
    row: { ...row, updatedAt: context.now },
    columns,
    note: `formqueue (edit by ${by}): ${detail}.`,
    log: { at: context.now, eventId: row.eventId, from: String(seen.status), to: String(row.status), by, detail },
  };
}

/** The part of the ledger's repair in the columns this edit touched (it changed no other), or null when none is left. */
function touchedPart(repair: LedgerRepair | null, touched: readonly QueueHeader[]): LedgerRepair | null {
  if (repair === null) return null;
  const columns = repair.columns.filter((column) => touched.includes(column));
  return columns.length === 0 ? null : { ...repair, columns };
}

function columnOf(row: QueueRow, column: LedgerColumn): Partial<QueueRow> {
  if (column === 'mail_ref') return { mailRef: row.mailRef };
  if (column === 'sent_at') return { sentAt: row.sentAt };
  return { claimedAt: row.claimedAt };
}
