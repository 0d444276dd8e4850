// doPost's decisions: authenticate, parse, reject with a reason, dedupe, queue once, or spill; never throw.
import { configFor } from '../form-config';
import { codedError, codeOf, isSheetsOutage, messageOf } from '../errors';
import type { Cache, Clock, FormConfig, IntakeSheets, Lock, PropertyStore, SpillStore } from '../ports';
import { emptyRow, type QueueRow } from '../queue-row';
import { redact, removeKnownSecrets } from '../redact';
import { DIRTY_PROPERTY } from '../tick-gate';
import { secretValues, tokenProblem, type Settings } from '../settings';
import { findRecipient, renderSubmission } from './answers';
import { fitCell, payloadPointer, splitText, CELL_LIMIT_CHARS } from './cell-chunks';
import { checkBodyShape, checkFieldSizes, clip, type LimitedField } from './delivery-limits';
import { checkWebhookToken } from './token-check';
import { HOUR_MS } from '../time';
import { isTestDelivery, parseTypeformBody, type TypeformDelivery } from './typeform-payload';

/** The JSON doPost answers: Apps Script cannot set a status code, so the body says what happened (see docs/platform.md#web-apps). */
export interface IntakeAnswer {
  ok: boolean;
  error?: string;
  queued?: true | 'deferred';
  duplicate?: true;
  test?: true;
  /** A form_response_partial, kept in Rejected with its reason and never answered. */
  partial?: true;
  event_id?: string;
}

export interface IntakeSheetsWithConfig extends IntakeSheets {
  readForms(): FormConfig[];
}

export interface IntakeDeps {
  settings: Settings;
  clock: Clock;
  /** Not the script lock: processQueue holds that for minutes, and Typeform gives up after 30 s. */
  lock: Lock;
  cache: Cache;
  props: PropertyStore;
  spill: SpillStore;
  /** Opening can fail when Sheets is down: intake spills then. */
  openSheets(): IntakeSheetsWithConfig;
  /** Where a delivery that could not even be recorded is reported (the execution log). */
  log(message: string): void;
}

/** How long intake waits for its lock before spilling: far under Typeform's 30 s. */
export const INTAKE_LOCK_WAIT_MS = 10000;
/** Rejected bodies kept per hour; past it only a count, so a flood cannot fill the sheet. */
export const REJECTED_BODIES_PER_HOUR = 50;
/** Seen-event marks in the script cache: a fast path before the TextFinder (Cache holds at most 6 h). */
export const SEEN_CACHE_SECONDS = 21600;

/** Rejections this hour, for the triage's REJECTED_DELIVERIES incident. */
export const REJECTED_COUNT_PROPERTY = 'FQ_REJECTED_HOUR';

/** The spill refuses more than this (Script Properties hold 500 KB in all; incidents and settings need the rest). */
export const SPILL_LIMIT_CHARS = 400000;
/** Past this the triage raises SPILL_BACKLOG, well before the spill is full. */
export const SPILL_WARN_CHARS = 200000;

/** A reason is read by a person: a few lines, whatever value it quotes. */
const REASON_LIMIT_CHARS = 2000;
/** Why a partial response is kept but never answered (Typeform sends partial responses only when the webhook subscribes to them). */
export const PARTIAL_REASON =
  'partial_response: event_type form_response_partial — the respondent has not finished the form, so it is kept here and never answered; ' +
  'the finished response arrives as its own form_response. Untick "partial responses" on the Typeform webhook to stop these.';

export interface IntakeRequest {
  token: string | undefined;
  body: string;
}

