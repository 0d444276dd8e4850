// reconcileTypeform's decisions: read each form's responses of the window, find those no sheet holds, queue them for approval.
import type { Clock } from '../domain/ports';
import { evidenceOf } from './evidence';
import { parseFormDefinition, parseResponsesPage, responseAsDelivery, webhookState, type FormDefinition, type WebhookState } from './typeform-responses';
import { MAX_RATE_LIMIT_RETRIES, nextBefore, pageQuery, rateLimitWaitMs, responseWindow, waitBeforeRequestMs, type ResponseWindow } from './typeform-window';

export interface TypeformAnswer {
  status: number;
  text: string;
  retryAfterSeconds: number | null;
}

/** GET base + path with the query, Bearer token added by the adapter; never throws for an HTTP status. */
export interface TypeformHttp {
  get(path: string, query: Record<string, string>): TypeformAnswer;
}

export interface ReconcilePlaces {
  /** Response tokens in Queue, Archive and the spill, read once per run (column reads). */
  knownTokens(): ReadonlySet<string>;
  /** Whether Rejected holds a delivery of this response staff can accept (rejected-match.ts; asked only for a token found nowhere else). */
  inRejected(token: string): boolean;
}

/** What intake answered for a recovered body (its IntakeAnswer). */
export interface StoreAnswer {
  ok: boolean;
  queued?: true | 'deferred';
  duplicate?: true;
  error?: string;
}

export interface ReconcileDeps {
  clock: Clock;
  sleep(ms: number): void;
  http: TypeformHttp;
  /** Forms named in Config and enabled (the `*` row names no form to ask Typeform about). */
  formIds: readonly string[];
  places: ReconcilePlaces;
  /** Queues one body through intake's rules (dedupe under the intake lock, Config check). */
  store(body: string): StoreAnswer;
  webAppUrl: string;
  /** Stop starting new requests after this instant; the report says the run was cut short. */
  deadline: number;
  /** The responses to read; the daily window (typeform-window.ts) when absent. */
  window?: ResponseWindow;
  /** The `until` of the last complete check (epoch ms): the daily window starts there when that is earlier than 48 h ago. */
  lastCompleteUntil?: number | null;
}

export interface FormCheck {
  formId: string;
  /** Responses in the window. */
  seen: number;
  /** Found in Queue, Archive or the spill. */
  alreadyHere: number;
  /** Found in Rejected: staff can accept it there; not queued a second time. */
  inRejected: number;
  /** Tokens queued now, waiting for approval. */
  recovered: string[];
  /** Tokens intake did not queue, with its answer. */
  failed: string[];
  webhook: WebhookState;
  /** Why this form could not be checked ('' when it was). */
  error: string;
}

export interface ReconcileReport {
  at: number;
  window: ResponseWindow;
  forms: FormCheck[];
  /** False when the deadline cut the run short: run it again (menu) or wait for tomorrow's overlap. */
  complete: boolean;
}

/** The deadline came: no new request is started (the only reason a check stops early). */
class CheckStopped extends Error {}

function describeFailure(answer: TypeformAnswer): string {
  if (answer.status === 401 || answer.status === 403) {
    return `Typeform refused TYPEFORM_TOKEN (${answer.status}): create a personal access token with responses:read, forms:read and webhooks:read`;
  }
  if (answer.status === 404) return 'Typeform does not know this form for this token (404): check the form id in Config and the account of TYPEFORM_TOKEN (EU accounts: TYPEFORM_BASE_URL)';
  if (answer.status === 429) return `Typeform kept answering 429 (rate limited) after ${MAX_RATE_LIMIT_RETRIES} waits`;
  return `Typeform answered ${answer.status}: ${answer.text.slice(0, 200)}`;
}

/** One paced request: never two within MIN_REQUEST_GAP_MS, 429 waited out a few times. */
function pacedGet(deps: ReconcileDeps, pace: { last: number | null }, path: string, query: Record<string, string>): TypeformAnswer {
  for (let attempt = 0; ; attempt += 1) {
    if (deps.clock.now() >= deps.deadline) throw new CheckStopped();
    const wait = waitBeforeRequestMs(pace.last, deps.clock.now());
    if (wait > 0) deps.sleep(wait);
    pace.last = deps.clock.now();
    const answer = deps.http.get(path, query);
    if (answer.status !== 429 || attempt >= MAX_RATE_LIMIT_RETRIES) return answer;
    deps.sleep(rateLimitWaitMs(answer.retryAfterSeconds));
  }
}

