// The review trail's sheet side: the model's draft kept in Payloads at a reply's first staff edit, and approval Log lines told what changed.
import { joinPayloadParts, splitText } from '../core/domain/queue/cell-chunks';
import type { PropertyStore } from '../core/domain/ports';
import type { AuditLog, LogEntry } from '../core/domain/sheet-ports';
import type { QueueRow } from '../core/domain/queue/queue-row';
import { SHEETS } from '../core/domain/queue/sheet-names';
import { addReviews, REVIEWS_PROPERTY, type ReviewOutcome } from '../core/staff/review-stats';
import { draftKey, isFirstEditSinceWritten, isResultEdit, reviewApproval } from '../core/staff/review-trail';
import { readPayloadParts } from './payloads';
import { appendRows } from './sheet-append';

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;

/** Payloads rows: key, part, parts, text (as intake writes them). */
const PART_FORMATS = ['@', '0', '0', '@'];

/**
 * Keeps the model's text (the cell before staff first edited it) in Payloads under draft:<event_id>: one appendRow per
 * part, only at a reply's first edit since it was written (the Log says which), so a later edit never replaces it.
 * True when it was kept now.
 */
export function keepModelDraft(spreadsheet: Spreadsheet, eventId: string, draft: string, history: readonly LogEntry[]): boolean {
  if (eventId === '' || draft === '' || !isFirstEditSinceWritten(history)) return false;
  const payloads = spreadsheet.getSheetByName(SHEETS.payloads);
  if (!payloads) return false;
  const parts = splitText(draft);
  appendRows(payloads, parts.map((text, i) => [draftKey(eventId), i + 1, parts.length, text]), PART_FORMATS);
  return true;
}

/** The model's draft of a reply as kept in Payloads (the last one kept, parts joined once each), or null. */
export function readModelDraft(spreadsheet: Spreadsheet, eventId: string): string | null {
  const parts = readPayloadParts(spreadsheet, draftKey(eventId));
  if (parts.length === 0) return null;
  // A reply generated again (Retry) and edited again keeps a newer draft below the older one: the last set wins.
  const total = parts[parts.length - 1].parts;
  return joinPayloadParts(parts.slice(-total), () => true);
}

/** Where an approval's review is counted for the daily summary (REVIEWS_PROPERTY) and on which calendar day. */
export interface ReviewCounter {
  props: PropertyStore;
  dayKey: string;
}

/**
 * Adds the review to each approval line (AWAITING_APPROVAL → APPROVED, by a person): as written or how much changed,
 * and the wait; reads the Log once for all of them, and Payloads only for a reply that was edited. Approvals and skips
 * of waiting replies are counted for the daily summary (a read and a write of one property; two staff approving in the
 * same second may lose one count: these are figures for a summary, never a decision).
 */
export function withReviewTrail(spreadsheet: Spreadsheet, audit: AuditLog, entries: readonly LogEntry[], rows: readonly QueueRow[], counter: ReviewCounter & { now: number }): LogEntry[] {
  const approvals = entries.filter((entry) => entry.from === 'AWAITING_APPROVAL' && entry.to === 'APPROVED');
  const skips = entries.filter((entry) => entry.from === 'AWAITING_APPROVAL' && entry.to === 'SKIPPED');
  if (approvals.length === 0 && skips.length === 0) return [...entries];
  const histories = approvals.length > 0 ? audit.historiesOf(approvals.map((entry) => entry.eventId)) : new Map<string, LogEntry[]>();
  const outcomes: ReviewOutcome[] = skips.map((): ReviewOutcome => ({ kind: 'skipped' }));
  const reviewed = entries.map((entry) => {
    if (!approvals.includes(entry)) return entry;
    const history = histories.get(entry.eventId) ?? [];
    const row = rows.find((candidate) => candidate.eventId === entry.eventId);
    const draft = history.some(isResultEdit) ? readModelDraft(spreadsheet, entry.eventId) : null;
    const review = reviewApproval(history, draft, row?.result ?? '', entry.eventId, counter.now);
    outcomes.push({ kind: 'approved', edited: review.edited, waitedMs: review.waitedMs });
    return { ...entry, detail: `${entry.detail}; ${review.detail}` };
  });
  counter.props.set(REVIEWS_PROPERTY, addReviews(counter.props.get(REVIEWS_PROPERTY), counter.dayKey, outcomes));
  return reviewed;
}
