// Self-test verdicts on the services formqueue calls over HTTP: Gemini, Typeform (and whether missed webhooks are recovered) and the web app's own URL.
import { classifyGeminiOutcome, type GeminiVerdict } from '../domain/gemini/gemini-outcome';
import type { GeminiOutcome } from '../domain/ports';
import { MISSED_DELIVERIES_UNRECOVERABLE } from '../domain/typeform/missed-deliveries';
import { probeFailed, shortEvidence, type CheckResult, type Probe } from './check-result';

export interface GeminiObservation {
  model: string;
  /** The generationConfig fields sent, the same as a reply's. */
  configKeys: readonly string[];
  outcome: GeminiOutcome;
}

export function judgeGemini(probe: Probe<GeminiObservation> | { ok: 'not-set' }): CheckResult {
  const title = 'Gemini answers with the key and model';
  if (probe.ok === 'not-set') {
    return { id: 'gemini', title, verdict: 'fail', evidence: 'GEMINI_API_KEY is not set',
      advice: 'Create a key in Google AI Studio and set GEMINI_API_KEY (formqueue → Set a Script Property…).' };
  }
  if (!probe.ok) return probeFailed('gemini', title, probe.error, 'Run the self-test again; if it persists, check GEMINI_BASE_URL and appsscript.json\'s urlFetchWhitelist.');
  const { model, configKeys, outcome } = probe.value;
  const verdict = classifyGeminiOutcome(outcome, { model });
  const sent = `model ${model}, generationConfig {${configKeys.join(', ')}}`;
  // A transport failure's reason already carries its message.
  const status = outcome.kind === 'http' ? `HTTP ${outcome.status}` : 'no HTTP answer';
  if (verdict.kind === 'ok') {
    return { id: 'gemini', title, verdict: 'pass', evidence: `${sent}: ${status}, reply ${JSON.stringify(verdict.text.slice(0, 40))}${usage(outcome)}` };
  }
  return {
    id: 'gemini', title, verdict: verdict.kind === 'retryable' ? 'unknown' : 'fail', evidence: `${sent}: ${status}: ${shortEvidence(verdict.reason)}`,
    advice: geminiAdvice(verdict, model),
  };
}

function geminiAdvice(verdict: Exclude<GeminiVerdict, { kind: 'ok' }>, model: string): string {
  if (verdict.kind === 'retryable') return 'A passing outage or rate limit: formqueue retries these by itself. Run the self-test again in a few minutes.';
  if (verdict.kind !== 'systemic') return 'Gemini refused these generation settings or the tiny prompt: report it with the evidence.';
  if (verdict.incident === 'GEMINI_KEY_INVALID') return 'The key is refused: create a new one in Google AI Studio and set GEMINI_API_KEY.';
  if (verdict.incident === 'GEMINI_MODEL_NOT_FOUND') return `The model ${model} does not exist for this key (models are retired often): set GEMINI_MODEL to a current one.`;
  return 'The daily quota of this key is used up: replies wait until it resets (midnight Pacific time), or enable billing.';
}

/** Token counts are the measured basis of the cost figures in docs/costs-and-data.md. */
function usage(outcome: GeminiOutcome): string {
  // Only an HTTP outcome can be ok (the narrowing is for the type); an ok verdict means its body parsed as a JSON object.
  if (outcome.kind !== 'http') return '';
  const meta = (JSON.parse(outcome.body) as { usageMetadata?: Record<string, unknown> }).usageMetadata ?? {};
  const fields = ['promptTokenCount', 'candidatesTokenCount', 'thoughtsTokenCount', 'totalTokenCount'].filter((k) => meta[k] !== undefined);
  return fields.length ? `; usageMetadata ${fields.map((k) => `${k} ${String(meta[k])}`).join(', ')}` : '';
}

/**
 * The Typeform probe's request, under TYPEFORM_BASE_URL (the US API, the EU API or the local runtime): one page of
 * one form. It needs forms:read, a scope the Typeform check needs anyway; GET /me would need accounts:read, which
 * the token formqueue asks for does not have (https://www.typeform.com/developers/get-started/scopes/).
 */