export function handleDelivery(request: IntakeRequest, deps: IntakeDeps): IntakeAnswer {
  const now = deps.clock.now();
  const verdict = checkWebhookToken(request.token, deps.settings.webhookToken, deps.settings.webhookTokenPrevious);
  if (verdict === 'weak') {
    const why = tokenProblem(deps.settings.webhookToken) ?? 'is too weak';
    reject(deps, now, `not configured: Script Property WEBHOOK_TOKEN ${why}, so no delivery is accepted; clear it and run formqueue → Set up / repair to generate one, then update the Typeform webhook URL`, request.body, '', '');
    return { ok: false, error: 'not_configured' };
  }
  if (verdict === 'not_configured') {
    reject(deps, now, 'not configured: Script Property WEBHOOK_TOKEN is not set, so no delivery can be authenticated', request.body, '', '');
    return { ok: false, error: 'not_configured' };
  }
  if (verdict === 'missing' || verdict === 'wrong') {
    reject(deps, now, `unauthorized: ${verdict} token in the webhook URL`, request.body, '', '');
    return { ok: false, error: 'unauthorized' };
  }
  // Size and depth before parsing: a hostile body must cost a linear scan, never a deep recursion.
  const shape = checkBodyShape(request.body);
  if (shape) {
    reject(deps, now, `${shape.error}: ${shape.reason}`, request.body, '', '');
    return { ok: false, error: shape.error };
  }
  const parsed = parseTypeformBody(request.body);
  if (!parsed.ok) {
    reject(deps, now, `${parsed.error}: ${parsed.reason}`, request.body, '', '');
    return { ok: false, error: parsed.error };
  }
  const delivery = parsed.delivery;
  // Checked before anything is spilled: a field no cell can hold would fail again at every drain.
  const tooLarge = checkFieldSizes(storedFields(delivery));
  if (tooLarge) {
    reject(deps, now, `${tooLarge.error}: ${tooLarge.reason}`, request.body, clip(delivery.formId), clip(delivery.eventId));
    return { ok: false, error: tooLarge.error };
  }
  // A redelivery seen in the last hours answers at once, without the lock or the sheet.
  if (hasSeen(deps, delivery)) return { ok: true, duplicate: true, event_id: delivery.eventId };

  if (!deps.lock.tryLock(INTAKE_LOCK_WAIT_MS)) return spill(deps, now, request.body, delivery, 'the intake lock was busy');
  try {
    const sheets = deps.openSheets();
    return storeDelivery(delivery, now, sheets, deps);
  } catch (error) {
    // The spill is for a sheet that cannot take the delivery now (down, or missing a sheet Set up restores);
    // anything else would fail the same way at every drain, so it is kept in Rejected with the reason.
    if (isSheetsOutage(error)) return spill(deps, now, request.body, delivery, `the spreadsheet is unavailable: ${messageOf(error)}`);
    if (codeOf(error) === 'CONFIG_MISSING') return spill(deps, now, request.body, delivery, `the spreadsheet is not set up: ${messageOf(error)}`);
    return keepUnqueued(deps, now, request.body, delivery, error);
  } finally {
    deps.lock.release();
  }
}

/** What intake keeps in cells of their own, for the size check; the recipient when the Config is known. */
function storedFields(delivery: TypeformDelivery, recipient?: string): Partial<Record<LimitedField, string>> {
  const emailAnswers = delivery.answers.filter((answer) => answer.type === 'email').map((answer) => String(answer.email ?? ''));
  const longestEmail = emailAnswers.reduce((longest, email) => (email.length > longest.length ? email : longest), '');
  return { event_id: delivery.eventId, form_id: delivery.formId, response_token: delivery.responseToken, recipient: recipient ?? longestEmail };
}

/**
 * A delivery that failed to queue for a reason other than the sheet being unavailable (a bug of ours):
 * kept in Rejected with the reason, where staff can accept it once fixed; if even that fails, spilled, so the
 * body is always somewhere.
 */
function keepUnqueued(deps: IntakeDeps, now: number, body: string, delivery: TypeformDelivery, error: unknown): IntakeAnswer {
  const reason = `internal_error: queuing failed (${codeOf(error) ?? 'CODE_BUG'}): ${messageOf(error)}`;
  try {
    const sheets = deps.openSheets();
    recordRejection(sheets, deps, now, reason, body, clip(delivery.formId), clip(delivery.eventId));
    sheets.flush();
    deps.log(`delivery ${clip(delivery.eventId)} kept in Rejected: ${shownReason(reason, deps)}`);
    return { ok: false, error: 'internal_error', event_id: delivery.eventId };
  } catch (second) {
    deps.log(`delivery ${clip(delivery.eventId)} could not be kept in Rejected either (${redact(messageOf(second), secretsOf(deps))})`);
    return spill(deps, now, body, delivery, reason);
  }
}

/**
 * The critical section, with the intake lock held: config check, dedupe, one append, flush.
 * Shared by doPost and the spill drain, so a drained delivery gets exactly the same rules.
 */
