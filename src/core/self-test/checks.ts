// Self-test verdicts: each platform assumption formqueue rests on, judged from what the probes observed on the real account.
import { classifyGeminiOutcome, type GeminiVerdict } from '../domain/gemini/gemini-outcome';
import type { GeminiOutcome } from '../domain/ports';
import { redact } from '../domain/failures/redact';
import { MISSED_DELIVERIES_UNRECOVERABLE } from '../domain/typeform/missed-deliveries';

/** `warn`: formqueue works, but a safety net is off that the operator may want on (the advice says how). */
export type Verdict = 'pass' | 'fail' | 'unknown' | 'warn';

export interface CheckResult {
  /** Stable id, also the anchor of its section in docs/self-test.md. */
  id: CheckId;
  title: string;
  verdict: Verdict;
  evidence: string;
  /** What it means for formqueue and what to do; set for fail, unknown and warn. */
  advice?: string;
}

export type CheckId = 'plain-text' | 'text-finder' | 'triggers' | 'identity' | 'mail-quota' | 'gemini' | 'typeform' | 'missed-webhooks' | 'web-app';

/** A probe either observed something or threw; the error text is evidence too. */
export type Probe<T> = { ok: true; value: T } | { ok: false; error: string };

const EVIDENCE_CHARS = 300;

function short(text: string): string {
  const line = redact(text).replace(/\s+/g, ' ').trim();
  return line.length > EVIDENCE_CHARS ? `${line.slice(0, EVIDENCE_CHARS - 1)}…` : line;
}

function failed(id: CheckId, title: string, error: string, advice: string): CheckResult {
  return { id, title, verdict: 'unknown', evidence: `the probe itself failed: ${short(error)}`, advice };
}

/** Values a respondent might type that Sheets would turn into a number, a date, a boolean or a formula. */
export const PLAIN_TEXT_SAMPLES: readonly string[] = ['007', '+4915112345678', '2026-01-02', 'TRUE', '=1+1', '1e5'];

export interface PlainTextObservation {
  /** What getValues returned for the appended row, in the order of PLAIN_TEXT_SAMPLES. */
  read: readonly unknown[];
  /** getNumberFormats of the same cells. */
  formats: readonly string[];
}

export function judgePlainText(probe: Probe<PlainTextObservation>): CheckResult {
  const title = 'Plain-text format holds on appended rows';
  if (!probe.ok) return failed('plain-text', title, probe.error, 'Run the self-test again; if it keeps failing, Sheets refused the scratch sheet (see the error).');
  const changed = PLAIN_TEXT_SAMPLES.map((typed, i) => ({ typed, read: probe.value.read[i], format: probe.value.formats[i] }))
    .filter((cell) => cell.read !== cell.typed);
  const evidence = PLAIN_TEXT_SAMPLES.map((typed, i) => `${JSON.stringify(typed)} → ${describe(probe.value.read[i])} (${JSON.stringify(probe.value.formats[i] ?? '')})`).join(', ');
  if (changed.length === 0) return { id: 'plain-text', title, verdict: 'pass', evidence };
  return {
    id: 'plain-text', title, verdict: 'fail', evidence,
    advice: 'Sheets converted text that formqueue writes with the "@" (plain text) format first. Answers such as phone numbers, '
      + 'dates or "=…" would be stored changed. Report this with the evidence; until then, read answers in the payload column.',
  };
}

function describe(value: unknown): string {
  if (value instanceof Date) return `a date (${value.toISOString()})`;
  if (typeof value === 'string') return JSON.stringify(value);
  return `${typeof value} ${String(value)}`;
}

/** Cells of the scratch column: the needle once, and cells that differ only in case or by a suffix. */
export function textFinderCells(needle: string): string[] {
  return [needle.toLowerCase(), `${needle}-more`, needle, `x${needle}`];
}

export interface TextFinderObservation {
  needle: string;
  /** Rows (1-based, within the scratch column) findAll returned. */
  matchedRows: readonly number[];
  /** The row where the needle itself was written. */
  expectedRow: number;
}

