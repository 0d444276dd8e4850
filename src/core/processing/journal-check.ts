// The Journal check's decisions: which journaled submissions have no row in Queue, which rows the Journal lacks, what stays open.
import { ledgerStateOf, inTimeOrder } from '../domain/mail/send-ledger';
import type { LogEntry } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { FINISHED_STATUSES } from '../domain/queue/statuses';
import { journalKeyOf } from '../domain/queue/journal-line';

/** Where the last check stopped: the Journal row to read from next, and the submissions still open then. */
export interface JournalState {
  next: number;
  open: string[];
}

export const JOURNAL_STATE_PROPERTY = 'FQ_JOURNAL';
/** Script Properties hold at most 9 KB a value: the state is written in parts of this many characters. */
const PART_CHARS = 8000;
/** At most this many parts (80 KB: about 1,700 open submissions); past it the oldest open keys are dropped, and said. */
const MAX_PARTS = 10;

export interface JournalPlan {
  /** Keys whose submission has no row in Queue that holds it: the Archive and the Log decide whether it is put back. */
  missing: string[];
  /** Unfinished rows no line of the check covers (the append at intake failed, a row came back): journaled now. */
  unjournaled: QueueRow[];
  /** Keys of submissions with an unfinished row in Queue: looked at again by the next check. */
  open: string[];
}

/** A DUPLICATE row names the row that answers its submission: it holds nothing (processing/duplicates.ts). */
function holds(row: QueueRow): boolean {
  return row.status !== 'DUPLICATE';
}

function isFinished(row: QueueRow): boolean {
  return (FINISHED_STATUSES as readonly string[]).includes(String(row.status));
}

/**
 * Each candidate (the submissions open at the last check and the lines journaled since) is open while a row of its
 * own is unfinished, settled once its rows are finished (SENT, SKIPPED, TEST: deleting such a row is a tidy-up), and
 * missing when no row holds it. A row is its submission's by identity (or by event_id when it has no token), wherever
 * it stands: staff sort, move and paste rows at any time.
 */
export function planJournalCheck(candidates: readonly string[], rows: readonly QueueRow[]): JournalPlan {
  const byKey = new Map<string, QueueRow[]>();
  for (const row of rows.filter(holds)) {
    const key = journalKeyOf(row);
    if (key === '') continue;
    byKey.set(key, [...(byKey.get(key) ?? []), row]);
  }
  const wanted = new Set(candidates.filter((key) => key !== ''));
  const plan: JournalPlan = { missing: [], unjournaled: [], open: [] };
  for (const key of wanted) {
    const own = byKey.get(key) ?? [];
    if (own.length === 0) plan.missing.push(key);
    else if (own.some((row) => !isFinished(row))) plan.open.push(key);
  }
  for (const [key, own] of byKey) {
    if (wanted.has(key)) continue;
    const unfinished = own.filter((row) => !isFinished(row));
    if (unfinished.length > 0) {
      plan.unjournaled.push(unfinished[0]);
      plan.open.push(key);
    }
  }
  return plan;
}

/** The states in which a row waits for a person: a copy there is neither collapsed nor answered by itself. */
const PERSON_STATES: readonly string[] = ['NEEDS_REVIEW', 'FAILED', 'AWAITING_APPROVAL'];

export const COPY_REASON_PREFIX = 'COPIED: ';

/**
 * Rows of one submission that a person must see as copies: when a submission has several rows that are not DUPLICATE
 * (a whole row copied or pasted over another by staff), processing collapses the ones that have not started; a copy
 * waiting for a person (NEEDS_REVIEW, FAILED, AWAITING_APPROVAL) is not collapsed, so its reason must say that another
 * row holds the same submission. Whichever the person keeps is mailed once (the send ledger knows the submission).
 * Returns each such row not already saying so, with the other rows' numbers.
 */
export function copiesToNote(rows: readonly QueueRow[]): { row: QueueRow; others: number[] }[] {
  const byKey = new Map<string, QueueRow[]>();
  for (const row of rows.filter(holds)) {
    const key = journalKeyOf(row);
    if (key !== '') byKey.set(key, [...(byKey.get(key) ?? []), row]);
  }
  const found: { row: QueueRow; others: number[] }[] = [];
  for (const own of byKey.values()) {
    if (own.length < 2) continue;
    for (const row of own) {
      if (!PERSON_STATES.includes(String(row.status)) || row.error.startsWith(COPY_REASON_PREFIX)) continue;
      found.push({ row, others: own.filter((other) => other !== row).map((other) => other.rowNumber) });
    }
  }
  return found;
}

/**
 * Whether the Log shows a submission whose row is gone as finished, so that nothing is put back: its reply was mailed
 * (the send ledger says SENT), or its last move was a person's skip or a test delivery's. Anything else, a claim whose
 * outcome nobody knows included, goes back to a person.
 */
export function isFinishedInLog(history: readonly LogEntry[]): boolean {
  if (ledgerStateOf(history)?.status === 'SENT') return true;
  const moves = inTimeOrder(history).filter((entry) => entry.from !== entry.to);
  const last = moves[moves.length - 1];
  return last !== undefined && (last.to === 'SKIPPED' || last.to === 'TEST');
}

/** The state as the properties hold it; a missing or unreadable one starts from the Journal's first line. */
export function readJournalState(snapshot: Readonly<Record<string, string>>): JournalState {
  let text = '';
  for (let part = 0; part < MAX_PARTS; part++) {
    const value = snapshot[partKey(part)];
    if (value === undefined || value === '') break;
    text += value;
  }
  try {
    const json = JSON.parse(text) as Partial<JournalState>;
    const next = Number(json.next);
    return { next: Number.isInteger(next) && next >= 2 ? next : 2, open: Array.isArray(json.open) ? json.open.map(String) : [] };
  } catch {
    return { next: 2, open: [] };
  }
}

/**
 * The properties that store `state` (parts no longer needed are emptied), and how many open keys did not fit: those
 * submissions are no longer watched, which the caller reports.
 */
export function journalStateProperties(state: JournalState, snapshot: Readonly<Record<string, string>>): { properties: Record<string, string>; dropped: number } {
  let open = state.open;
  let text = JSON.stringify({ next: state.next, open });
  let dropped = 0;
  while (text.length > PART_CHARS * MAX_PARTS && open.length > 0) {
    const cut = Math.max(1, Math.ceil(open.length / 10));
    open = open.slice(cut);
    dropped += cut;
    text = JSON.stringify({ next: state.next, open });
  }
  const properties: Record<string, string> = {};
  for (let part = 0; part < MAX_PARTS; part++) {
    const chunk = text.slice(part * PART_CHARS, (part + 1) * PART_CHARS);
    if (chunk !== '' || (snapshot[partKey(part)] ?? '') !== '') properties[partKey(part)] = chunk;
  }
  return { properties, dropped };
}

function partKey(part: number): string {
  return part === 0 ? JOURNAL_STATE_PROPERTY : `${JOURNAL_STATE_PROPERTY}_${part + 1}`;
}
