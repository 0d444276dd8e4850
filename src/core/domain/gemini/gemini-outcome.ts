// Every outcome of a generateContent call classified once: ok (the reply, capped to a cell), retryable, systemic, content, out of tokens, rejected.
import type { GeminiOutcome } from '../ports';
import { redact } from '../failures/redact';

/** A cell holds 50,000 characters; the rest of the row and staff edits need headroom. */
export const MAX_RESULT_CHARS = 45000;
const MAX_REASON_CHARS = 240;

export type SystemicGeminiIncident = 'GEMINI_KEY_INVALID' | 'GEMINI_MODEL_NOT_FOUND' | 'GEMINI_DAILY_QUOTA' | 'URLFETCH_DAILY_QUOTA';

export type GeminiVerdict =
  | { kind: 'ok'; text: string }
  /** `outage`: Gemini did not answer at all (5xx, 408, timeout, no connection), as it does while it is down. */
  | { kind: 'retryable'; reason: string; retryAfterSeconds?: number; rateLimited?: true; uncharged?: true; outage?: true }
  | { kind: 'systemic'; incident: SystemicGeminiIncident; reason: string }
  | { kind: 'content'; reason: string }
  /** MAX_TOKENS before any text: the model spent its whole output budget thinking. */
  | { kind: 'out-of-tokens'; reason: string }
  | { kind: 'rejected'; reason: string };

