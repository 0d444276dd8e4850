// doPost's decisions: authenticate, parse, reject with a reason, dedupe, queue once, or spill; never throw.
import { configFor } from '../domain/config/form-config';
import { codeOf, isSheetsOutage, messageOf } from '../domain/failures/errors';
import type { Cache, Clock, Lock, PropertyStore, SpillStore } from '../domain/ports';
import type { FormConfig, IntakeSheets } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { redact } from '../domain/failures/redact';
import { markQueueDirty } from '../domain/queue/tick-gate';
import { tokenProblem, type Settings } from '../domain/config/settings';
import { archiveMayHold } from '../domain/queue/archive';
import { findRecipient } from '../domain/typeform/answers';
import { checkBodyShape, checkFieldSizes, clip, type LimitedField } from '../domain/typeform/delivery-limits';
import type { IntakeForm } from '../domain/config/forms-mirror';
import { keepRejectedDelivery, recordRejection, rejectDelivery, secretsOf, shownReason } from './rejections';
import { checkWebhookToken } from './token-check';
import { parseTypeformBody, type TypeformDelivery } from '../domain/typeform/typeform-payload';
import { buildQueueRow } from '../domain/queue/submission-row';
import { journalEntryOf } from '../domain/queue/journal-line';

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
  /** The Config sheet's forms, read once per execution (a spill drain stores many deliveries with one read). */
  readForms(): FormConfig[];
  /** Reads what intake needs before it takes the lock (the Queue header; Config unless `forms` is false), so the locked part is short. */
  prepare?(options: { forms: boolean }): void;
}

export interface IntakeDeps {
  settings: Settings;
  clock: Clock;
  /** Not the script lock: processQueue holds that for minutes, and Typeform gives up after 30 s. */
  lock: Lock;
  cache: Cache;
  props: PropertyStore;
  /** Config's forms as copied into Script Properties (forms-mirror.ts), read with the settings; null: read Config. */
  mirroredForms: IntakeForm[] | null;
  /** The stored rejection totals as read with the settings (rejections.ts: the first look at the day's room). */
  rejectedTotalsAtStart: string | undefined;
  spill: SpillStore;
  /** Opening can fail when Sheets is down: intake spills then. */
  openSheets(): IntakeSheetsWithConfig;
  /** The calendar day of `now` in the script's time zone: rejections are counted per day. */
  dateKey(now: number): string;
  /** Where a delivery that could not even be recorded is reported (the execution log). */
  log(message: string): void;
}

/**
 * How long intake waits for its lock before appending without it: far under Typeform's 30 s, and short enough that a
 * deadline burst does not pile up waiting executions past Google's 30 simultaneous ones. At 5 deliveries a second
 * each execution lives about 2 s of start-up and calls plus this wait, so 1 s keeps about 15 alive; with 10 s the
 * runtime refused about half of a 300-delivery burst (docs/performance.md#deadline-burst).
 */
export const INTAKE_LOCK_WAIT_MS = 1000;
/** Seen-event marks in the script cache: a fast path before the TextFinder (Cache holds at most 6 h). */
export const SEEN_CACHE_SECONDS = 21600;

