// The run's Journal check: every submission the Journal holds has a row in Queue or Archive, or a Log that shows it finished; one that has none is put back for a person.
import { codeOf, messageOf } from '../domain/failures/errors';
import { configFor } from '../domain/config/form-config';
import { buildQueueRow } from '../domain/queue/submission-row';
import { parseTypeformBody } from '../domain/typeform/typeform-payload';
import { copiesToNote, isFinishedInLog, planJournalCheck, type JournalState } from './journal-check';
import { journalEntryOf, journalKeyOf, type JournalRecord } from '../domain/queue/journal-line';
import type { LogEntry, JournalStore } from '../domain/sheet-ports';
import { emptyRow, type QueueRow } from '../domain/queue/queue-row';
import { errorSummary } from '../domain/failures/redact';
import { distinctLines, ledgerStateOf } from '../domain/mail/send-ledger';
import { isSubmissionIdentity, logLineOf } from '../domain/queue/submission-identity';
import { isoTime, markGone, newBatch, raiseIncident, type Run } from './run-context';
import { commitBatch, noteRow, appendLog } from './run-writes';

/** A journaled submission whose row is gone, with what the Log says of it. */
interface Missing {
  key: string;
  record: JournalRecord | undefined;
  history: LogEntry[];
}

/**
 * Reads the Journal lines added since the last check, and looks at them and at the submissions still open then: a
 * submission with no row of its own in Queue that is not archived and whose Log does not show it finished was removed
 * by hand (a deleted row, a row pasted over) and is put back in NEEDS_REVIEW, with one incident. Unfinished rows the
 * Journal lacks are journaled. The new state is left in the summary for the tick's closing property write.
 */
export function checkJournal(run: Run): void {
  const journal = run.deps.journal;
  if (!journal) return;
  const state: JournalState = run.deps.journalState ?? { next: 2, open: [] };
  let read;
  try {
    read = journal.linesFrom(state.next);
  } catch (error) {
    // A deployment from before the Journal gets it from Set up; until then replies still go out, and staff are told.
    if (codeOf(error) !== 'CONFIG_MISSING') throw error;
    run.summary.journalMissing = messageOf(error);
    return;
  }
  const { lines, next } = read;
  const plan = planJournalCheck([...state.open, ...lines.map((line) => line.key)], run.rows);
  const now = run.deps.clock.now();
  journal.append(plan.unjournaled.map((row) => journalEntryOf(row, row.receivedAt ?? now)));
  const { restored, open } = plan.missing.length === 0 ? { restored: [], open: [] } : restoreMissing(run, journal, plan.missing);
  run.summary.journal = { next, open: [...plan.open, ...open, ...restored] };
  if (restored.length === 0) markGone(run, ['ROWS_RESTORED']);
  noteCopies(run);
}

/** A copy of a submission's row waiting for a person gets a reason naming the other rows (copiesToNote). */
function noteCopies(run: Run): void {
  const copies = copiesToNote(run.rows);
  if (copies.length === 0) return;
  const batch = newBatch();
  for (const { row, others } of copies) {
    const before = row.error.trim() === '' ? '' : ` (its reason before: ${row.error})`;
    const error = errorSummary(
      'COPIED',
      `row(s) ${others.join(', ')} hold the same submission (a row copied or pasted over another); keep one and set SKIPPED on the others: whichever you keep is mailed once${before}`,
      run.secrets,
      600,
    );
    noteRow(run, batch, row, error, { error });
  }
  commitBatch(run, batch);
}

/** The archived keys hold bare event ids and response tokens (QueueStore.archivedKeys). */
function isArchived(key: string, archived: ReadonlySet<string>): boolean {
  const bare = isSubmissionIdentity(key) ? key.slice(key.lastIndexOf(':') + 1) : key.slice(key.indexOf(':') + 1);
  return archived.has(bare);
}

/**
 * Puts back every missing submission that Queue read again, the Archive and the Log do not account for; returns the
 * keys put back, and the keys Queue holds after all (open: the next check looks at them again).
 */