export function typeformProbeUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/forms?page_size=1`;
}

export interface TypeformObservation {
  url: string;
  answer: Probe<{ status: number; body: string }>;
}

const TYPEFORM_BASE_ADVICE = 'leave TYPEFORM_BASE_URL unset for https://api.typeform.com, or set https://api.eu.typeform.com for an EU account';

/**
 * Whether a delivery that never reached formqueue is recovered: one Google refused (over 30 simultaneous executions,
 * an HTML 200 Typeform takes as delivered) or one answered `backlog_full` (the spill full). Only the daily Typeform
 * check finds those, and it runs only while TYPEFORM_TOKEN is set: opt-in, so without it they are lost to formqueue.
 */
export function judgeMissedWebhookRecovery(typeformTokenSet: boolean): CheckResult {
  const title = 'Missed-webhook recovery (the daily Typeform check)';
  if (typeformTokenSet) return { id: 'missed-webhooks', title, verdict: 'pass', evidence: 'TYPEFORM_TOKEN is set: the daily Typeform check recovers submissions whose webhook never got through' };
  return {
    id: 'missed-webhooks', title, verdict: 'warn',
    evidence: 'TYPEFORM_TOKEN is not set: missed-webhook recovery is off',
    advice: `A delivery Google refused (over 30 at once) or answered backlog_full is not recovered: it stays in Typeform only. ${MISSED_DELIVERIES_UNRECOVERABLE}`,
  };
}

export function judgeTypeform(probe: TypeformObservation | { ok: 'not-set' }): CheckResult {
  const title = 'Typeform token (TYPEFORM_TOKEN), if set';
  if ('ok' in probe) {
    return { id: 'typeform', title, verdict: 'unknown', evidence: 'TYPEFORM_TOKEN is not set',
      advice: 'Deliveries need no token (the webhook URL carries its own). Set it to let the daily Typeform check find submissions whose webhook never arrived (docs/reconciliation.md).' };
  }
  const { url, answer } = probe;
  if (!answer.ok) return probeFailed('typeform', title, answer.error, `Typeform could not be reached at ${url}: ${TYPEFORM_BASE_ADVICE}; then run the self-test again.`);
  const { status, body } = answer.value;
  const evidence = `GET ${url}: HTTP ${status}`;
  if (status === 200) return { id: 'typeform', title, verdict: 'pass', evidence };
  if (status === 401) {
    return { id: 'typeform', title, verdict: 'fail', evidence: `${evidence} ${shortEvidence(body)}`,
      advice: 'The token is refused: create a personal access token in Typeform (Account → Personal tokens) and set TYPEFORM_TOKEN again, or remove it.' };
  }
  if (status === 403) {
    return { id: 'typeform', title, verdict: 'fail', evidence: `${evidence} ${shortEvidence(body)}`,
      advice: 'The token lacks a scope: create a personal access token with responses:read, forms:read and webhooks:read and set TYPEFORM_TOKEN again.' };
  }
  if (status === 404) {
    return { id: 'typeform', title, verdict: 'fail', evidence: `${evidence} ${shortEvidence(body)}`, advice: `This is not Typeform's API: ${TYPEFORM_BASE_ADVICE}.` };
  }
  return { id: 'typeform', title, verdict: 'unknown', evidence: `${evidence} ${shortEvidence(body)}`, advice: 'Typeform answered something unexpected; run the self-test again later.' };
}

export interface WebAppObservation {
  /** ScriptApp.getService().getUrl(), or null when there is no web-app deployment. */
  url: string | null;
  /** The health view fetched from that URL with HEALTH_TOKEN. */
  answer: Probe<{ status: number; body: string }> | null;
}

export function judgeWebApp(probe: WebAppObservation): CheckResult {
  const title = "The web app's own URL answers";
  if (probe.url === null) {
    return { id: 'web-app', title, verdict: 'fail', evidence: 'ScriptApp.getService().getUrl() is empty: there is no web-app deployment',
      advice: 'Run `npm run deploy` from your machine; it prints the URL for Typeform.' };
  }
  const where = probe.url.split('?')[0];
  if (!probe.answer) return { id: 'web-app', title, verdict: 'unknown', evidence: `${where}: not asked (HEALTH_TOKEN is not set)`, advice: 'Run Set up / repair: it generates the token.' };
  if (!probe.answer.ok) {
    return { id: 'web-app', title, verdict: 'fail', evidence: `${where}: ${shortEvidence(probe.answer.error)}`,
      advice: 'The URL could not be fetched. Check the deployment exists (Deploy → Manage deployments) with access "Anyone"; never archive it.' };
  }
  const { status, body } = probe.answer.value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON: parsed stays undefined and the check fails below.
  }
  const evidence = `${where}: HTTP ${status} ${shortEvidence(body)}`;
  if (status === 200 && parsed && typeof parsed === 'object' && 'ok' in parsed && (parsed as { error?: string }).error !== 'unauthorized') {
    return { id: 'web-app', title, verdict: 'pass', evidence };
  }
  return { id: 'web-app', title, verdict: 'fail', evidence,
    advice: status === 404 ? 'The deployment is gone or not public: Typeform turns a webhook off on 404. Deploy again and update Typeform with the URL.'
      : 'The web app did not answer formqueue\'s JSON: check the deployment\'s access ("Anyone") and that it runs the current version (`npm run deploy`).' };
}