/** The spill refuses more than this (Script Properties hold 500 KB in all; incidents and settings need the rest). */
export const SPILL_LIMIT_CHARS = 400000;
/** Past this the triage raises SPILL_BACKLOG, well before the spill is full. */
export const SPILL_WARN_CHARS = 200000;

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
    const reason = `not configured: Script Property WEBHOOK_TOKEN ${why}, so no delivery is accepted; clear it and run formqueue → Set up / repair to generate one, then update the Typeform webhook URL`;
    rejectDelivery(deps, { at: now, kind: 'not_configured', reason, body: request.body });
    return { ok: false, error: 'not_configured' };
  }
  if (verdict === 'not_configured') {
    rejectDelivery(deps, { at: now, kind: 'not_configured', reason: 'not configured: Script Property WEBHOOK_TOKEN is not set, so no delivery can be authenticated', body: request.body });
    return { ok: false, error: 'not_configured' };
  }
  if (verdict === 'missing' || verdict === 'wrong') {
    rejectDelivery(deps, { at: now, kind: 'unauthorized', reason: `unauthorized: ${verdict} token in the webhook URL`, body: request.body });
    return { ok: false, error: 'unauthorized' };
  }
  // Size and depth before parsing: a hostile body must cost a linear scan, never a deep recursion.
  const shape = checkBodyShape(request.body);
  if (shape) {
    rejectDelivery(deps, { at: now, kind: 'malformed', reason: `${shape.error}: ${shape.reason}`, body: request.body });
    return { ok: false, error: shape.error };
  }
  const parsed = parseTypeformBody(request.body);
  if (!parsed.ok) {
    rejectDelivery(deps, { at: now, kind: 'malformed', reason: `${parsed.error}: ${parsed.reason}`, body: request.body });
    return { ok: false, error: parsed.error };
  }
  const delivery = parsed.delivery;
  // Checked before anything is spilled: a field no cell can hold would fail again at every drain.
  const tooLarge = checkFieldSizes(storedFields(delivery));
  if (tooLarge) {
    // It came with our token: kept whatever the day's room, like every delivery refused once read (rejections.ts).
    keepRejectedDelivery(deps, { at: now, kind: 'field_too_large', reason: `${tooLarge.error}: ${tooLarge.reason}`, body: request.body, formId: delivery.formId, eventId: delivery.eventId });
    return { ok: false, error: tooLarge.error };
  }
  // A redelivery seen in the last hours answers at once, without the lock or the sheet.
  if (hasSeen(deps, delivery)) return { ok: true, duplicate: true, event_id: delivery.eventId };

  // The lock makes the duplicate check and the append one step for doPost's deliveries (all run as the deployer).
  // A burst may hold it past the wait: the delivery is then appended anyway (appends are atomic), not spilled;
  // only a copy of the same delivery arriving in that same moment could add a second row, which becomes DUPLICATE.
  // Opening the spreadsheet and reading Config and the Queue header need no lock, so they happen before it: the
  // lock is held only for the duplicate check and the append, and a burst's deliveries pass it faster. A failure
  // here is met again under the lock below and handled there, as before.
  let prepared: IntakeSheetsWithConfig | null = null;
  try {
    prepared = deps.openSheets();
    prepared.prepare?.({ forms: deps.mirroredForms === null });
  } catch {
    prepared = null;
  }
  if (!deps.lock.tryLock(INTAKE_LOCK_WAIT_MS)) deps.log(`delivery ${clip(delivery.eventId)} queued without the intake lock (busy for ${INTAKE_LOCK_WAIT_MS} ms)`);
  try {
    const sheets = prepared ?? deps.openSheets();
    return storeDelivery(delivery, now, sheets, deps);
  } catch (error) {
    // The spill is for a sheet that cannot take the delivery now (down, or missing a sheet Set up restores);
    // anything else would fail the same way at every drain, so it is kept in Rejected with the reason.
    if (isSheetsOutage(error)) return spill(deps, now, delivery, `the spreadsheet is unavailable: ${messageOf(error)}`);
    if (codeOf(error) === 'CONFIG_MISSING') return spill(deps, now, delivery, `the spreadsheet is not set up: ${messageOf(error)}`);
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
    recordRejection(sheets, deps, { at: now, kind: 'internal_error', reason, body, formId: delivery.formId, eventId: delivery.eventId });
    sheets.flush();
    deps.log(`delivery ${clip(delivery.eventId)} kept in Rejected: ${shownReason(reason, deps)}`);
    return { ok: false, error: 'internal_error', event_id: delivery.eventId };
  } catch (second) {
    deps.log(`delivery ${clip(delivery.eventId)} could not be kept in Rejected either (${redact(messageOf(second), secretsOf(deps))})`);
    return spill(deps, now, delivery, reason);
  }
}

/**
 * The critical section, with the intake lock held: config check, dedupe, one append, flush.
 * Shared by doPost and the spill drain, so a drained delivery gets exactly the same rules.
 */
