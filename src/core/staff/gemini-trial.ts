// "Set a Script Property…" for GEMINI_API_KEY or GEMINI_MODEL: one tiny request with the new value, and what staff are told.
import { classifyGeminiOutcome } from '../domain/gemini/gemini-outcome';
import { modelList } from '../domain/gemini/model-list';
import { DEFAULT_GEMINI_MODEL } from '../domain/config/settings';
import type { GeminiOutcome } from '../domain/ports';
import type { PropertyWrites } from './set-property';

/** The key and model a trial uses once the change is made; null when the change is not Gemini's key or model. */
export function geminiTrialOf(writes: PropertyWrites, current: Readonly<Record<string, string>>): { apiKey: string; model: string } | null {
  const changed = Object.keys(writes.set).filter((key) => key === 'GEMINI_API_KEY' || key === 'GEMINI_MODEL');
  if (changed.length === 0) return null;
  const after = { ...current, ...writes.set };
  const apiKey = (after.GEMINI_API_KEY ?? '').trim();
  // A model without a key cannot be tried: the key's own change (or Self-test) tries it later.
  if (apiKey === '') return null;
  const [model = DEFAULT_GEMINI_MODEL] = modelList((after.GEMINI_MODEL ?? '').trim() || DEFAULT_GEMINI_MODEL);
  return { apiKey, model };
}

export interface TrialVerdict {
  /** Why Gemini refused the new value, as a question to save it anyway; null when it did not refuse it. */
  refused: string | null;
  /** One sentence added to what staff are told once it is saved. */
  note: string;
}

/**
 * What the trial's answer says about the new value. Only an answer that names the key or the model refuses it; an
 * outage, a rate limit or no answer at all says nothing about either, so the value is saved and staff told so.
 */
export function judgeGeminiTrial(outcome: GeminiOutcome, model: string): TrialVerdict {
  const verdict = classifyGeminiOutcome(outcome, { model });
  if (verdict.kind === 'ok') return { refused: null, note: ` Gemini answered a one-line test with this key and ${model}.` };
  if (verdict.kind === 'systemic' && verdict.incident === 'GEMINI_KEY_INVALID') {
    return { refused: 'Gemini refused this API key in a one-line test: no reply can be written with it. Create a key in Google AI Studio and set it again. Save it anyway?', note: ' Gemini refused the key in a one-line test.' };
  }
  if (verdict.kind === 'systemic' && verdict.incident === 'GEMINI_MODEL_NOT_FOUND') {
    return { refused: `Gemini does not know the model ${model} for this key (models are retired often): no reply can be written with it. Save it anyway?`, note: ` Gemini does not know the model ${model}.` };
  }
  return { refused: null, note: ' It could not be tried now (Gemini did not answer the one-line test clearly): formqueue → Self-test tries it again.' };
}
