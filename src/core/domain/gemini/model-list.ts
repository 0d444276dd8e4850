// GEMINI_MODEL and the Config `model` cell as an ordered list of models, and the models found retired (404) kept between runs.

/** Script Property where processQueue keeps the models Gemini answered 404 for, with when (written with the run's other marks). */
export const RETIRED_MODELS_PROPERTY = 'FQ_MODELS_RETIRED';

/**
 * A retired id is skipped this long, then asked once more: a 404 from a mistyped id that was fixed by hand, or from a
 * model Google brought back, must not keep it skipped forever. One extra call a week per retired id.
 */
export const RETIRED_MODEL_RECHECK_MS = 7 * 24 * 3600 * 1000;

/** Models by id → when Gemini last answered 404 for it (epoch ms). */
export type RetiredModels = Map<string, number>;

/** "gemini-3.5-flash, gemini-3.5-flash-lite" → the ids in order, each once; blank → []. */
export function modelList(text: string): string[] {
  const ids = text
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  return Array.from(new Set(ids));
}

/** The models a form's rows are written with: its Config cell when set, else GEMINI_MODEL's list. */
export function modelsFor(configModel: string, defaultModels: readonly string[]): string[] {
  const own = modelList(configModel);
  return own.length > 0 ? own : [...defaultModels];
}

/**
 * The model to ask: the first of the list not known retired. When every one is retired the last is asked anyway: its
 * 404 then pauses generation (GEMINI_MODEL_NOT_FOUND) as before, and an id Google restored is found working again.
 */
export function firstLiveModel(models: readonly string[], retired: ReadonlySet<string> | RetiredModels): string {
  return models.find((model) => !retired.has(model)) ?? models[models.length - 1] ?? '';
}

/** The model after `model` in the list that is not known retired, or null when the list has none left. */
export function nextLiveModel(models: readonly string[], model: string, retired: ReadonlySet<string> | RetiredModels): string | null {
  const from = models.indexOf(model);
  return models.slice(from + 1).find((candidate) => !retired.has(candidate)) ?? null;
}

/** The stored list, without entries older than the recheck time (and without anything unreadable). */
export function readRetiredModels(stored: string | undefined, now: number): RetiredModels {
  const retired: RetiredModels = new Map();
  if (!stored) return retired;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return retired;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return retired;
  for (const [model, at] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof at === 'number' && now - at < RETIRED_MODEL_RECHECK_MS) retired.set(model, at);
  }
  return retired;
}

/** The value to store ('' deletes nothing but says "none"), or null when it has not changed. */
export function retiredModelsToWrite(retired: RetiredModels, stored: string | undefined): string | null {
  const value = retired.size === 0 ? '' : JSON.stringify(Object.fromEntries(retired));
  return value === (stored ?? '') ? null : value;
}
