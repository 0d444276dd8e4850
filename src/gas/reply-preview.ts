// formqueue → Preview reply: the selected Queue row's prompt asked of Gemini, shown in a dialog; nothing is written or mailed.
import { previewModels, previewRequest, previewText, readPreview, type PreviewResult } from '../core/processing/preview';
import { processingConfigFor } from '../core/processing/row-inputs';
import { readSettings } from '../core/domain/config/settings';
import { escapeHtml } from '../core/domain/text';
import { createGeminiClient } from './gemini-client';
import { selectedQueueRowNumbers } from './menu';
import { readPayload } from './payloads';
import type { Services } from './services';

/**
 * Asks Gemini for the row the cursor is on, with its form's prompt and model list (past a 404 to the next model), and
 * shows the reply with its tokens and estimated cost. The row keeps its status, result and attempts; the call's tokens
 * are shown but not added to the day's totals (only processQueue, under the script lock, writes those).
 */
export function showReplyPreview(ui: GoogleAppsScript.Base.Ui, services: Services): void {
  const deps = { spreadsheet: services.spreadsheet(), store: services.queue(), props: services.props() };
  const numbers = selectedQueueRowNumbers(deps.spreadsheet);
  if (numbers === null || numbers.length === 0) {
    ui.alert('Preview reply', 'Open the Queue sheet and put the cursor on the row to preview.', ui.ButtonSet.OK);
    return;
  }
  const [row] = deps.store.readRows([numbers[0]]);
  const { settings } = readSettings(deps.props.getAll());
  if (!row || row.eventId === '') {
    ui.alert('Preview reply', `Row ${numbers[0]} holds no submission.`, ui.ButtonSet.OK);
    return;
  }
  if (settings.geminiApiKey === '') {
    ui.alert('Preview reply', 'Script Property GEMINI_API_KEY is not set, so Gemini cannot be asked.', ui.ButtonSet.OK);
    return;
  }
  const config = processingConfigFor(row.formId, services.config().readForms());
  const subject = { ...row, payload: readPayload(deps.spreadsheet, row) };
  const gemini = createGeminiClient(settings.geminiBaseUrl, settings.geminiApiKey);
  const results: PreviewResult[] = [];
  for (const model of previewModels(config, settings)) {
    const request = previewRequest(subject, config, settings, model);
    let outcome;
    try {
      [outcome] = gemini.generateAll([request]);
    } catch (error) {
      outcome = { kind: 'transport' as const, message: String((error as Error).message ?? error) };
    }
    const result = readPreview(outcome, request, settings);
    results.push(result);
    if (result.kind !== 'model-not-found') break;
  }
  const text = `${previewText(results)}\n\nA preview only: row ${row.rowNumber} was not changed and nothing was mailed.`;
  const html = `<pre style="white-space:pre-wrap;font-family:Arial,sans-serif;font-size:13px">${escapeHtml(text)}</pre>`;
  ui.showModalDialog(HtmlService.createHtmlOutput(html).setWidth(620).setHeight(520), `formqueue: reply preview for row ${row.rowNumber}`);
}
