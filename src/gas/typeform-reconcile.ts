// reconcileTypeform wired to Apps Script: UrlFetchApp to Typeform, column reads of Queue and Archive, intake's store.
import { formConfigsFromValues, ANY_FORM } from '../core/domain/config/form-config';
import { messageOf } from '../core/domain/failures/errors';
import { INTAKE_LOCK_WAIT_MS, storeDelivery } from '../core/intake/intake';
import { isRejectedBodyKey, joinPayloadParts } from '../core/domain/queue/cell-chunks';
import { parseTypeformBody } from '../core/domain/typeform/typeform-payload';
import { indexColumns } from '../core/domain/queue/queue-row';
import { reconcileTypeform, reportLines, type ReconcileReport, type StoreAnswer, type TypeformAnswer, type TypeformHttp } from '../core/reconcile/typeform-reconcile';
import { TYPEFORM_CHECK_PROPERTY, checkRecordOf, readCheckRecord } from '../core/reconcile/check-record';
import { windowTime, type ResponseWindow } from '../core/reconcile/typeform-window';
import { rejectedBodyHolds } from '../core/reconcile/rejected-match';
import type { Settings } from '../core/domain/config/settings';
import { SHEETS } from '../core/domain/queue/sheet-names';
import { markQueueDirty } from '../core/domain/queue/tick-gate';
import { MINUTE_MS } from '../core/domain/time';
import { intakeDeps } from './intake-service';
import { readPayloadParts } from './payloads';
import type { Services } from './services';
import { requireSheet } from './spreadsheet';
import { createJournalStore } from './journal-store';
import { isSubmissionIdentity } from '../core/domain/queue/submission-identity';

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;

/** What the check says without a token: missed deliveries cannot be recovered, and how to fix that. */
export const TYPEFORM_OFF_LINE =
  'TYPEFORM_TOKEN is not set: the Typeform check is off, so submissions whose webhook never arrived cannot be recovered. ' +
  'Set TYPEFORM_TOKEN (a Typeform personal token with responses:read, forms:read and webhooks:read) in Script Properties (docs/reconciliation.md).';

/** A trigger run may last 6 minutes; new requests stop here so the report is always written. */
const RUN_BUDGET_MS = 4.5 * MINUTE_MS;

/** GET (and PUT with a JSON body) to Typeform with the Bearer token; never throws for an HTTP status. */
export function typeformHttp(settings: Settings): TypeformHttp & { put(path: string, body: unknown): TypeformAnswer } {
  return {
    put(path, body) {
      try {
        const response = UrlFetchApp.fetch(`${settings.typeformBaseUrl}${path}`, {
          method: 'put', contentType: 'application/json', payload: JSON.stringify(body),
          headers: { Authorization: `Bearer ${settings.typeformToken}` }, muteHttpExceptions: true,
        });
        return { status: response.getResponseCode(), text: response.getContentText(), retryAfterSeconds: null };
      } catch (error) {
        return { status: 0, text: messageOf(error), retryAfterSeconds: null };
      }
    },
    get(path, query) {
      const search = Object.entries(query).map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
      const url = `${settings.typeformBaseUrl}${path}${search ? `?${search}` : ''}`;
      try {
        const response = UrlFetchApp.fetch(url, { method: 'get', headers: { Authorization: `Bearer ${settings.typeformToken}` }, muteHttpExceptions: true });
        const headers = response.getHeaders() as Record<string, string>;
        const retryAfter = Number(headers['Retry-After'] ?? headers['retry-after']);
        return { status: response.getResponseCode(), text: response.getContentText(), retryAfterSeconds: Number.isFinite(retryAfter) ? retryAfter : null };
      } catch (error) {
        // DNS, time-out: no HTTP status; reported for the form like a 5xx.
        return { status: 0, text: messageOf(error), retryAfterSeconds: null };
      }
    },
  };
}

/** Every response token in one sheet's response_token column: one read, not one search per response. */
function tokensIn(spreadsheet: Spreadsheet, name: string, into: Set<string>): void {
  const sheet = spreadsheet.getSheetByName(name);
  if (!sheet || sheet.getLastRow() < 2) return;
  const header = sheet.getRange(1, 1, 1, Math.max(sheet.getLastColumn(), 1)).getValues()[0];
  const column = indexColumns(header).response_token;
  if (column < 0) return;
  for (const [value] of sheet.getRange(2, column + 1, sheet.getLastRow() - 1, 1).getValues()) if (value !== '') into.add(String(value));
}

/**
 * Every response the Journal holds was accepted once: one whose row staff deleted after it was answered is no missed
 * submission, and queuing it again (under a new event_id) would answer it twice. A deployment from before the Journal
 * has none to read.
 */
function journaledTokens(spreadsheet: Spreadsheet, into: Set<string>): void {
  if (!spreadsheet.getSheetByName(SHEETS.journal)) return;
  for (const key of createJournalStore(spreadsheet).allKeys()) if (isSubmissionIdentity(key)) into.add(key.slice(key.lastIndexOf(':') + 1));
}

function spilledTokens(services: Services, into: Set<string>): void {
  for (const entry of services.spill().list()) {
    const parsed = parseTypeformBody(entry.body);
    if (parsed.ok) into.add(parsed.delivery.responseToken);
  }
}