export function judgeTextFinder(probe: Probe<TextFinderObservation>): CheckResult {
  const title = 'TextFinder matches whole cells, case-sensitively';
  if (!probe.ok) return failed('text-finder', title, probe.error, 'Run the self-test again; the scratch sheet could not be searched.');
  const { needle, matchedRows, expectedRow } = probe.value;
  const evidence = `findAll(${JSON.stringify(needle)}) with matchEntireCell(true).matchCase(true) over ${JSON.stringify(textFinderCells(needle))} `
    + `returned row(s) ${matchedRows.join(', ') || 'none'}; expected only row ${expectedRow}`;
  if (matchedRows.length === 1 && matchedRows[0] === expectedRow) return { id: 'text-finder', title, verdict: 'pass', evidence };
  return {
    id: 'text-finder', title, verdict: 'fail', evidence,
    advice: 'Duplicate detection looks an event_id up with this TextFinder: a wrong match could call a new submission a duplicate, '
      + 'a missed one could queue a redelivery twice (the reply would still be sent only once per row). Report it with the evidence.',
  };
}

export interface IdentityObservation {
  /** Session.getActiveUser(): the person running the self-test ('' when Google does not reveal it). */
  activeUser: string;
  /** Who the web app runs as (its doGet identity view), or why that could not be read. */
  webApp: Probe<string>;
}

export function judgeIdentity(probe: IdentityObservation): CheckResult {
  const title = 'You (running this) and the account the web app runs as';
  const me = probe.activeUser || '(not revealed by Google)';
  if (!probe.webApp.ok) {
    return { id: 'identity', title, verdict: 'unknown', evidence: `you: ${me}; the web app could not be asked: ${short(probe.webApp.error)}`,
      advice: 'See the web-app check below: until the web app answers, formqueue cannot tell who it runs as.' };
  }
  const deployer = probe.webApp.value;
  const evidence = `you: ${me}; the web app runs as: ${deployer || '(not revealed)'}`;
  if (probe.activeUser === '' || deployer === '') {
    return { id: 'identity', title, verdict: 'unknown', evidence,
      advice: 'Google hides one of the two addresses (for example a consumer account running a script it does not own). Make sure the account that ran `npm run deploy` also runs Set up / repair.' };
  }
  if (probe.activeUser.toLowerCase() === deployer.toLowerCase()) return { id: 'identity', title, verdict: 'pass', evidence: `${evidence} (the same account)` };
  return {
    id: 'identity', title, verdict: 'fail', evidence,
    advice: `You are not the deploying account. Triggers you create run as you, not as ${deployer}: their mail counts against your quota, `
      + 'and intake\'s user lock does not serialise your triggers with the web app. Let the deploying account run Set up / repair (and this self-test), '
      + 'and delete triggers you created (Apps Script editor → Triggers).',
  };
}

export interface TriggerObservation {
  handler: string;
  type: string;
}

/** The triggers Set up installs; ScriptApp.getProjectTriggers() lists only the running user's own. */
export const REQUIRED_TRIGGERS: readonly TriggerObservation[] = [
  { handler: 'processQueue', type: 'CLOCK' },
  { handler: 'onEditInstallable', type: 'ON_EDIT' },
];

export function judgeTriggers(probe: Probe<readonly TriggerObservation[]>, identity: CheckResult): CheckResult {
  const title = 'The triggers exist for the deploying account';
  if (!probe.ok) return failed('triggers', title, probe.error, 'Run Set up / repair, then the self-test again.');
  const listed = probe.value.map((t) => `${t.handler} (${t.type})`).join(', ') || 'none';
  const missing = REQUIRED_TRIGGERS.filter((want) => !probe.value.some((t) => t.handler === want.handler && t.type === want.type));
  const extra = REQUIRED_TRIGGERS.filter((want) => probe.value.filter((t) => t.handler === want.handler).length > 1);
  const evidence = `your triggers on this project: ${listed}`;
  if (identity.verdict === 'fail') {
    return { id: 'triggers', title, verdict: 'unknown', evidence,
      advice: 'Apps Script lists only the triggers of the account running the self-test, and that is not the deploying account (see above): run the self-test as the deploying account.' };
  }
  if (missing.length === 0 && extra.length === 0) {
    return { id: 'triggers', title, verdict: identity.verdict === 'pass' ? 'pass' : 'unknown', evidence,
      ...(identity.verdict === 'pass' ? {} : { advice: 'They are yours; whether you are the deploying account is unknown (see above).' }) };
  }
  const problem = [missing.length ? `missing: ${missing.map((t) => t.handler).join(', ')}` : '', extra.length ? `duplicated: ${extra.map((t) => t.handler).join(', ')}` : '']
    .filter(Boolean).join('; ');
  return { id: 'triggers', title, verdict: 'fail', evidence: `${evidence} (${problem})`,
    advice: 'Run formqueue → Set up / repair as the deploying account: it creates exactly one of each and removes duplicates. Without processQueue nothing is answered.' };
}

