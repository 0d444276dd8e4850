// The run's copy of the send ledger (the Log): read once, kept up to date with the run's own lines, asked per row.
import type { LogEntry } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { distinctLines } from '../domain/mail/send-ledger';
import { submissionIdentity } from '../domain/queue/submission-identity';
import type { Run } from './run-context';

/**
 * The Log lines of the given submissions, the send ledger (src/core/domain/mail/mail-guard.ts): read once per run for all
 * of them, then kept up to date with this run's own lines. Nothing else can add a send claim meanwhile: only a
 * processQueue run writes one, and this run holds the script lock. A person's line can only settle a claim,
 * so a claim found here is read again before it is acted on (ledgerRecheck).
 */
export function ledgerOf(run: Run, rows: readonly QueueRow[]): void {
  const missing = Array.from(new Set(rows.flatMap(ledgerKeys).filter((key) => !run.ledger.has(key))));
  if (missing.length === 0) return;
  const found = run.deps.audit.historiesOf(missing);
  for (const key of missing) run.ledger.set(key, found.get(key) ?? []);
}

/**
 * The send ledger of the row's submission: the lines of its event_id and of its identity (a row of the same response
 * that came in under another event_id: a recovered response, a redelivery after the first row was removed), each line
 * once. A submission claimed or mailed through any row is claimed or mailed for all of them.
 */
export function submissionLedger(run: Run, row: QueueRow): LogEntry[] {
  ledgerOf(run, [row]);
  return distinctLines(ledgerKeys(row).flatMap((key) => run.ledger.get(key) ?? []));
}

/** The row's send ledger as the Log holds it now (a claim the run's copy shows is checked against a person's later line). */
export function ledgerRecheck(run: Run, row: QueueRow): LogEntry[] {
  const keys = ledgerKeys(row);
  const fresh = run.deps.audit.historiesOf(keys);
  for (const key of keys) run.ledger.set(key, fresh.get(key) ?? []);
  return distinctLines(keys.flatMap((key) => fresh.get(key) ?? []));
}

/** The keys a row's ledger is found by: its event_id, and its identity when it has one. */
function ledgerKeys(row: QueueRow): string[] {
  return [row.eventId, submissionIdentity(row)].filter((key) => key !== '');
}
