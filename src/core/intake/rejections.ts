// Rejected deliveries: the daily bound on kept bodies, and reasons and bodies made fit to be recorded and read.
import { messageOf } from '../errors';
import type { IntakeSheets, PropertyStore } from '../ports';
import { redact, removeKnownSecrets } from '../redact';
import { secretValues, type Settings } from '../settings';
import { CHUNK_CHARS, fitCell, rejectedBodyPointer, splitText, textDigest } from './cell-chunks';
import { clip } from './delivery-limits';

/** What recording a rejection needs (intake's deps have it all). */
export interface RejectionDeps {
  settings: Settings;
  props: PropertyStore;
  openSheets(): IntakeSheets;
  /** The calendar day of `now` in the script's time zone ("2026-12-01"): rejections are counted per day. */
  dateKey(now: number): string;
  log(message: string): void;
}

/** Rejected bodies kept per day; past it only a count, so a flood cannot fill the sheet. */
export const REJECTED_BODIES_PER_DAY = 50;
/** Today's rejections, for the triage's REJECTED_DELIVERIES incident. */
export const REJECTED_COUNT_PROPERTY = 'FQ_REJECTED_DAY';
/** A reason is read by a person: a few lines, whatever value it quotes. */
const REASON_LIMIT_CHARS = 2000;

/** The day's rejection counter as intake wrote it; a garbled or older one counts as none. */
function readRejectedCount(props: Readonly<Record<string, string>>, day: string): RejectedCount {
  try {
    const stored = JSON.parse(props[REJECTED_COUNT_PROPERTY] ?? 'null') as RejectedCount | null;
    if (stored && stored.day === day) return stored;
  } catch {
    // A garbled counter starts over.
  }
  return { day, kept: 0, dropped: 0 };
}

/** Deliveries rejected on calendar day `day`, and how many of them without their body: for REJECTED_DELIVERIES. */
export function rejectedOnDay(props: Readonly<Record<string, string>>, day: string): { total: number; dropped: number } {
  const count = readRejectedCount(props, day);
  return { total: count.kept + count.dropped, dropped: count.dropped };
}

export function secretsOf(deps: RejectionDeps): string[] {
  return secretValues(deps.settings);
}

interface RejectedCount {
  day: string;
  kept: number;
  dropped: number;
}

/** Counts the day's rejections in Script Properties; true while bodies may still be kept. */
function countRejection(deps: RejectionDeps, now: number): boolean {
  const count = readRejectedCount(deps.props.getAll(), deps.dateKey(now));
  const keep = count.kept < REJECTED_BODIES_PER_DAY;
  if (keep) count.kept += 1;
  else count.dropped += 1;
  deps.props.set(REJECTED_COUNT_PROPERTY, JSON.stringify(count));
  return keep;
}

/** One refusal to record: what came in, when, and why. */
export interface Rejection {
  at: number;
  reason: string;
  body: string;
  formId?: string;
  eventId?: string;
}

/** A delivery refused before the lock, recorded in Rejected within the daily bound (appends are atomic: no lock). */
export function rejectDelivery(deps: RejectionDeps, rejection: Rejection): void {
  try {
    if (!countRejection(deps, rejection.at)) return;
    const sheets = deps.openSheets();
    recordRejection(sheets, deps, rejection);
    sheets.flush();
  } catch (error) {
    deps.log(`rejected delivery (${shownReason(rejection.reason, deps)}) could not be recorded in Rejected: ${redact(messageOf(error), secretsOf(deps))}`);
  }
}

/** A body intake cannot queue, kept in the Rejected sheet. */
export function keepInRejected(sheets: IntakeSheets, deps: RejectionDeps, at: number, reason: string, body: string): void {
  recordRejection(sheets, deps, { at, reason, body });
}

/**
 * Only our own secrets are removed from the body (every form, before any split or cut): pattern redaction would
 * also eat Typeform's ids and tokens, and the body must stay whole so staff can accept it later. A body too long for a cell goes to the Payloads
 * sheet in parts under a key of its own, and the cell points there ("Accept rejected delivery" follows it).
 */
export function recordRejection(sheets: IntakeSheets, deps: RejectionDeps, rejection: Rejection): void {
  const kept = removeKnownSecrets(rejection.body, secretsOf(deps));
  const fields = { at: rejection.at, reason: shownReason(rejection.reason, deps), formId: clip(rejection.formId ?? ''), eventId: clip(rejection.eventId ?? '') };
  if (kept.length <= CHUNK_CHARS) {
    sheets.appendRejected({ ...fields, body: kept });
    return;
  }
  const key = `rejected-${rejection.at}-${textDigest(kept)}`;
  const parts = splitText(kept);
  sheets.appendRejected({ ...fields, body: rejectedBodyPointer(key, parts.length), bodyParts: { key, parts } });
}

/**
 * A reason as a person reads it: our secrets removed by value over the whole text, then bounded (pattern
 * redaction is quadratic on some hostile text, e.g. 60,000 characters of "a_"), redacted, and cut to fit.
 * Cut only after redaction, so the cut never leaves a secret of ours half-hidden.
 */
export function shownReason(reason: string, deps: RejectionDeps): string {
  const bounded = removeKnownSecrets(reason, secretsOf(deps)).slice(0, REASON_LIMIT_CHARS * 2);
  return fitCell(redact(bounded, secretsOf(deps)), 'reason cut to fit', REASON_LIMIT_CHARS);
}