export function judgeMailQuota(probe: Probe<number>): CheckResult {
  const title = 'The mail quota can be read';
  if (!probe.ok) {
    return { id: 'mail-quota', title, verdict: 'fail', evidence: `MailApp.getRemainingDailyQuota() threw: ${short(probe.error)}`,
      advice: 'Without it formqueue cannot check the quota before a send. Run Set up / repair to grant the mail scope, then try again.' };
  }
  const evidence = `MailApp.getRemainingDailyQuota() = ${probe.value}`;
  if (probe.value > 0) return { id: 'mail-quota', title, verdict: 'pass', evidence: `${evidence} recipients left today` };
  return { id: 'mail-quota', title, verdict: 'fail', evidence,
    advice: 'No mail can be sent until the quota resets (24 hours after the first send of the day). Replies wait as READY and go out after that, once each.' };
}

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
  if (!probe.ok) return failed('gemini', title, probe.error, 'Run the self-test again; if it persists, check GEMINI_BASE_URL and appsscript.json\'s urlFetchWhitelist.');
  const { model, configKeys, outcome } = probe.value;
  const verdict = classifyGeminiOutcome(outcome, { model });
  const sent = `model ${model}, generationConfig {${configKeys.join(', ')}}`;
  // A transport failure's reason already carries its message.
  const status = outcome.kind === 'http' ? `HTTP ${outcome.status}` : 'no HTTP answer';
  if (verdict.kind === 'ok') {
    return { id: 'gemini', title, verdict: 'pass', evidence: `${sent}: ${status}, reply ${JSON.stringify(verdict.text.slice(0, 40))}${usage(outcome)}` };
  }
  return {
    id: 'gemini', title, verdict: verdict.kind === 'retryable' ? 'unknown' : 'fail', evidence: `${sent}: ${status}: ${short(verdict.reason)}`,
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
  if (!answer.ok) return failed('typeform', title, answer.error, `Typeform could not be reached at ${url}: ${TYPEFORM_BASE_ADVICE}; then run the self-test again.`);
  const { status, body } = answer.value;
  const evidence = `GET ${url}: HTTP ${status}`;
  if (status === 200) return { id: 'typeform', title, verdict: 'pass', evidence };
  if (status === 401) {
    return { id: 'typeform', title, verdict: 'fail', evidence: `${evidence} ${short(body)}`,
      advice: 'The token is refused: create a personal access token in Typeform (Account → Personal tokens) and set TYPEFORM_TOKEN again, or remove it.' };
  }
  if (status === 403) {
    return { id: 'typeform', title, verdict: 'fail', evidence: `${evidence} ${short(body)}`,
      advice: 'The token lacks a scope: create a personal access token with responses:read, forms:read and webhooks:read and set TYPEFORM_TOKEN again.' };
  }
  if (status === 404) {
    return { id: 'typeform', title, verdict: 'fail', evidence: `${evidence} ${short(body)}`, advice: `This is not Typeform's API: ${TYPEFORM_BASE_ADVICE}.` };
  }
  return { id: 'typeform', title, verdict: 'unknown', evidence: `${evidence} ${short(body)}`, advice: 'Typeform answered something unexpected; run the self-test again later.' };
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
    return { id: 'web-app', title, verdict: 'fail', evidence: `${where}: ${short(probe.answer.error)}`,
      advice: 'The URL could not be fetched. Check the deployment exists (Deploy → Manage deployments) with access "Anyone"; never archive it.' };
  }
  const { status, body } = probe.answer.value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON: parsed stays undefined and the check fails below.
  }
  const evidence = `${where}: HTTP ${status} ${short(body)}`;
  if (status === 200 && parsed && typeof parsed === 'object' && 'ok' in parsed && (parsed as { error?: string }).error !== 'unauthorized') {
    return { id: 'web-app', title, verdict: 'pass', evidence };
  }
  return { id: 'web-app', title, verdict: 'fail', evidence,
    advice: status === 404 ? 'The deployment is gone or not public: Typeform turns a webhook off on 404. Deploy again and update Typeform with the URL.'
      : 'The web app did not answer formqueue\'s JSON: check the deployment\'s access ("Anyone") and that it runs the current version (`npm run deploy`).' };
}