/** Text beyond the cap is cut at the last paragraph break that fits, so the reply does not stop mid-sentence. */
export function capResultText(text: string): string {
  if (text.length <= MAX_RESULT_CHARS) return text;
  const head = text.slice(0, MAX_RESULT_CHARS);
  const cut = head.lastIndexOf('\n\n');
  return (cut > MAX_RESULT_CHARS / 2 ? head.slice(0, cut) : head).trimEnd();
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The objects in a list (anything else in it, or a value that is no list, is left out). */
function objectsIn(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function short(text: string): string {
  const line = redact(text).replace(/\s+/g, ' ').trim();
  return line.length > MAX_REASON_CHARS ? `${line.slice(0, MAX_REASON_CHARS - 1)}…` : line;
}

/** "26s" / "1.5s" (proto-JSON Duration) or {seconds, nanos}. */
function durationSeconds(value: unknown): number | undefined {
  if (typeof value === 'string') {
    const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
    return match ? Number(match[1]) : undefined;
  }
  if (isObject(value) && value.seconds !== undefined) return Number(value.seconds) + Number(value.nanos ?? 0) / 1e9;
  return undefined;
}

interface GeminiError {
  status: string;
  message: string;
  /** An ErrorInfo detail says API_KEY_INVALID. */
  keyInvalid: boolean;
  /** A QuotaFailure violation names a per-day quota (e.g. GenerateRequestsPerDayPerProjectPerModel-FreeTier). */
  dailyQuota: boolean;
  retryDelaySeconds?: number;
}

function readError(body: string): GeminiError {
  const parsed = parseJson(body);
  const error = isObject(parsed) && isObject(parsed.error) ? parsed.error : {};
  const found: GeminiError = { status: String(error.status ?? ''), message: String(error.message ?? ''), keyInvalid: false, dailyQuota: false };
  for (const detail of objectsIn(error.details)) {
    if (detail.reason === 'API_KEY_INVALID') found.keyInvalid = true;
    for (const violation of objectsIn(detail.violations)) {
      if (typeof violation.quotaId === 'string' && /PerDay/i.test(violation.quotaId)) found.dailyQuota = true;
    }
    const delay = durationSeconds(detail.retryDelay);
    if (delay !== undefined) found.retryDelaySeconds = delay;
  }
  return found;
}

function classifySuccess(body: string): GeminiVerdict {
  const parsed = parseJson(body);
  // A 200 that is not JSON came from something in between (proxy, captive page): nothing was generated.
  if (!isObject(parsed)) return { kind: 'retryable', reason: 'Gemini answered 200 with a body that is not JSON' };
  const feedback = isObject(parsed.promptFeedback) ? parsed.promptFeedback : {};
  if (feedback.blockReason) {
    const why = feedback.blockReasonMessage ? `: ${String(feedback.blockReasonMessage)}` : '';
    return { kind: 'content', reason: short(`Gemini blocked the prompt (${String(feedback.blockReason)})${why}`) };
  }
  const candidate = Array.isArray(parsed.candidates) && isObject(parsed.candidates[0]) ? parsed.candidates[0] : undefined;
  if (!candidate) return { kind: 'content', reason: 'Gemini returned no candidate' };
  const finish = String(candidate.finishReason ?? 'FINISH_REASON_UNSPECIFIED');
  const content = isObject(candidate.content) ? candidate.content : {};
  const text = objectsIn(content.parts)
    .filter((part) => part.thought !== true && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('')
    .trim();
  if (finish === 'MAX_TOKENS' && text === '') {
    const usage = isObject(parsed.usageMetadata) ? parsed.usageMetadata : {};
    const thoughts = usage.thoughtsTokenCount === undefined ? '' : ` (${String(usage.thoughtsTokenCount)} thinking tokens)`;
    return { kind: 'out-of-tokens', reason: `Gemini spent its whole output budget thinking and wrote no reply${thoughts}` };
  }
  if (finish !== 'STOP') return { kind: 'content', reason: `Gemini stopped before finishing the reply (finishReason ${finish})` };
  if (text === '') return { kind: 'content', reason: 'Gemini returned an empty reply' };
  return { kind: 'ok', text: capResultText(text) };
}

/** UrlFetchApp's error once the account's daily "URL Fetch calls" quota is used up (docs/quotas.md). */
const URLFETCH_DAILY_QUOTA_RE = /too many times for one day: urlfetch/i;

export interface GeminiCallContext {
  /** The model id the request used, so "not found" can name it. */
  model?: string;
}

/** A request that got no HTTP answer: never asked, refused by Apps Script's daily URL Fetch quota, or Gemini unreachable. */
function classifyTransport(outcome: Extract<GeminiOutcome, { kind: 'transport' }>): GeminiVerdict {
  // Apps Script's own daily URL Fetch quota: no request can leave until the account's window resets, so it is
  // systemic like Gemini's daily quota (rows keep their attempts), never an outage to charge rows for.
  if (URLFETCH_DAILY_QUOTA_RE.test(outcome.message)) {
    return {
      kind: 'systemic',
      incident: 'URLFETCH_DAILY_QUOTA',
      reason: short(`Apps Script's daily URL Fetch quota is used up (${outcome.message}); it resets 24 hours after the first call of its window`),
    };
  }
  const reason = short(`Gemini could not be reached: ${outcome.message}`);
  return outcome.notAsked ? { kind: 'retryable', reason, uncharged: true } : { kind: 'retryable', reason, outage: true };
}

/** Every outcome of a generateContent call, classified once (docs/states.md#failure-classes-as-implemented, docs/platform.md#gemini-api). */
export function classifyGeminiOutcome(outcome: GeminiOutcome, context: GeminiCallContext = {}): GeminiVerdict {
  if (outcome.kind === 'transport') return classifyTransport(outcome);
  const { status, body } = outcome;
  if (status >= 200 && status < 300) return classifySuccess(body);
  const error = readError(body);
  const described = short(`Gemini HTTP ${status}${error.status ? ` ${error.status}` : ''}${error.message ? `: ${error.message}` : ''}`);
  const model = context.model ? `"${context.model}"` : 'the configured model';
  if (status === 429) {
    if (error.dailyQuota) {
      return { kind: 'systemic', incident: 'GEMINI_DAILY_QUOTA', reason: `${described} (daily quota; it resets at midnight Pacific time)` };
    }
    return error.retryDelaySeconds !== undefined
      ? { kind: 'retryable', reason: described, retryAfterSeconds: error.retryDelaySeconds, rateLimited: true }
      : { kind: 'retryable', reason: described, rateLimited: true };
  }
  if (status === 408 || status >= 500) return { kind: 'retryable', reason: described, outage: true };
  if (status === 401 || status === 403 || error.keyInvalid) {
    return { kind: 'systemic', incident: 'GEMINI_KEY_INVALID', reason: `${described} (check Script Property GEMINI_API_KEY)` };
  }
  // Billing/region preconditions fail every call alike: burning rows one by one would help nobody.
  if (status === 400 && error.status === 'FAILED_PRECONDITION') {
    return { kind: 'systemic', incident: 'GEMINI_KEY_INVALID', reason: `${described} (the key's project cannot use Gemini: enable billing or check its region)` };
  }
  if (status === 404) {
    return {
      kind: 'systemic',
      incident: 'GEMINI_MODEL_NOT_FOUND',
      reason: `Gemini model ${model} was not found: set Script Property GEMINI_MODEL (or the form's model in Config) to a current model id. ${described}`,
    };
  }
  return { kind: 'rejected', reason: described };
}
