// What a Gemini answer says it spent (usageMetadata, modelVersion), and its estimated cost from the price table.
import type { GeminiOutcome } from '../ports';

/** Tokens of one or more generateContent answers: thinking is billed as output (https://ai.google.dev/gemini-api/docs/pricing). */
export interface TokenUsage {
  prompt: number;
  output: number;
  thinking: number;
}

export const NO_USAGE: TokenUsage = { prompt: 0, output: 0, thinking: 0 };

/** US dollars per 1M tokens: input (the prompt), output (the reply and thinking). */
export interface ModelPrice {
  input: number;
  output: number;
}

/**
 * Paid-tier prices of the models whose input and output price we could both read, for prompts up to 200k tokens
 * (docs/costs-and-data.md names the source and the date). Any other model: set GEMINI_PRICES.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gemini-3.5-flash': { input: 1.5, output: 9 },
  'gemini-3.5-flash-lite': { input: 0.3, output: 2.5 },
  'gemini-3.1-pro-preview': { input: 2, output: 12 },
};

function count(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** The tokens and model version a 200 answer reports; an error or a transport failure spent nothing we are told of. */
export function usageOf(outcome: GeminiOutcome): { usage: TokenUsage; modelVersion: string } | null {
  if (outcome.kind !== 'http' || outcome.status < 200 || outcome.status >= 300) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(outcome.body);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const body = parsed as Record<string, unknown>;
  const meta = typeof body.usageMetadata === 'object' && body.usageMetadata !== null ? (body.usageMetadata as Record<string, unknown>) : {};
  return {
    usage: { prompt: count(meta.promptTokenCount), output: count(meta.candidatesTokenCount), thinking: count(meta.thoughtsTokenCount) },
    modelVersion: typeof body.modelVersion === 'string' ? body.modelVersion.slice(0, 100) : '',
  };
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { prompt: a.prompt + b.prompt, output: a.output + b.output, thinking: a.thinking + b.thinking };
}

export function totalTokens(usage: TokenUsage): number {
  return usage.prompt + usage.output + usage.thinking;
}

/** The price of the model as configured, else of the version Gemini named; null when the table has neither. */
export function priceOf(prices: Readonly<Record<string, ModelPrice>>, model: string, modelVersion = ''): ModelPrice | null {
  return prices[model] ?? (modelVersion !== '' ? prices[modelVersion] : undefined) ?? null;
}

/** Estimated US dollars, or null when the model has no price. */
export function estimateCost(usage: TokenUsage, price: ModelPrice | null): number | null {
  if (price === null) return null;
  return (usage.prompt * price.input + (usage.output + usage.thinking) * price.output) / 1e6;
}

/** "$0.00412" (five decimals: a reply costs fractions of a cent), or "no price for this model". */
export function formatCost(cost: number | null): string {
  return cost === null ? 'no price for this model (GEMINI_PRICES)' : `$${cost.toFixed(5)}`;
}

/** The Log's words for what a reply spent: "model gemini-3.5-flash; tokens: prompt 812, output 310, thinking 512; est. $0.00807". */
export function usageDetail(model: string, modelVersion: string, usage: TokenUsage, cost: number | null): string {
  const version = modelVersion !== '' && modelVersion !== model ? ` (version ${modelVersion})` : '';
  return `model ${model}${version}; tokens: prompt ${usage.prompt}, output ${usage.output}, thinking ${usage.thinking}; est. ${formatCost(cost)}`;
}

/**
 * GEMINI_PRICES: "gemini-3.5-flash=1.50/9.00; my-model=0.3/2.5" (US dollars per 1M input/output tokens), on top of
 * the defaults. Returns the table and each entry it could not read.
 */
export function parsePrices(text: string): { prices: Record<string, ModelPrice>; problems: string[] } {
  const prices: Record<string, ModelPrice> = { ...DEFAULT_PRICES };
  const problems: string[] = [];
  for (const entry of text.split(/[;\n]+/).map((part) => part.trim()).filter((part) => part !== '')) {
    const match = /^([A-Za-z0-9._/-]+)\s*=\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(entry);
    const input = match ? Number(match[2]) : NaN;
    const output = match ? Number(match[3]) : NaN;
    if (!match || input > 1000 || output > 1000) problems.push(entry);
    else prices[match[1]] = { input, output };
  }
  return { prices, problems };
}
