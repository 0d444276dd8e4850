// What core needs from the spreadsheet (Queue, Archive, Journal, Config, Suppressed, Tally, Rejected, Log), each a few methods wide; src/gas adapts the sheets to these, tests plug in memory.
import type { QueueHeader, QueueRow } from './queue/queue-row';
import type { RejectionKind } from './typeform/rejection-kinds';

/** One form's row of the Config sheet (`*` is the default for every form). */
export interface FormConfig {
  formId: string;
  enabled: boolean;
  /** Prompt template: {{answers}}, {{field_ref}} … */
  prompt: string;
  /** Overrides GEMINI_MODEL for this form when set. */
  model: string;
  subject: string;
  body: string;
  /** Field ref of the answer to mail; empty = the form's first email answer. */
  recipientField: string;
  approvalRequired: boolean;
  replyTo: string;
  bcc: string;
  senderName: string;
  /** The hours replies may be mailed ("08:00-20:00", in the form's time_zone, else the script's); empty = any time (send-window.ts). */
  sendHours: string;
  /** Config `allowed_link_domains`, as typed: the domains a reply may link to without a person (blank: none). */
  allowedLinkDomains: string;
  /** Config `allow_phone_numbers`: a reply may name phone numbers without a person. */
  allowPhoneNumbers: boolean;
  /** Config `time_zone`: the IANA zone its send_hours are read in ("Europe/Berlin"); empty = the script's time zone. */
  timeZone?: string;
  /** What could not be read in this form's Config row (src/core/domain/config/config-check.ts), said in CONFIG_SHEET_INVALID; absent: none. */
  problems?: readonly string[];
}

/** Where an already-seen delivery was found. */
export interface DuplicateHit {
  sheet: 'Queue' | 'Archive';
  rowNumber: number;
}

export interface RejectedDelivery {
  at: number;
  reason: string;
  formId: string;
  eventId: string;
  /** The raw body, or a note that it was not kept (flood bound), or a pointer to `bodyParts`. */
  body: string;
  /** A body too long for a cell: appended to Payloads under `key` before the Rejected row. */
  bodyParts?: { key: string; parts: readonly string[] };
}

/**
 * One row of the Tally sheet. bytes > 0: a rejection that claims room for what it keeps in Rejected; 0: a rejection
 * counted without keeping anything, or (a delivery kind) kept whatever the room; < 0: a claim given back (not a
 * rejection of its own).
 */
export interface TallyEntry {
  /** The calendar day in the script's time zone, "2026-12-01". */
  day: string;
  bytes: number;
  /** Why it was rejected; absent on a claim given back (and on rows counted before kinds were kept). */
  kind?: RejectionKind;
}

export interface TallyRow extends TallyEntry {
  /** Unique per row (the adapter draws it): what the folded totals remember as folded. */
  id: string;
}

/** The Tally sheet. Only Sheet.appendRow adds to it; only processQueue's fold, with the script lock held, deletes from it. */
export interface TallyStore {
  /** One atomic appendRow (no other execution's write lands in between, whoever runs it), committed before it returns. */
  append(entry: TallyEntry): void;
  /** The rows not folded yet, in the order they were appended. */
  read(): TallyRow[];
  /** Deletes the first `count` rows: the ones a fold has just added to the totals. */
  deleteFirst(count: number): void;
}

/** The Queue, Archive, Payloads and Rejected sheets as intake sees them. */
export interface IntakeSheets {
  /** Where rejections are counted and their room claimed (src/core/domain/typeform/rejection-tally.ts). */
  tally: TallyStore;
  /** The row holding this submission in Queue, or in Archive when `archive` says it may be there (domain/queue/archive.ts). */
  findDuplicate(eventId: string, responseToken: string, where: { archive: boolean }): DuplicateHit | null;
  /**
   * Appends the payload chunks to Payloads, then the row to Queue, each append atomic whoever else writes
   * (a retry after a failure in between writes the chunks again: readers count each part once). Values are text.
   */
  appendQueueRow(row: QueueRow, payloadChunks: readonly string[]): void;
  /**
   * The submission's line in the Journal, appended right after its Queue row, so that no staff edit of Queue can erase
   * it; throws when the Journal cannot take it (the next processQueue run journals the row instead).
   */
  appendJournal(entry: JournalEntry): void;
  appendRejected(entry: RejectedDelivery): void;
  /** Commits pending writes: called before answering, so an answered delivery is persisted. */
  flush(): void;
}

/** What a row must still show for a write that carries no row of its own (a cell note, an archive move) to land on it. */
export type RowIdentity = Pick<QueueRow, 'eventId' | 'status'>;

/** A note for one Queue cell, where its row stands now. */
export interface CellNote {
  rowNumber: number;
  /** What the row must still show for the note to be written (compare-and-set, as for writeRows). */
  expected: RowIdentity;
  header: QueueHeader;
  note: string;
}