export function storeDelivery(delivery: TypeformDelivery, receivedAt: number, sheets: IntakeSheetsWithConfig, deps: IntakeDeps): IntakeAnswer {
  const idsTooLarge = checkFieldSizes(storedFields(delivery));
  if (idsTooLarge) return rejectStored(sheets, deps, receivedAt, delivery, idsTooLarge.error, idsTooLarge.reason);
  if (delivery.partial) {
    // Answered 2xx so Typeform does not retry; not counted as a rejection: it is Typeform working as configured.
    recordRejection(sheets, deps, receivedAt, PARTIAL_REASON, delivery.compactJson, delivery.formId, delivery.eventId);
    sheets.flush();
    rememberSeen(deps, delivery);
    return { ok: true, partial: true, event_id: delivery.eventId };
  }
  const config = configFor(delivery.formId, sheets.readForms());
  if (!config) return rejectStored(sheets, deps, receivedAt, delivery, 'unknown_form', `"${clip(delivery.formId)}" is not enabled in the Config sheet`);
  const recipientTooLarge = checkFieldSizes({ recipient: findRecipient(delivery, config.recipientField) });
  if (recipientTooLarge) return rejectStored(sheets, deps, receivedAt, delivery, recipientTooLarge.error, recipientTooLarge.reason);
  const hit = sheets.findDuplicate(delivery.eventId, delivery.responseToken);
  if (hit) {
    rememberSeen(deps, delivery);
    return { ok: true, duplicate: true, event_id: delivery.eventId };
  }
  const { row, payloadChunks } = buildQueueRow(delivery, receivedAt, config);
  sheets.appendQueueRow(row, payloadChunks);
  sheets.flush();
  rememberSeen(deps, delivery);
  deps.props.set(DIRTY_PROPERTY, String(receivedAt));
  return row.status === 'TEST'
    ? { ok: true, queued: true, test: true, event_id: delivery.eventId }
    : { ok: true, queued: true, event_id: delivery.eventId };
}

/** A parsed delivery refused with the intake lock held: kept in Rejected (its payload as the body), answered with `error`. */
function rejectStored(sheets: IntakeSheetsWithConfig, deps: IntakeDeps, at: number, delivery: TypeformDelivery, error: string, reason: string): IntakeAnswer {
  const label = error === 'unknown_form' ? 'unknown form' : error;
  recordRejection(sheets, deps, at, `${label}: ${reason}`, delivery.compactJson, clip(delivery.formId), clip(delivery.eventId));
  sheets.flush();
  return { ok: false, error, event_id: delivery.eventId };
}

export function buildQueueRow(delivery: TypeformDelivery, receivedAt: number, config: FormConfig): { row: QueueRow; payloadChunks: string[] } {
  const row = emptyRow();
  row.status = isTestDelivery(delivery) ? 'TEST' : 'PENDING';
  row.eventId = delivery.eventId;
  row.receivedAt = receivedAt;
  row.formId = delivery.formId;
  row.responseToken = delivery.responseToken;
  row.recipient = findRecipient(delivery, config.recipientField);
  row.submission = fitCell(renderSubmission(delivery), 'cut to fit a cell; every answer is in the payload');
  row.updatedAt = receivedAt;
  const json = delivery.compactJson;
  const payloadChunks = json.length > CELL_LIMIT_CHARS ? splitText(json) : [];
  row.payload = payloadChunks.length > 0 ? payloadPointer(payloadChunks.length) : json;
  return { row, payloadChunks };
}

function seenKey(eventId: string): string {
  return `seen:${eventId}`;
}

/** The cache is only a fast path: when it fails (a key it refuses, an outage), the sheet's TextFinder decides. */
function hasSeen(deps: IntakeDeps, delivery: TypeformDelivery): boolean {
  try {
    return deps.cache.get(seenKey(delivery.eventId)) !== null;
  } catch (error) {
    deps.log(`cache get failed (dedupe still works through the sheet): ${redact(messageOf(error), secretsOf(deps))}`);
    return false;
  }
}