function restoreMissing(run: Run, journal: JournalStore, keys: readonly string[]): { restored: string[]; open: string[] } {
  // doPost runs without the run's lock and appends a row before its Journal line: a line read after the run read
  // Queue may name a row appended in between. Read once more (only when something looks missing) before putting back.
  run.rows = run.deps.queue.readAll();
  const recheck = planJournalCheck(keys, run.rows);
  const open = recheck.open.filter((key) => keys.includes(key));
  const archived = recheck.missing.length === 0 ? new Set<string>() : run.deps.queue.archivedKeys();
  const gone = recheck.missing.filter((key) => !isArchived(key, archived));
  if (gone.length === 0) return { restored: [], open };
  const records = journal.recordsOf(gone);
  const eventIds = Array.from(new Set(records.map((record) => record.eventId).filter((id) => id !== '')));
  const histories = run.deps.audit.historiesOf([...gone.filter(isSubmissionIdentity), ...eventIds]);
  const missing: Missing[] = gone.map((key) => {
    const own = records.filter((record) => record.key === key);
    const lines = [...(histories.get(key) ?? []), ...own.flatMap((record) => histories.get(record.eventId) ?? [])];
    return { key, record: own[0], history: distinctLines(lines) };
  });
  const toRestore = missing.filter((item) => item.record !== undefined && !isFinishedInLog(item.history));
  const lost = missing.filter((item) => item.record === undefined);
  if (toRestore.length === 0 && lost.length === 0) return { restored: [], open };
  const now = run.deps.clock.now();
  const rows = toRestore.map((item) => restoredRow(run, item.record as JournalRecord, item.history, now));
  run.deps.queue.appendRows(rows);
  appendLog(
    run,
    rows.map((row) => logLineOf(row, { at: now, from: '', to: 'NEEDS_REVIEW', by: 'system', detail: `put back from the Journal line of ${isoTime(row.receivedAt ?? now)}: the row was removed from Queue by hand before the submission finished` })),
  );
  run.rows = run.deps.queue.readAll();
  const restoredKeys = new Set(toRestore.map((item) => item.key));
  const rowNumbers = run.rows.filter((row) => row.error.startsWith('RESTORED: ') && restoredKeys.has(journalKeyOf(row))).map((row) => row.rowNumber);
  raiseIncident(run, 'ROWS_RESTORED', restoredDetail(toRestore.length, lost.map((item) => item.key)), rowNumbers);
  return { restored: toRestore.map((item) => item.key), open };
}

function restoredDetail(restored: number, lost: readonly string[]): string {
  const parts = [];
  if (restored > 0) parts.push(`${restored} submission(s) were removed from Queue by hand and restored from the Journal, in NEEDS_REVIEW (reason RESTORED)`);
  if (lost.length > 0) parts.push(`${lost.length} removed submission(s) have no readable Journal line to restore them from (${lost.slice(0, 5).join(', ')}${lost.length > 5 ? ', …' : ''}): find them in Typeform's responses`);
  return parts.join('; ');
}

/**
 * The row as intake made it from the journaled payload, in NEEDS_REVIEW with the reason: a person decides whether it
 * is answered (PENDING) or dropped (SKIPPED). A send claim the Log shows for it is named, with its mail_ref, so the
 * person looks in Sent first.
 */
function restoredRow(run: Run, record: JournalRecord, history: readonly LogEntry[], now: number): QueueRow {
  const row = rebuiltRow(run, record);
  const claim = ledgerStateOf(history);
  const claimed = claim !== null && claim.facts.mailRef ? `; the Log shows a send claimed at ${isoTime(claim.line.at)} (${claim.facts.mailRef}) that may have gone: look in Sent before you set PENDING` : '';
  const error = errorSummary(
    'RESTORED',
    `its row was removed from Queue by hand (noticed ${isoTime(now)}) and put back from the Journal; set PENDING to answer it, SKIPPED to drop it${claimed}`,
    run.secrets,
    600,
  );
  return { ...row, status: 'NEEDS_REVIEW', mailRef: claim?.facts.mailRef ?? '', error, updatedAt: now };
}

function rebuiltRow(run: Run, record: JournalRecord): QueueRow {
  const bare: QueueRow = { ...emptyRow(), eventId: record.eventId, payload: record.payload, receivedAt: record.receivedAt };
  const json = run.deps.readPayload ? run.deps.readPayload(bare) : record.payload;
  const parsed = parseTypeformBody(json);
  if (!parsed.ok) {
    const [formId, token] = isSubmissionIdentity(record.key) ? record.key.slice(3).split(':') : ['', ''];
    return { ...bare, formId, responseToken: token ?? '', submission: '(the answers are in the payload, which could not be read back)' };
  }
  const config = configFor(parsed.delivery.formId, run.forms) ?? { formId: parsed.delivery.formId, enabled: true, recipientField: '' };
  const { row } = buildQueueRow(parsed.delivery, record.receivedAt, config);
  return { ...row, payload: record.payload };
}
