// Self-test probes: the real Apps Script calls behind each check (a scratch sheet, triggers, quota, fetches), no verdicts.
import type { IdentityObservation, PlainTextObservation, TextFinderObservation, TriggerObservation } from '../core/self-test/checks';
import type { GeminiObservation, TypeformObservation, WebAppObservation } from '../core/self-test/service-checks';
import type { Probe } from '../core/self-test/check-result';
import { PLAIN_TEXT_SAMPLES, textFinderCells } from '../core/self-test/checks';
import { typeformProbeUrl } from '../core/self-test/service-checks';
import { geminiProbeRequest } from '../core/self-test/report';
import type { Settings } from '../core/domain/config/settings';
import { createGeminiClient } from './gemini-client';
import { appendRows, plainTextFormats } from './sheet-append';

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;

const NEEDLE = 'SelfTest01JQ8zK4';

function attempt<T>(run: () => T): Probe<T> {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    return { ok: false, error: String((error as Error)?.message ?? error) };
  }
}

/** Both sheet probes on one scratch sheet, deleted afterwards whatever happened. */
export function probeSheets(spreadsheet: Spreadsheet, now: number): { plainText: Probe<PlainTextObservation>; textFinder: Probe<TextFinderObservation> } {
  let sheet: GoogleAppsScript.Spreadsheet.Sheet;
  try {
    sheet = spreadsheet.insertSheet(`formqueue self-test ${now}`);
  } catch (error) {
    const failed = { ok: false as const, error: `could not add a scratch sheet: ${String((error as Error)?.message ?? error)}` };
    return { plainText: failed, textFinder: failed };
  }
  try {
    const plainText = attempt((): PlainTextObservation => {
      const width = PLAIN_TEXT_SAMPLES.length;
      // As Set up formats the Queue's columns ahead of the data, then the append every writer uses (appendRow).
      sheet.getRange(1, 1, sheet.getMaxRows(), width).setNumberFormat('@');
      appendRows(sheet, [PLAIN_TEXT_SAMPLES.slice()], plainTextFormats(width));
      const range = sheet.getRange(sheet.getLastRow(), 1, 1, width);
      return { read: range.getValues()[0], formats: range.getNumberFormats()[0] };
    });
    const textFinder = attempt((): TextFinderObservation => {
      const cells = textFinderCells(NEEDLE);
      const column = PLAIN_TEXT_SAMPLES.length + 2;
      const range = sheet.getRange(1, column, cells.length, 1);
      range.setNumberFormat('@');
      range.setValues(cells.map((cell) => [cell]));
      // The same finder intake's dedupe uses (src/gas/intake-sheets.ts).
      const found = sheet.getRange(1, column, sheet.getMaxRows(), 1).createTextFinder(NEEDLE).matchEntireCell(true).matchCase(true).findAll();
      return { needle: NEEDLE, matchedRows: found.map((cell) => cell.getRow()), expectedRow: cells.indexOf(NEEDLE) + 1 };
    });
    return { plainText, textFinder };
  } finally {
    try {
      spreadsheet.deleteSheet(sheet);
    } catch {
      // A scratch sheet left behind is visible and harmless; the report already says what was found.
    }
  }
}

/** The account this execution runs as: in the web app, the deploying account. */
export function effectiveUserEmail(): string {
  return Session.getEffectiveUser().getEmail();
}

export function probeTriggers(): Probe<TriggerObservation[]> {
  return attempt(() => ScriptApp.getProjectTriggers().map((t) => ({ handler: t.getHandlerFunction(), type: String(t.getEventType()) })));
}

export function probeMailQuota(): Probe<number> {
  return attempt(() => MailApp.getRemainingDailyQuota());
}

export function probeGemini(settings: Settings): Probe<GeminiObservation> | { ok: 'not-set' } {
  if (settings.geminiApiKey === '') return { ok: 'not-set' };
  return attempt((): GeminiObservation => {
    const request = geminiProbeRequest(settings.geminiModel);
    const [outcome] = createGeminiClient(settings.geminiBaseUrl, settings.geminiApiKey).generateAll([request]);
    const config = (request.body as { generationConfig: Record<string, unknown> }).generationConfig;
    return { model: settings.geminiModel, configKeys: Object.keys(config), outcome };
  });
}

/** Typeform under TYPEFORM_BASE_URL, where the daily Typeform check asks too (src/gas/typeform-reconcile.ts). */
export function probeTypeform(settings: Settings): TypeformObservation | { ok: 'not-set' } {
  if (settings.typeformToken === '') return { ok: 'not-set' };
  const url = typeformProbeUrl(settings.typeformBaseUrl);
  return {
    url,
    answer: attempt(() => {
      const response = UrlFetchApp.fetch(url, { headers: { Authorization: `Bearer ${settings.typeformToken}` }, muteHttpExceptions: true });
      return { status: response.getResponseCode(), body: response.getContentText() };
    }),
  };
}

function webAppUrl(): string | null {
  const url = ScriptApp.getService().getUrl();
  return url ? url : null;
}

function fetchWebApp(url: string, query: string): Probe<{ status: number; body: string }> {
  return attempt(() => {
    // GET follows Apps Script's 302 to the one-time echo URL, as Typeform does.
    const response = UrlFetchApp.fetch(`${url}${url.includes('?') ? '&' : '?'}${query}`, { muteHttpExceptions: true, followRedirects: true });
    return { status: response.getResponseCode(), body: response.getContentText() };
  });
}

export function probeWebApp(settings: Settings): WebAppObservation {
  const url = webAppUrl();
  if (url === null) return { url, answer: null };
  return { url, answer: settings.healthToken === '' ? null : fetchWebApp(url, `token=${encodeURIComponent(settings.healthToken)}`) };
}

/** Who the web app runs as: its identity view, behind the same token as the health view. */
export function probeIdentity(settings: Settings): IdentityObservation {
  const activeUser = Session.getActiveUser().getEmail();
  const url = webAppUrl();
  if (url === null) return { activeUser, webApp: { ok: false, error: 'there is no web-app deployment' } };
  if (settings.healthToken === '') return { activeUser, webApp: { ok: false, error: 'HEALTH_TOKEN is not set' } };
  const answer = fetchWebApp(url, `token=${encodeURIComponent(settings.healthToken)}&view=identity`);
  if (!answer.ok) return { activeUser, webApp: answer };
  try {
    const parsed = JSON.parse(answer.value.body) as { runsAs?: unknown };
    if (typeof parsed.runsAs === 'string') return { activeUser, webApp: { ok: true, value: parsed.runsAs } };
  } catch {
    // not JSON: reported below
  }
  return { activeUser, webApp: { ok: false, error: `HTTP ${answer.value.status}, no identity in the answer (an older deployed version? run npm run deploy): ${answer.value.body.slice(0, 120)}` } };
}
