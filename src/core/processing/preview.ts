// Preview a reply: the form's prompt asked of Gemini for one submission, read back with its tokens and cost, changing nothing.
import type { GeminiOutcome, GeminiRequest } from '../domain/ports';
import type { FormConfig } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import type { Settings } from '../domain/config/settings';
import { answerValuesByRef } from '../domain/typeform/template-answers';
import { buildGeminiRequest } from '../domain/gemini/gemini';
import { classifyGeminiOutcome } from '../domain/gemini/gemini-outcome';
import { modelsFor } from '../domain/gemini/model-list';
import { estimateCost, formatCost, priceOf, usageOf, type TokenUsage } from '../domain/gemini/token-usage';

export type PreviewResult =
  | { kind: 'reply'; text: string; model: string; modelVersion: string; usage: TokenUsage; cost: number | null }
  /** Gemini answered 404 for this model: the caller asks the next of `models`. */
  | { kind: 'model-not-found'; model: string; reason: string }
  | { kind: 'no-reply'; model: string; reason: string; usage: TokenUsage | null };

/** The models a preview tries, in order (the form's list, else GEMINI_MODEL's); retired ones are not skipped: a preview says so. */
export function previewModels(config: FormConfig, settings: Settings): string[] {
  return modelsFor(config.model, settings.geminiModels);
}

/** The same request processing would send for this row, asked of `model`. Throws TEMPLATE_INVALID as processing would. */
export function previewRequest(row: QueueRow, config: FormConfig, settings: Settings, model: string): GeminiRequest {
  return buildGeminiRequest({ row, config, answers: answerValuesByRef(row.payload), defaultModel: settings.geminiModel, model });
}

/** What one answer means for the preview. */
export function readPreview(outcome: GeminiOutcome, request: GeminiRequest, settings: Settings): PreviewResult {
  const verdict = classifyGeminiOutcome(outcome, { model: request.model });
  const spent = usageOf(outcome);
  if (verdict.kind === 'ok') {
    const usage = spent?.usage ?? { prompt: 0, output: 0, thinking: 0 };
    const modelVersion = spent?.modelVersion ?? '';
    return { kind: 'reply', text: verdict.text, model: request.model, modelVersion, usage, cost: estimateCost(usage, priceOf(settings.geminiPrices, request.model, modelVersion)) };
  }
  if (verdict.kind === 'systemic' && verdict.incident === 'GEMINI_MODEL_NOT_FOUND') return { kind: 'model-not-found', model: request.model, reason: verdict.reason };
  return { kind: 'no-reply', model: request.model, reason: verdict.reason, usage: spent?.usage ?? null };
}

/** The preview as plain text: the reply, then the model, tokens and estimated cost (or why there is none). */
export function previewText(results: readonly PreviewResult[]): string {
  const lines: string[] = [];
  for (const result of results) {
    if (result.kind === 'model-not-found') lines.push(`Model ${result.model}: not found (404), retired or mistyped; next model of the list asked.`);
    else if (result.kind === 'no-reply') lines.push(`Model ${result.model}: no reply. ${result.reason}`);
    else {
      const version = result.modelVersion !== '' && result.modelVersion !== result.model ? ` (version ${result.modelVersion})` : '';
      lines.push(result.text, '', `Model: ${result.model}${version}`);
      lines.push(`Tokens: prompt ${result.usage.prompt}, output ${result.usage.output}, thinking ${result.usage.thinking}`);
      lines.push(`Estimated cost: ${formatCost(result.cost)}`);
    }
  }
  return lines.join('\n');
}