/** Rows a TextFinder may return for one token before the rest are left unread: a token is in one or two real bodies. */
const MAX_CANDIDATES = 20;

/**
 * Rejected bodies that mention the token anywhere: cells of Rejected holding it, and Rejected bodies kept in Payloads
 * whose parts hold it (Queue payloads there are skipped: their tokens are known from Queue). Only candidates: a
 * mention is not a delivery of that response (rejected-match.ts decides, on the parsed body). A token is near the
 * start of a body (form_response.token comes before the answers), so it is never split between two parts.
 */
function rejectedBodiesMentioning(spreadsheet: Spreadsheet, token: string): string[] {
  const bodies: string[] = [];
  const rejected = spreadsheet.getSheetByName(SHEETS.rejected);
  if (rejected && rejected.getLastRow() > 1) {
    for (const cell of rejected.createTextFinder(token).matchCase(true).findAll().slice(0, MAX_CANDIDATES)) bodies.push(String(cell.getValue()));
  }
  const payloads = spreadsheet.getSheetByName(SHEETS.payloads);
  if (payloads && payloads.getLastRow() > 1) {
    const keys = new Set<string>();
    for (const cell of payloads.createTextFinder(token).matchCase(true).findAll().slice(0, MAX_CANDIDATES)) {
      const key = String(payloads.getRange(cell.getRow(), 1).getValue());
      if (isRejectedBodyKey(key)) keys.add(key);
    }
    for (const key of keys) {
      const body = joinPayloadParts(readPayloadParts(spreadsheet, key), () => true);
      if (body !== null) bodies.push(body);
    }
  }
  return bodies;
}

/** Whether Rejected holds a delivery of this response that staff can accept; the tokens it said yes to are kept in `found`. */
function inRejected(spreadsheet: Spreadsheet, token: string, found: string[]): boolean {
  const holds = rejectedBodiesMentioning(spreadsheet, token).some((body) => rejectedBodyHolds(body, token));
  if (holds) found.push(token);
  return holds;
}

function storeRecovered(body: string): StoreAnswer {
  const parsed = parseTypeformBody(body);
  if (!parsed.ok) return { ok: false, error: parsed.error };
  const deps = intakeDeps();
  if (!deps.lock.tryLock(INTAKE_LOCK_WAIT_MS)) return { ok: false, error: 'intake lock busy' };
  try {
    return storeDelivery(parsed.delivery, deps.clock.now(), deps.openSheets(), deps);
  } finally {
    deps.lock.release();
  }
}

/** Enabled forms named in Config (the `*` row names no form Typeform could be asked about). */
export function checkedFormIds(spreadsheet: Spreadsheet): string[] {
  return formConfigsFromValues(requireSheet(spreadsheet, SHEETS.config).getDataRange().getValues())
    .filter((form) => form.enabled && form.formId !== ANY_FORM)
    .map((form) => form.formId);
}

/**
 * Reads Typeform for the forms and queues what no sheet holds: the daily window (from the last complete check when
 * that is older), or `window`. The tokens found only in Rejected are pushed onto `foundInRejected`.
 */
export function reconcileForms(services: Services, formIds: readonly string[], options: { window?: ResponseWindow; lastCompleteUntil?: number | null; foundInRejected: string[] }): ReconcileReport {
  const settings = services.settings();
  const spreadsheet = services.spreadsheet();
  const known = new Set<string>();
  const now = services.clock.now();
  return reconcileTypeform({
    clock: services.clock,
    sleep: (ms) => Utilities.sleep(ms),
    http: typeformHttp(settings),
    formIds,
    places: {
      knownTokens: () => {
        tokensIn(spreadsheet, SHEETS.queue, known);
        tokensIn(spreadsheet, SHEETS.archive, known);
        journaledTokens(spreadsheet, known);
        spilledTokens(services, known);
        return known;
      },
      inRejected: (token) => inRejected(spreadsheet, token, options.foundInRejected),
    },
    store: storeRecovered,
    webAppUrl: ScriptApp.getService().getUrl() ?? '',
    deadline: now + RUN_BUDGET_MS,
    window: options.window,
    lastCompleteUntil: options.lastCompleteUntil,
  });
}

/** Runs the check when TYPEFORM_TOKEN is set; the report lines, also kept for processQueue's triage and the daily summary. */
export function runTypeformCheck(services: Services): string[] {
  const props = services.props();
  const snapshot = services.snapshot();
  const settings = services.settings();
  if (settings.typeformToken === '') return [TYPEFORM_OFF_LINE];
  const previous = readCheckRecord(snapshot);
  const coveredUntil = previous?.coveredUntil ?? '';
  const foundInRejected: string[] = [];
  const report = reconcileForms(services, checkedFormIds(services.spreadsheet()), { lastCompleteUntil: windowTime(coveredUntil), foundInRejected });
  const record = checkRecordOf(report, foundInRejected, coveredUntil);
  props.set(TYPEFORM_CHECK_PROPERTY, JSON.stringify(record));
  // The next processQueue tick runs (not skipped as idle) and tells staff what the check found.
  if (record.recovered > 0 || record.inRejected > 0 || record.disabled.length > 0) markQueueDirty(props, services.clock.now());
  const lines = reportLines(report);
  console.log(lines.join('\n'));
  return lines;
}
