// The review trail: what the model wrote kept beside what staff send, and the Log's words for an approval (who, how much changed, how long it waited).
import type { LogEntry } from '../domain/sheet-ports';
import { formatDuration } from '../domain/text';

/** The model's draft of a reply staff edited is kept in Payloads under this key (never in Queue). */
export const DRAFT_KEY_PREFIX = 'draft:';

export function draftKey(eventId: string): string {
  return `${DRAFT_KEY_PREFIX}${eventId}`;
}

/** Above this many line pairs the line diff is not computed: the changed middle counts whole (a reply has a few dozen lines). */
const MAX_DIFF_CELLS = 1_000_000;

/**
 * How many characters staff changed: the characters of the lines removed from the model's text plus those of the lines
 * put in (a line diff: the longest common run of lines is kept), so two small edits far apart count only their lines.
 */
export function changedCharacters(before: string, after: string): number {
  if (before === after) return 0;
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const oldMiddle = a.slice(start, a.length - end);
  const newMiddle = b.slice(start, b.length - end);
  const size = (lines: readonly string[]) => lines.reduce((sum, line) => sum + line.length + 1, 0);
  if (oldMiddle.length * newMiddle.length > MAX_DIFF_CELLS) return size(oldMiddle) + size(newMiddle);
  // Longest common subsequence of lines, weighted by their length + 1 (the newline).
  let previous = new Array<number>(newMiddle.length + 1).fill(0);
  for (const line of oldMiddle) {
    const current = new Array<number>(newMiddle.length + 1).fill(0);
    for (let j = 0; j < newMiddle.length; j++) {
      current[j + 1] = line === newMiddle[j] ? previous[j] + line.length + 1 : Math.max(previous[j + 1], current[j]);
    }
    previous = current;
  }
  const common = previous[newMiddle.length];
  return size(oldMiddle) + size(newMiddle) - 2 * common;
}

/** The system's line for a reply Gemini wrote (GENERATING → READY or AWAITING_APPROVAL). */
function isReplyWritten(entry: LogEntry): boolean {
  return entry.by === 'system' && entry.from === 'GENERATING' && (entry.to === 'AWAITING_APPROVAL' || entry.to === 'READY');
}

/** A staff edit of the result cell (decideResultEdit, decideUncheckedResultEdit). */
export function isResultEdit(entry: LogEntry): boolean {
  return entry.by !== 'system' && entry.detail.startsWith('result edited');
}

/** True when no earlier staff edit of this reply was logged since it was written: the cell still held the model's text. */
export function isFirstEditSinceWritten(history: readonly LogEntry[]): boolean {
  let written = -1;
  history.forEach((entry, i) => {
    if (isReplyWritten(entry)) written = i;
  });
  return written >= 0 && !history.slice(written + 1).some(isResultEdit);
}

export interface ApprovalReview {
  edited: boolean;
  /** Characters changed from the model's draft; null when it is not known (no draft kept, e.g. a multi-cell edit). */
  changed: number | null;
  /** From the reply written to the approval; null when the Log has no line of the reply being written. */
  waitedMs: number | null;
  /** What the approval's Log line adds. */
  detail: string;
}

/**
 * The review of an approval: whether staff changed the model's reply (a result edit in the Log since it was written),
 * how much (against the draft kept in Payloads), and how long it waited for a person.
 */
export function reviewApproval(history: readonly LogEntry[], draft: string | null, sent: string, eventId: string, now: number): ApprovalReview {
  let writtenAt: number | null = null;
  let edited = false;
  for (const entry of history) {
    if (isReplyWritten(entry)) {
      writtenAt = entry.at;
      edited = false;
    } else if (isResultEdit(entry)) edited = true;
  }
  const waitedMs = writtenAt === null ? null : Math.max(0, now - writtenAt);
  const waited = waitedMs === null ? '' : `; waited ${formatDuration(waitedMs)} for approval`;
  if (!edited) return { edited, changed: null, waitedMs, detail: `reply as Gemini wrote it${waited}` };
  if (draft === null) return { edited, changed: null, waitedMs, detail: `reply edited by staff (the model's draft was not kept: a multi-cell edit)${waited}` };
  const changed = changedCharacters(draft, sent);
  const detail = `reply edited by staff: ${changed.toLocaleString('en-US')} characters changed (removed and added lines) against the model's draft of ${draft.length.toLocaleString('en-US')} (the draft is in Payloads as ${draftKey(eventId)})${waited}`;
  return { edited, changed, waitedMs, detail };
}
