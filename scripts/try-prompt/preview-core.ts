// What `npm run try-prompt` needs of core, bundled by scripts/try-prompt.mjs: the sample read as intake reads it, and the preview.
import { configFor, blankFormConfig, formConfigsFromValues } from '../../src/core/domain/config/form-config';
import { renderSubmission } from '../../src/core/domain/typeform/answers';
import { parseTypeformBody } from '../../src/core/domain/typeform/typeform-payload';
import type { GeminiOutcome } from '../../src/core/domain/ports';
import type { FormConfig } from '../../src/core/domain/sheet-ports';
import { previewModels, previewRequest, previewText, readPreview, type PreviewResult } from '../../src/core/processing/preview';
import { emptyRow } from '../../src/core/domain/queue/queue-row';
import { readSettings } from '../../src/core/domain/config/settings';

export interface TryPromptInput {
  formId: string;
  /** The sample: a Typeform webhook delivery (JSON), as Typeform POSTs it. */
  sample: string;
  /** The Config sheet's rows, header first (exported as CSV and split, or as a JSON array of arrays); [] for the defaults. */
  configRows: readonly (readonly unknown[])[];
  /** A prompt to try instead of the form's; '' keeps the form's. */
  prompt: string;
  /** Script Properties that matter here: GEMINI_MODEL, GEMINI_PRICES. */
  props: Record<string, string>;
  /** Asks Gemini (the real API or the offline stand-in) once. */
  ask(model: string, body: unknown): Promise<GeminiOutcome>;
}

/** Runs the form's prompt on the sample, walking the model list past 404s; returns the text to print. */
export async function tryPrompt(input: TryPromptInput): Promise<{ ok: boolean; text: string }> {
  const parsed = parseTypeformBody(input.sample);
  if (!parsed.ok) return { ok: false, text: `The sample is not a Typeform delivery: ${parsed.reason}` };
  const delivery = parsed.delivery;
  const formId = input.formId || delivery.formId;
  const forms = input.configRows.length > 1 ? formConfigsFromValues(input.configRows) : [];
  const found: FormConfig = configFor(formId, forms.map((form) => ({ ...form, enabled: true }))) ?? blankFormConfig(formId);
  const config = input.prompt.trim() === '' ? found : { ...found, prompt: input.prompt };
  const { settings } = readSettings(input.props);
  const row = { ...emptyRow(), eventId: delivery.eventId, formId, responseToken: delivery.responseToken, submission: renderSubmission(delivery), payload: input.sample };
  const results: PreviewResult[] = [];
  for (const model of previewModels(config, settings)) {
    const request = previewRequest(row, config, settings, model);
    const result = readPreview(await input.ask(request.model, request.body), request, settings);
    results.push(result);
    if (result.kind !== 'model-not-found') break;
  }
  return { ok: results.some((result) => result.kind === 'reply'), text: previewText(results) };
}
