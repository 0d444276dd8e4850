// Rejected deliveries: counted and kept within the day's room, with reasons and bodies made fit to be recorded and read.
import { messageOf } from '../domain/failures/errors';
import type { PropertyStore } from '../domain/ports';
import type { IntakeSheets, RejectedDelivery } from '../domain/sheet-ports';
import { redact, removeKnownSecrets } from '../domain/failures/redact';
import { secretValues, type Settings } from '../domain/config/settings';
import { CHUNK_CHARS, fitCell, rejectedBodyPointer, splitText, textDigest } from '../domain/queue/cell-chunks';
import { clip } from '../domain/typeform/delivery-limits';
import type { DeliveryKind, RejectionKind, UnreadKind } from '../domain/typeform/rejection-kinds';
import { ROW_COST_BYTES, claimRejectedRoom, countKeptRejection } from '../domain/typeform/rejection-tally';
import { utf8Length } from '../domain/text';

/** What recording a rejection needs (intake's deps have it all). */
export interface RejectionDeps {
  settings: Settings;
  props: PropertyStore;
  /** The stored rejection totals (REJECTED_TOTALS_PROPERTY) as read with the settings: the first look at the day's room. */
  rejectedTotalsAtStart: string | undefined;
  openSheets(): IntakeSheets;
  /** The calendar day of `now` in the script's time zone ("2026-12-01"): rejections are counted per day. */
  dateKey(now: number): string;
  log(message: string): void;
}

/** A reason is read by a person: a few lines, whatever value it quotes. */
const REASON_LIMIT_CHARS = 2000;

export function secretsOf(deps: RejectionDeps): string[] {
  return secretValues(deps.settings);
}

/** One refusal to record: what came in, when, why, and which kind of refusal it is counted as. */
export interface Rejection<Kind extends RejectionKind = RejectionKind> {
  at: number;
  kind: Kind;
  reason: string;
  body: string;
  formId?: string;
  eventId?: string;
}

/**
 * A delivery refused before the lock: counted, and recorded in Rejected while the day's room lasts (past it only
 * counted, so a flood cannot fill the sheet). No lock: the Tally's claim-then-look is exact whoever runs.
 */
export function rejectDelivery(deps: RejectionDeps, rejection: Rejection<UnreadKind>): void {
  try {
    const sheets = deps.openSheets();
    const entry = rejectedEntry(deps, rejection);
    const claim = { today: deps.dateKey(rejection.at), bytes: roomTaken(entry), kind: rejection.kind };
    if (!claimRejectedRoom(sheets.tally, deps.props, claim, deps.rejectedTotalsAtStart)) return;
    sheets.appendRejected(entry);
    sheets.flush();
  } catch (error) {
    deps.log(`rejected delivery (${shownReason(rejection.reason, deps)}) could not be recorded in Rejected: ${redact(messageOf(error), secretsOf(deps))}`);
  }
}

/**
 * A spilled body the drain cannot queue, kept in the Rejected sheet. The spill holds only bodies that came with our
 * token, so one that cannot be queued is ours to explain: it counts as an internal error.
 */
export function keepInRejected(sheets: IntakeSheets, deps: RejectionDeps, at: number, reason: string, body: string): void {
  recordRejection(sheets, deps, { at, kind: 'internal_error', reason, body });
}

/**
 * Kept whatever the day's room: what calls this came with our token (Typeform's own deliveries, refused for a Config
 * or size reason, or partial responses), and staff may need the body to accept it; outsiders only reach rejectDelivery.
 * Counted after it is kept, so the body is safe first; a count that fails (Tally missing, Sheets failing now) is
 * logged and does not undo the keeping.
 */
export function recordRejection(sheets: IntakeSheets, deps: RejectionDeps, rejection: Rejection<DeliveryKind>): void {
  sheets.appendRejected(rejectedEntry(deps, rejection));
  try {
    countKeptRejection(sheets.tally, deps.dateKey(rejection.at), rejection.kind);
  } catch (error) {
    deps.log(`rejected delivery (${rejection.kind}) kept in Rejected but not counted: ${redact(messageOf(error), secretsOf(deps))}`);
  }
}

/** recordRejection before the intake lock (a field too large to queue): opens the sheets itself, never throws. */
export function keepRejectedDelivery(deps: RejectionDeps, rejection: Rejection<DeliveryKind>): void {
  try {
    const sheets = deps.openSheets();
    recordRejection(sheets, deps, rejection);
    sheets.flush();
  } catch (error) {
    deps.log(`rejected delivery (${shownReason(rejection.reason, deps)}) could not be recorded in Rejected: ${redact(messageOf(error), secretsOf(deps))}`);
  }
}

/**
 * Only our own secrets are removed from the body (every form, before any split or cut): pattern redaction would
 * also eat Typeform's ids and tokens, and the body must stay whole so staff can accept it later. A body too long for a cell goes to the Payloads
 * sheet in parts under a key of its own, and the cell points there ("Accept rejected delivery" follows it).
 */
function rejectedEntry(deps: RejectionDeps, rejection: Rejection): RejectedDelivery {
  const kept = removeKnownSecrets(rejection.body, secretsOf(deps));
  const fields = { at: rejection.at, reason: shownReason(rejection.reason, deps), formId: clip(rejection.formId ?? ''), eventId: clip(rejection.eventId ?? '') };
  if (kept.length <= CHUNK_CHARS) return { ...fields, body: kept };
  const key = `rejected-${rejection.at}-${textDigest(kept)}`;
  const parts = splitText(kept);
  return { ...fields, body: rejectedBodyPointer(key, parts.length), bodyParts: { key, parts } };
}

/** The room a rejection takes from the day's (UTF-8 bytes of every text it writes, plus each row's cells; each Payloads row repeats the key). */
function roomTaken(entry: RejectedDelivery): number {
  const parts = entry.bodyParts?.parts ?? [];
  const keyBytes = entry.bodyParts === undefined ? 0 : utf8Length(entry.bodyParts.key);
  const texts = [entry.reason, entry.formId, entry.eventId, entry.body, ...parts];
  return texts.reduce((sum, text) => sum + utf8Length(text), 0) + ROW_COST_BYTES + parts.length * (keyBytes + ROW_COST_BYTES);
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

