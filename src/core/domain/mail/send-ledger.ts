// The Log's send ledger: what each claim and send line records of a row's system columns, and what a row must hold by it.
import type { LogEntry } from '../sheet-ports';
import type { QueueHeader, QueueRow } from '../queue/queue-row';

/** A submission's lines gathered by several keys (its event_id, its identity) or lookups, each line once. */
export function distinctLines(lines: readonly LogEntry[]): LogEntry[] {
  const seen = new Set<string>();
  return lines.filter((line) => {
    const key = JSON.stringify([line.at, line.eventId, line.from, line.to, line.by, line.detail]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The system columns a ledger line can vouch for (event_id is the key the ledger is found by, so it cannot). */
export type LedgerColumn = Extract<QueueHeader, 'mail_ref' | 'sent_at' | 'claimed_at'>;

/** What one Log line records of the row's system columns, written at the end of its detail. */
export interface LedgerFacts {
  mailRef?: string;
  sentAt?: number;
  claimedAt?: number;
  /** The account the claiming execution ran as: MailApp sends from it, so its Sent folder is where a copy can be. */
  sender?: string;
  /**
   * The claim's run writes an ABOUT_TO_SEND line right before each mail of the batch (send-step.ts): a claim with this
   * fact and no such line after it was never mailed. Absent on claims of older versions, which wrote none.
   */
  marked?: boolean;
}

/** The detail of the Log line written right before a claimed row's mail goes (SENDING → SENDING). */
export const ABOUT_TO_SEND = 'about to send';

const FACTS_OPEN = ' [ledger:';
const FACTS_PATTERN = /\[ledger:([^\]]*)\]\s*$/;

/** `detail` with the facts appended in a form `factsOf` reads back: `… [ledger: mail_ref=FQ-7K2M9Q sent_at=2026-…Z]`. */
export function withLedgerFacts(detail: string, facts: LedgerFacts): string {
  const parts: string[] = [];
  if (facts.mailRef) parts.push(`mail_ref=${facts.mailRef}`);
  if (facts.sentAt !== undefined) parts.push(`sent_at=${new Date(facts.sentAt).toISOString()}`);
  if (facts.claimedAt !== undefined) parts.push(`claimed_at=${new Date(facts.claimedAt).toISOString()}`);
  // An address has no blank and no ']', so it reads back whole; an unknown account ('') is left out.
  if (facts.sender) parts.push(`sender=${facts.sender}`);
  if (facts.marked) parts.push('marked=1');
  return parts.length === 0 ? detail : `${detail}${FACTS_OPEN} ${parts.join(' ')}]`;
}

/** The facts a Log line's detail carries; {} for a line written without them (older lines, other moves). */
export function factsOf(detail: string): LedgerFacts {
  const match = FACTS_PATTERN.exec(detail);
  if (!match) return {};
  const facts: LedgerFacts = {};
  // The facts open with a blank, so the first part is '' and names no fact.
  for (const part of match[1].split(/\s+/)) {
    const [key, value = ''] = part.split('=');
    const time = Date.parse(value);
    if (key === 'mail_ref' && value !== '') facts.mailRef = value;
    else if (key === 'sent_at' && Number.isFinite(time)) facts.sentAt = time;
    else if (key === 'claimed_at' && Number.isFinite(time)) facts.claimedAt = time;
    else if (key === 'sender' && value !== '') facts.sender = value;
    else if (key === 'marked' && value === '1') facts.marked = true;
  }
  return facts;
}

/** The ledger's word on a submission: the status its last claim or send line left it in, and the facts of that line. */
export interface LedgerState {
  status: 'SENDING' | 'SENT' | 'NEEDS_REVIEW';
  facts: LedgerFacts;
  line: LogEntry;
}

/** Where a person marks a row SENT after checking by hand (a paste of SENT, logged from "(unknown)", is no such check). */
const CHECKED_BY_HAND: readonly string[] = ['NEEDS_REVIEW', 'FAILED'];

/**
 * What the ledger says a submission's row holds now, from its Log lines in time order (staff may sort the Log):
 * a claim (SENDING) or a send (SENT, by the system or marked by a person) stands until the system says nothing
 * left (back to READY/APPROVED or FAILED) or a person asks for a new reply (PENDING). A claim whose outcome is
 * unknown (NEEDS_REVIEW) keeps its mail_ref. Null when nothing stands.
 */
export function ledgerStateOf(history: readonly LogEntry[]): LedgerState | null {
  let state: LedgerState | null = null;
  for (const entry of inTimeOrder(history)) state = nextLedgerState(state, entry);
  return state;
}

/**
 * A submission's Log lines by time, lines of the same millisecond in the order the Log holds them: `sort` is stable
 * since ES2019 (V8 7.0), <https://v8.dev/blog/array-sort>, <https://github.com/tc39/ecma262/pull/1340>.
 */
export function inTimeOrder(history: readonly LogEntry[]): LogEntry[] {
  return [...history].sort((a, b) => a.at - b.at);
}

function nextLedgerState(state: LedgerState | null, entry: LogEntry): LedgerState | null {
  if (entry.from === entry.to) return state; // a refused edit, a put-back: no move
  const bySystem = entry.by === 'system';
  if (entry.to === 'SENDING' && bySystem) return { status: 'SENDING', facts: factsOf(entry.detail), line: entry };
  if (entry.to === 'SENT' && (bySystem || CHECKED_BY_HAND.includes(entry.from))) {
    return { status: 'SENT', facts: { mailRef: state?.facts.mailRef, ...factsOf(entry.detail) }, line: entry };
  }
  if (entry.to === 'NEEDS_REVIEW' && bySystem && state?.status === 'SENDING') return { status: 'NEEDS_REVIEW', facts: { mailRef: state.facts.mailRef }, line: entry };
  if (entry.to === 'PENDING' || (bySystem && entry.from === 'SENDING')) return null;
  return state;
}

/** The row's value of a ledger column, in the ledger's terms (times as epoch ms, '' and null as absent). */
function cellOf(row: QueueRow, column: LedgerColumn): string | number | undefined {
  if (column === 'mail_ref') return row.mailRef === '' ? undefined : row.mailRef;
  const time = column === 'sent_at' ? row.sentAt : row.claimedAt;
  return time === null ? undefined : time;
}

function factOf(facts: LedgerFacts, column: LedgerColumn): string | number | undefined {
  return column === 'mail_ref' ? facts.mailRef : column === 'sent_at' ? facts.sentAt : facts.claimedAt;
}

/** The columns each ledger status vouches for: what the row holds while it shows that status. */
const VOUCHED: Readonly<Record<LedgerState['status'], readonly LedgerColumn[]>> = {
  SENDING: ['mail_ref', 'claimed_at'],
  SENT: ['mail_ref', 'sent_at'],
  NEEDS_REVIEW: ['mail_ref'],
};

/** The columns each ledger status says are empty: the system clears them with the move that line records. */
const EMPTY_IN: Readonly<Record<LedgerState['status'], readonly LedgerColumn[]>> = {
  SENDING: ['sent_at'],
  SENT: ['claimed_at'],
  NEEDS_REVIEW: ['claimed_at'],
};

/** The ledger columns whose value the ledger knows for this row: none unless the row shows its ledger status. */
export function vouchedColumns(row: QueueRow, history: readonly LogEntry[]): LedgerColumn[] {
  const state = ledgerStateOf(history);
  if (state === null || state.status !== row.status) return [];
  return [...VOUCHED[state.status].filter((column) => factOf(state.facts, column) !== undefined), ...EMPTY_IN[state.status]];
}

/**
 * A row whose cells contradict their own status in a way only a person's edit makes (SENT without sent_at or
 * mail_ref, SENDING without claimed_at or mail_ref): the only rows processing looks up in the ledger, so a
 * run where nothing was changed by hand reads no Log line for it.
 */
export function looksEditedByHand(row: QueueRow): boolean {
  if (row.eventId === '') return false;
  if (row.status === 'SENT') return row.sentAt === null || row.mailRef === '';
  if (row.status === 'SENDING') return row.claimedAt === null || row.mailRef === '';
  return false;
}

export interface LedgerRepair {
  /** The row with the ledger's values put back. */
  row: QueueRow;
  columns: LedgerColumn[];
  /** The ledger line the values come from. */
  line: LogEntry;
}

/**
 * The one rule for the system columns: a row that shows the status its ledger line left it in holds that line's
 * mail_ref, sent_at and claimed_at, and nothing in the columns that move cleared (claimed_at once SENT). Returns the row with every column that disagrees put back, or null when the
 * row agrees (or the ledger vouches for nothing: no line stands, the row moved on, an older line without facts).
 */
export function ledgerRepairOf(row: QueueRow, history: readonly LogEntry[]): LedgerRepair | null {
  const state = ledgerStateOf(history);
  if (state === null || state.status !== row.status) return null;
  const known = VOUCHED[state.status].filter((column) => {
    const fact = factOf(state.facts, column);
    return fact !== undefined && fact !== cellOf(row, column);
  });
  const stray = EMPTY_IN[state.status].filter((column) => cellOf(row, column) !== undefined);
  const columns = [...known, ...stray];
  if (columns.length === 0) return null;
  const repaired: QueueRow = { ...row };
  for (const column of known) {
    if (column === 'mail_ref') repaired.mailRef = state.facts.mailRef as string;
    if (column === 'sent_at') repaired.sentAt = state.facts.sentAt as number;
    if (column === 'claimed_at') repaired.claimedAt = state.facts.claimedAt as number;
  }
  for (const column of stray) {
    if (column === 'sent_at') repaired.sentAt = null;
    if (column === 'claimed_at') repaired.claimedAt = null;
  }
  return { row: repaired, columns, line: state.line };
}

/** The Log line and cell note of a repair: what was put back, from which line, and why. */
export function describeRepair(repair: LedgerRepair, previous: QueueRow): string {
  const was = repair.columns.map((column) => `${column} ${show(cellOf(previous, column))} → ${show(cellOf(repair.row, column))}`).join(', ');
  return `put back ${was} from the Log's ${repair.line.to} line of ${new Date(repair.line.at).toISOString()}: these columns are formqueue's memory of this row (how a reply is never mailed twice)`;
}

function show(value: string | number | undefined): string {
  if (value === undefined) return '(empty)';
  return typeof value === 'number' ? new Date(value).toISOString() : value;
}
