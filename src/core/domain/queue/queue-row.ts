// The Queue row: its columns (by header name, in the order of docs/configuration.md#the-sheets) and the one mapper between sheet values and rows.
import type { Status } from './statuses';

/** The Queue sheet's header cells, exactly; staff may add their own columns to the right. */
export const QUEUE_HEADERS = [
  'status',
  'event_id',
  'received_at',
  'form_id',
  'response_token',
  'recipient',
  'submission',
  'payload',
  'attempts',
  'next_attempt_at',
  'claimed_at',
  'result',
  'sent_at',
  'mail_ref',
  'error',
  'updated_at',
] as const;

export type QueueHeader = (typeof QUEUE_HEADERS)[number];

/** Columns whose values are times; everything else is text except `attempts`. */
export const TIME_HEADERS: readonly QueueHeader[] = ['received_at', 'next_attempt_at', 'claimed_at', 'sent_at', 'updated_at'];

/** Number format per column: respondent and model text is plain text ('@') so `=…` never becomes a formula. */
export const QUEUE_NUMBER_FORMATS: Readonly<Record<QueueHeader, string>> = {
  status: '@',
  event_id: '@',
  received_at: 'yyyy-mm-dd hh:mm:ss',
  form_id: '@',
  response_token: '@',
  recipient: '@',
  submission: '@',
  payload: '@',
  attempts: '0',
  next_attempt_at: 'yyyy-mm-dd hh:mm:ss',
  claimed_at: 'yyyy-mm-dd hh:mm:ss',
  result: '@',
  sent_at: 'yyyy-mm-dd hh:mm:ss',
  mail_ref: '@',
  error: '@',
  updated_at: 'yyyy-mm-dd hh:mm:ss',
};

/** One submission's row. Times are epoch milliseconds (null when the cell is empty). */
export interface QueueRow {
  /** 1-based sheet row; 0 for a row not yet written. */
  rowNumber: number;
  /** As read: a status staff mistyped is kept verbatim so it can be reported and put back. */
  status: Status | string;
  /** Typeform's `event_id`, the dedupe key. */
  eventId: string;
  receivedAt: number | null;
  formId: string;
  /** Typeform's `form_response.token`: the second dedupe key. */
  responseToken: string;
  recipient: string;
  /** The answers as readable `Question: answer` lines. */
  submission: string;
  /** The compact raw JSON, or a pointer into the Payloads sheet when it is too long for a cell. */
  payload: string;
  /** Generation tries so far. */
  attempts: number;
  /** A PENDING row is not generated before this time. */
  nextAttemptAt: number | null;
  /** When the current in-flight step (GENERATING, SENDING) started: stale detection and claim read-back. */
  claimedAt: number | null;
  /** Gemini's text, possibly edited by staff: what is mailed. */
  result: string;
  /** Set once a send was attempted to completion; a row with sent_at is never mailed again. */
  sentAt: number | null;
  /** Short unique reference printed in the mail (e.g. FQ-7K2M9Q). */
  mailRef: string;
  /** The last failure: a short redacted summary starting with its code. */
  error: string;
  updatedAt: number | null;
}

/** Where each of our columns sits in a sheet whose header row was read; -1 when missing. */
export type ColumnIndex = Readonly<Record<QueueHeader, number>>;

/**
 * A header row read as formqueue's columns: the width ends at the last named cell (one of only spaces names nothing),
 * so a staff column with a header is carried through every write and one without is never touched. At least 1 wide.
 */
export function headerColumns(header: readonly unknown[]): { index: ColumnIndex; width: number } {
  let width = Math.max(header.length, 1);
  while (width > 1 && String(header[width - 1] ?? '').trim() === '') width -= 1;
  // Every cell past the width is blank, so no name of ours is found there: the whole row can be indexed.
  return { index: indexColumns(header), width };
}

export function indexColumns(header: readonly unknown[]): ColumnIndex {
  const names = header.map((cell) => String(cell).trim());
  const index = {} as Record<QueueHeader, number>;
  for (const name of QUEUE_HEADERS) index[name] = names.indexOf(name);
  return index;
}

