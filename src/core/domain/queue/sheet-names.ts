// The spreadsheet's sheets and the header rows of the ones that are not Queue or Config.
import { QUEUE_HEADERS } from './queue-row';

export const SHEETS = {
  queue: 'Queue',
  config: 'Config',
  log: 'Log',
  rejected: 'Rejected',
  payloads: 'Payloads',
  archive: 'Archive',
  tally: 'Tally',
  journal: 'Journal',
  suppressed: 'Suppressed',
} as const;

/** `submission` (the identity, submission-identity.ts) came last so Logs of older versions keep their columns. */
export const LOG_HEADERS = ['at', 'event_id', 'from', 'to', 'by', 'detail', 'submission'] as const;
export const REJECTED_HEADERS = ['at', 'reason', 'form_id', 'event_id', 'body'] as const;
/** A payload too long for one cell, in parts: event_id, part (1-based), parts, text. */
export const PAYLOADS_HEADERS = ['event_id', 'part', 'parts', 'text'] as const;
/**
 * One row per rejected delivery until processQueue folds it into the day's totals (src/core/domain/typeform/rejection-tally.ts);
 * `kind` is why (src/core/domain/typeform/rejection-kinds.ts), added last so a Tally made before it keeps its columns.
 */
export const TALLY_HEADERS = ['day', 'bytes', 'id', 'kind'] as const;
/**
 * The Journal: one line per accepted submission, appended and never changed (src/core/journal). Every cell but the
 * time starts with text Sheets cannot read as anything else (`tf:`, `event:`, `ev:`, `{`, `(`), so an append needs no
 * formats set ahead.
 */
export const JOURNAL_HEADERS = ['received_at', 'submission', 'event_id', 'payload'] as const;
/** Archive keeps Queue's columns, so an archived row reads with the same mapper. */
export const ARCHIVE_HEADERS = QUEUE_HEADERS;
/** Addresses no reply is mailed to (src/core/domain/mail/suppression.ts): staff add lines, and so does the bounce check. */
export const SUPPRESSED_HEADERS = ['address', 'reason', 'added_by', 'added_at'] as const;