function rememberSeen(deps: IntakeDeps, delivery: TypeformDelivery): void {
  try {
    deps.cache.put(seenKey(delivery.eventId), '1', SEEN_CACHE_SECONDS);
  } catch (error) {
    // The cache is only a fast path; the TextFinder still finds the row.
    deps.log(`cache put failed (dedupe still works through the sheet): ${messageOf(error)}`);
  }
}

function spill(deps: IntakeDeps, now: number, body: string, delivery: TypeformDelivery, why: string): IntakeAnswer {
  try {
    deps.spill.save(now, body);
    deps.log(`delivery ${clip(delivery.eventId)} spilled to Script Properties (${shownReason(why, deps)}); processQueue will queue it`);
    return { ok: true, queued: 'deferred', event_id: delivery.eventId };
  } catch (error) {
    // Nothing left to hold it: say so in the answer and the log, never pretend it was kept.
    deps.log(`delivery ${clip(delivery.eventId)} could not be kept: ${redact(messageOf(error), secretsOf(deps))}`);
    return { ok: false, error: 'backlog_full', event_id: delivery.eventId };
  }
}

function secretsOf(deps: IntakeDeps): string[] {
  return secretValues(deps.settings);
}

interface RejectedCount {
  hour: number;
  kept: number;
  dropped: number;
}

/** Counts this hour's rejections in Script Properties; true while bodies may still be kept. */
function countRejection(deps: IntakeDeps, now: number): boolean {
  const hour = Math.floor(now / HOUR_MS);
  let count: RejectedCount = { hour, kept: 0, dropped: 0 };
  try {
    const stored = JSON.parse(deps.props.getAll()[REJECTED_COUNT_PROPERTY] ?? 'null') as RejectedCount | null;
    if (stored && stored.hour === hour) count = stored;
  } catch {
    // A garbled counter starts over.
  }
  const keep = count.kept < REJECTED_BODIES_PER_HOUR;
  if (keep) count.kept += 1;
  else count.dropped += 1;
  deps.props.set(REJECTED_COUNT_PROPERTY, JSON.stringify(count));
  return keep;
}

/** A delivery intake refused before it had the lock: recorded in Rejected under the lock, within the hourly bound. */
function reject(deps: IntakeDeps, now: number, reason: string, body: string, formId: string, eventId: string): void {
  try {
    if (!countRejection(deps, now)) return;
    if (!deps.lock.tryLock(INTAKE_LOCK_WAIT_MS)) throw codedError('LOCK_TIMEOUT', 'the intake lock was busy');
    try {
      const sheets = deps.openSheets();
      recordRejection(sheets, deps, now, reason, body, formId, eventId);
      sheets.flush();
    } finally {
      deps.lock.release();
    }
  } catch (error) {
    deps.log(`rejected delivery (${shownReason(reason, deps)}) could not be recorded in Rejected: ${redact(messageOf(error), secretsOf(deps))}`);
  }
}

/** A body intake cannot queue, kept in the Rejected sheet (the caller holds the intake lock). */
export function keepInRejected(sheets: IntakeSheets, deps: IntakeDeps, at: number, reason: string, body: string): void {
  recordRejection(sheets, deps, at, reason, body, '', '');
}

function recordRejection(sheets: IntakeSheets, deps: IntakeDeps, at: number, reason: string, body: string, formId: string, eventId: string): void {
  // Only our own secrets are removed from the body: pattern redaction would also eat Typeform's ids and
  // tokens, and the body must stay whole so staff can accept it later. Removed before the cut, so a cut
  // through a secret cannot leave its first characters behind.
  const kept = fitCell(removeKnownSecrets(body, secretsOf(deps)), 'body cut to fit a cell');
  sheets.appendRejected({ at, reason: shownReason(reason, deps), formId: clip(formId), eventId: clip(eventId), body: kept });
}

/**
 * A reason as a person reads it: our secrets removed by value over the whole text, then bounded (pattern
 * redaction is quadratic on some hostile text, e.g. 60,000 characters of "a_"), redacted, and cut to fit.
 * Cut only after redaction, so the cut never leaves a secret of ours half-hidden.
 */
function shownReason(reason: string, deps: IntakeDeps): string {
  const bounded = removeKnownSecrets(reason, secretsOf(deps)).slice(0, REASON_LIMIT_CHARS * 2);
  return fitCell(redact(bounded, secretsOf(deps)), 'reason cut to fit', REASON_LIMIT_CHARS);
}