function checkForm(deps: ReconcileDeps, pace: { last: number | null }, window: ResponseWindow, known: ReadonlySet<string>, formId: string): FormCheck {
  const path = `/forms/${encodeURIComponent(formId)}`;
  const hooks = pacedGet(deps, pace, `${path}/webhooks`, {});
  const webhook = hooks.status === 200 ? webhookState(hooks.text, deps.webAppUrl) : 'unknown';
  const check: FormCheck = { formId, seen: 0, alreadyHere: 0, inRejected: 0, recovered: [], failed: [], webhook, error: '' };
  const seen = new Set<string>();
  let definition: FormDefinition | null = null;
  let before: string | null = null;
  do {
    const answer = pacedGet(deps, pace, `${path}/responses`, pageQuery(window, before));
    const items = answer.status === 200 ? parseResponsesPage(answer.text) : null;
    if (items === null) {
      check.error = answer.status === 200 ? 'Typeform answered a page that is not a list of responses' : describeFailure(answer);
      return check;
    }
    for (const item of items) {
      if (seen.has(item.token)) continue; // a response submitted while paging can show on two pages
      seen.add(item.token);
      const matches = (known.has(item.token) ? 1 : 0) + (!known.has(item.token) && deps.places.inRejected(item.token) ? 1 : 0);
      if (evidenceOf(matches) !== 'none') {
        if (known.has(item.token)) check.alreadyHere += 1;
        else check.inRejected += 1;
        continue;
      }
      definition ??= readDefinition(deps, pace, path);
      const stored = deps.store(responseAsDelivery(formId, item, definition));
      if (stored.queued) check.recovered.push(item.token);
      else if (stored.duplicate) check.alreadyHere += 1; // its webhook came in meanwhile
      else check.failed.push(`${item.token} (${stored.error ?? 'not queued'})`);
    }
    before = nextBefore(items.map((item) => item.token));
  } while (before !== null);
  check.seen = seen.size;
  return check;
}

function readDefinition(deps: ReconcileDeps, pace: { last: number | null }, path: string): FormDefinition {
  const answer = pacedGet(deps, pace, path, {});
  return answer.status === 200 ? parseFormDefinition(answer.text) : { title: '', fields: [] };
}

/** Checks every form; one failing form does not stop the others. */
export function reconcileTypeform(deps: ReconcileDeps): ReconcileReport {
  const at = deps.clock.now();
  const window = deps.window ?? responseWindow(at, deps.lastCompleteUntil ?? null);
  const report: ReconcileReport = { at, window, forms: [], complete: true };
  const known = deps.places.knownTokens();
  const pace = { last: null as number | null };
  for (const formId of deps.formIds) {
    try {
      report.forms.push(checkForm(deps, pace, window, known, formId));
    } catch (error) {
      if (!(error instanceof CheckStopped)) throw error;
      report.complete = false;
      break;
    }
  }
  return report;
}

export function recoveredCount(report: ReconcileReport): number {
  return report.forms.reduce((sum, form) => sum + form.recovered.length, 0);
}

export function disabledWebhookForms(report: ReconcileReport): string[] {
  return report.forms.filter((form) => form.webhook === 'disabled' || form.webhook === 'none').map((form) => form.formId);
}

/** The lines the menu shows and the run logs. */
export function reportLines(report: ReconcileReport): string[] {
  const lines = [`Typeform check of responses submitted ${report.window.since} to ${report.window.until} UTC:`];
  if (report.forms.length === 0) lines.push('No form is named in Config (the * row names none): nothing to check.');
  for (const form of report.forms) {
    if (form.error !== '') {
      lines.push(`${form.formId}: not checked — ${form.error}.`);
      continue;
    }
    const parts = [`${form.seen} in Typeform`, `${form.alreadyHere} already here`];
    if (form.inRejected > 0) parts.push(`${form.inRejected} in Rejected (accept them there)`);
    parts.push(`${form.recovered.length} recovered, waiting for approval in Queue`);
    if (form.failed.length > 0) parts.push(`${form.failed.length} not queued: ${form.failed.join(', ')}`);
    lines.push(`${form.formId}: ${parts.join(', ')}.`);
    if (form.webhook === 'disabled' || form.webhook === 'none') {
      lines.push(`${form.formId}: its Typeform webhook is ${form.webhook === 'none' ? 'missing' : 'disabled'} — new submissions do not reach formqueue.`);
    }
  }
  if (!report.complete) lines.push('The run stopped before the time limit; run "Check Typeform for missed submissions" again to finish.');
  return lines;
}