export function missingColumns(index: ColumnIndex): QueueHeader[] {
  return QUEUE_HEADERS.filter((name) => index[name] < 0);
}

export function emptyRow(): QueueRow {
  return {
    rowNumber: 0,
    status: 'PENDING',
    eventId: '',
    receivedAt: null,
    formId: '',
    responseToken: '',
    recipient: '',
    submission: '',
    payload: '',
    attempts: 0,
    nextAttemptAt: null,
    claimedAt: null,
    result: '',
    sentAt: null,
    mailRef: '',
    error: '',
    updatedAt: null,
  };
}

// Dates cross vm realms, so recognise them by tag, not instanceof.
function isDateValue(value: unknown): value is Date {
  return Object.prototype.toString.call(value) === '[object Date]';
}

// An empty cell ('', null, undefined) needs no test of its own: Date.parse of '', 'null' or 'undefined' is NaN.
function toTime(value: unknown): number | null {
  if (isDateValue(value)) return Number.isNaN(value.getTime()) ? null : value.getTime();
  if (typeof value === 'number') return value;
  const parsed = Date.parse(String(value));
  return Number.isNaN(parsed) ? null : parsed;
}

function toText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (isDateValue(value)) return value.toISOString();
  return String(value);
}

const FIELD_OF: Readonly<Record<QueueHeader, keyof QueueRow>> = {
  status: 'status',
  event_id: 'eventId',
  received_at: 'receivedAt',
  form_id: 'formId',
  response_token: 'responseToken',
  recipient: 'recipient',
  submission: 'submission',
  payload: 'payload',
  attempts: 'attempts',
  next_attempt_at: 'nextAttemptAt',
  claimed_at: 'claimedAt',
  result: 'result',
  sent_at: 'sentAt',
  mail_ref: 'mailRef',
  error: 'error',
  updated_at: 'updatedAt',
};

/** The row field a column holds. */
export function fieldOf(header: QueueHeader): Exclude<keyof QueueRow, 'rowNumber'> {
  return FIELD_OF[header] as Exclude<keyof QueueRow, 'rowNumber'>;
}

export function rowFromValues(index: ColumnIndex, values: readonly unknown[], rowNumber: number): QueueRow {
  const row = emptyRow() as unknown as Record<string, unknown>;
  row.rowNumber = rowNumber;
  for (const name of QUEUE_HEADERS) {
    const at = index[name];
    if (at < 0) continue;
    const cell = values[at];
    const field = FIELD_OF[name];
    if ((TIME_HEADERS as readonly string[]).includes(name)) row[field] = toTime(cell);
    else if (name === 'attempts') row[field] = Number(cell) || 0;
    else row[field] = toText(cell).trim() === '' ? '' : toText(cell);
  }
  (row as unknown as QueueRow).status = toText(row.status).trim();
  return row as unknown as QueueRow;
}

/**
 * The row's cells in sheet order, `width` wide. `base` supplies cells we do not own (staff columns),
 * so a write of the whole row puts them back as they were read. Times become Date objects.
 */
export function rowToValues(index: ColumnIndex, row: QueueRow, width: number, base: readonly unknown[] = []): unknown[] {
  const cells: unknown[] = [];
  for (let i = 0; i < width; i++) cells.push(i < base.length ? base[i] : '');
  const record = row as unknown as Record<string, unknown>;
  for (const name of QUEUE_HEADERS) {
    const at = index[name];
    if (at < 0 || at >= width) continue;
    const value = record[FIELD_OF[name]];
    if ((TIME_HEADERS as readonly string[]).includes(name)) cells[at] = value === null ? '' : new Date(value as number);
    else cells[at] = value;
  }
  return cells;
}

/** Number formats for a row `width` wide, matching rowToValues; staff columns keep Sheets' automatic format. */
export function rowNumberFormats(index: ColumnIndex, width: number): string[] {
  const formats: string[] = [];
  for (let i = 0; i < width; i++) formats.push('General');
  for (const name of QUEUE_HEADERS) if (index[name] >= 0 && index[name] < width) formats[index[name]] = QUEUE_NUMBER_FORMATS[name];
  return formats;
}