export function storeDelivery(delivery: TypeformDelivery, receivedAt: number, sheets: IntakeSheetsWithConfig, deps: IntakeDeps): IntakeAnswer {
  const idsTooLarge = checkFieldSizes(storedFields(delivery));
  if (idsTooLarge) return rejectStored(sheets, deps, receivedAt, delivery, 'field_too_large', idsTooLarge.reason);
  if (delivery.partial) {
    // Answered 2xx so Typeform does not retry; counted as a partial, which alone never makes an incident (rejection-kinds.ts).
    recordRejection(sheets, deps, { at: receivedAt, kind: 'partial', reason: PARTIAL_REASON, body: delivery.compactJson, formId: delivery.formId, eventId: delivery.eventId });
    sheets.flush();
    rememberSeen(deps, delivery);
    return { ok: true, partial: true, event_id: delivery.eventId };
  }
  const config = formFor(delivery.formId, sheets, deps);
  if (!config) return rejectStored(sheets, deps, receivedAt, delivery, 'unknown_form', `"${clip(delivery.formId)}" is not enabled in the Config sheet`);
  const recipientTooLarge = checkFieldSizes({ recipient: findRecipient(delivery, config.recipientField) });
  if (recipientTooLarge) return rejectStored(sheets, deps, receivedAt, delivery, 'field_too_large', recipientTooLarge.reason);
  const hit = sheets.findDuplicate(delivery.eventId, delivery.responseToken, { archive: archiveMayHold(delivery.submittedAt, deps.clock.now()) });
  if (hit) {
    rememberSeen(deps, delivery);
    return { ok: true, duplicate: true, event_id: delivery.eventId };
  }
  const { row, payloadChunks } = buildQueueRow(delivery, receivedAt, config);
  sheets.appendQueueRow(row, payloadChunks);
  journal(sheets, deps, row, receivedAt);
  sheets.flush();
  // No seen mark for a first delivery: a Cache.put costs ~90 ms on every delivery to speed up a rare redelivery,
  // which the TextFinder answers anyway (and which then leaves its mark, above, for any further redelivery).
  markQueueDirty(deps.props, receivedAt);
  return row.status === 'TEST'
    ? { ok: true, queued: true, test: true, event_id: delivery.eventId }
    : { ok: true, queued: true, event_id: delivery.eventId };
}

/**
 * The submission's line in the Journal, where no staff edit of Queue reaches it (a row deleted or pasted over within
 * the minute before the next run is put back from it). The row is already in Queue, so a Journal that cannot take the
 * line (its protection does not let this account write, a Sheets hiccup) costs nothing but a log line: the next
 * processQueue run journals every unfinished row the Journal lacks.
 */
function journal(sheets: IntakeSheetsWithConfig, deps: IntakeDeps, row: QueueRow, receivedAt: number): void {
  try {
    sheets.appendJournal(journalEntryOf(row, receivedAt));
  } catch (error) {
    deps.log(`delivery ${clip(row.eventId)} queued; its Journal line is left to the next run (${redact(messageOf(error), secretsOf(deps))})`);
  }
}

/**
 * The form's settings for intake: from the copy in Script Properties when it accepts the form, else from the Config
 * sheet. A form the copy refuses or does not know is looked up in Config, so enabling one takes effect at once, and
 * a refusal is always Config's own word.
 */
function formFor(formId: string, sheets: IntakeSheetsWithConfig, deps: IntakeDeps): IntakeForm | null {
  return configFor(formId, deps.mirroredForms ?? []) ?? configFor(formId, sheets.readForms());
}

/** A parsed delivery refused with the intake lock held: kept in Rejected (its payload as the body), answered with `error`. */
function rejectStored(sheets: IntakeSheetsWithConfig, deps: IntakeDeps, at: number, delivery: TypeformDelivery, error: 'unknown_form' | 'field_too_large', reason: string): IntakeAnswer {
  const label = error === 'unknown_form' ? 'unknown form' : error;
  recordRejection(sheets, deps, { at, kind: error, reason: `${label}: ${reason}`, body: delivery.compactJson, formId: delivery.formId, eventId: delivery.eventId });
  sheets.flush();
  return { ok: false, error, event_id: delivery.eventId };
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

/** Kept in Script Properties as its compact JSON: what the drain and the payload need, nothing of the raw layout. */
function spill(deps: IntakeDeps, now: number, delivery: TypeformDelivery, why: string): IntakeAnswer {
  try {
    deps.spill.save(now, delivery.compactJson);
    deps.log(`delivery ${clip(delivery.eventId)} spilled to Script Properties (${shownReason(why, deps)}); processQueue will queue it`);
    return { ok: true, queued: 'deferred', event_id: delivery.eventId };
  } catch (error) {
    // Nothing left to hold it: say so in the answer and the log, never pretend it was kept.
    deps.log(`delivery ${clip(delivery.eventId)} could not be kept: ${redact(messageOf(error), secretsOf(deps))}`);
    return { ok: false, error: 'backlog_full', event_id: delivery.eventId };
  }
}