/** The Queue as processing and staff actions see it. */
export interface QueueStore {
  /** Every row of Queue, in sheet order. */
  readAll(): QueueRow[];
  /** The given rows as they are now (claim read-back); a row that no longer exists is left out. */
  readRows(rowNumbers: readonly number[]): QueueRow[];
  /**
   * Compare-and-set by identity, batched: `read[i]` is row i as its writer read it. Each row is written where its
   * submission stands right now (a sort, an insert or a delete above may have moved it), provided it still holds
   * what was read (src/core/domain/queue/row-write.ts: same event_id and status, same claim), and only the cells the writer
   * changed from `read[i]` are written: every other cell keeps what it holds now. Returns, in input order, each row
   * as written (with the row number it was written at), or null when it was not written because the submission is
   * gone, changed since, or cannot be told apart from another.
   */
  writeRows(rows: readonly QueueRow[], read: readonly QueueRow[]): (QueueRow | null)[];
  /**
   * The rows of one staff edit, written where the edit put them (`read[i].rowNumber`): a paste may have left a row
   * no event_id, or another row's, so they are not found by identity. All or nothing: written only when every row
   * still holds every field it was read with (row-write.ts, unchangedSince), as one box around the changed cells, and
   * only the fields each writer changed from `read[i]`; false, writing nothing, when any row changed since.
   */
  writeEditedRows(rows: readonly QueueRow[], read: readonly QueueRow[]): boolean;
  /** Moves finished rows to Archive and removes them from Queue, each found by its event_id and status as writeRows does; returns those moved. */
  archiveRows(rows: readonly QueueRow[]): QueueRow[];
  /**
   * Sets a note on each given cell (row number and column) where its row's submission stands now, provided it still
   * shows `expected` (as writeRows; a note whose row is gone or changed is not written), batched: one read and one
   * write of the notes of the box the cells span, so the notes of the cells between them stay as they are.
   */
  noteCells(notes: readonly CellNote[]): void;
  /** Event ids and response tokens already archived (dedupe must still see them). */
  archivedKeys(): Set<string>;
  /** Appends rows at the bottom of Queue, each one atomic append whoever else writes (a submission put back from the Journal). */
  appendRows(rows: readonly QueueRow[]): void;
  flush(): void;
}

/** What the Journal keeps of one accepted submission: enough to put its Queue row back (src/core/journal). */
export interface JournalEntry {
  receivedAt: number;
  /** journalKeyOf the row: its identity, or `event:<event_id>` for a row without a response token. */
  key: string;
  eventId: string;
  /** The compact payload JSON, or the row's pointer into the Payloads sheet for a payload too long for a cell. */
  payload: string;
}

/** A line as the Journal holds it, with the sheet row it is at. */
export interface JournalRecord extends JournalEntry {
  rowNumber: number;
}

/** The Journal sheet: one line per accepted submission, appended, never changed (src/core/journal). */
export interface JournalStore {
  /** The key and event_id of every line from row `from` to the last (one read), and the row after the last. */
  linesFrom(from: number): { lines: { rowNumber: number; key: string; eventId: string }[]; next: number };
  /** The full lines holding these keys (one search inside Sheets, then the lines found), in sheet order. */
  recordsOf(keys: readonly string[]): JournalRecord[];
  /** Every key the Journal holds (one column read): the Typeform check's list of what was ever accepted. */
  allKeys(): Set<string>;
  /** Each entry one atomic append. */
  append(entries: readonly JournalEntry[]): void;
}

export interface ConfigStore {
  readForms(): FormConfig[];
}

/** One line of the Suppressed sheet (src/core/domain/mail/suppression.ts). */
export interface SuppressedEntry {
  /** As written; a line may hold "Ann <ann@example.org>". */
  address: string;
  reason: string;
  /** "bounce" for the bounce check's lines, else whoever a person wrote. */
  addedBy: string;
  /** Epoch ms, or null when the cell is empty or not a time. */
  addedAt: number | null;
}

/** The Suppressed sheet (src/core/domain/mail/suppression.ts). */
export interface SuppressionList {
  /** Every line (one read); none when the sheet does not exist yet (nobody could have added one). */
  read(): SuppressedEntry[];
  /** Each entry one atomic append; throws CONFIG_MISSING when the sheet does not exist (Set up makes it). */
  add(entries: readonly SuppressedEntry[]): void;
}

/** One audit line of the Log sheet. */
export interface LogEntry {
  at: number;
  eventId: string;
  from: string;
  to: string;
  /** "system" or the staff member's email. */
  by: string;
  detail: string;
  /**
   * The submission's identity (submission-identity.ts), so the send ledger finds a submission's lines whatever the
   * event_id of the row they were written for; absent on lines of older versions and on lines about no row.
   */
  submission?: string;
}

export interface AuditLog {
  append(entries: readonly LogEntry[]): void;
  /**
   * Every Log line of each key, in sheet order: the record of its moves, independent of the row's cells. A key is an
   * event_id (the lines of rows with that event_id) or a submission identity (`tf:…`, the lines of every row of that
   * submission). One call for a whole block of rows (a sort hands the guard every row of the Queue at once).
   */
  historiesOf(keys: readonly string[]): Map<string, LogEntry[]>;
}
