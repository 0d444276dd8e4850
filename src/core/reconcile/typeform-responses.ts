// Typeform's Responses and Webhooks API answers, read defensively: response items turned into the webhook body intake knows.
import { reconciledEventId } from '../domain/typeform/reconciled-id';

/**
 * One item of GET /forms/{id}/responses (https://www.typeform.com/developers/responses/reference/retrieve-responses/):
 * unlike a webhook's form_response it has no event_id, no form_id and no definition (field titles come from
 * GET /forms/{id}), and its answers carry field id, type and ref as in the webhook.
 */
export interface ResponseItem {
  token: string;
  submitted_at?: string;
  landed_at?: string;
  hidden?: Record<string, unknown>;
  calculated?: Record<string, unknown>;
  variables?: unknown[];
  answers?: unknown[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON value of a text; undefined when it is not JSON, which every reader below takes for an unreadable answer. */
function parseJson(text: string): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: stays undefined
  }
  return json;
}

/** The items of a responses page; an item without a token cannot be matched and is left out. */
export function parseResponsesPage(text: string): ResponseItem[] | null {
  const json = parseJson(text);
  if (!isRecord(json) || !Array.isArray(json.items)) return null;
  return json.items.filter((item): item is ResponseItem => isRecord(item) && typeof item.token === 'string' && item.token !== '');
}

export interface FormDefinition {
  title: string;
  fields: unknown[];
}

/** GET /forms/{id}: the title and fields the submission is rendered with; an unreadable answer gives none (answers still show). */
export function parseFormDefinition(text: string): FormDefinition {
  const json = parseJson(text);
  if (!isRecord(json)) return { title: '', fields: [] };
  return { title: typeof json.title === 'string' ? json.title : '', fields: Array.isArray(json.fields) ? json.fields : [] };
}

/** The webhook body Typeform would have sent for this response, with a reconciled event_id: intake's rules then apply unchanged. */
export function responseAsDelivery(formId: string, item: ResponseItem, definition: FormDefinition): string {
  return JSON.stringify({
    event_id: reconciledEventId(item.token),
    event_type: 'form_response',
    form_response: {
      form_id: formId,
      token: item.token,
      landed_at: item.landed_at,
      submitted_at: item.submitted_at,
      hidden: item.hidden ?? {},
      calculated: item.calculated ?? {},
      ...(item.variables ? { variables: item.variables } : {}),
      definition: { id: formId, title: definition.title, fields: definition.fields },
      answers: item.answers ?? [],
    },
  });
}

export type WebhookState = 'enabled' | 'disabled' | 'none' | 'unknown';

/**
 * GET /forms/{id}/webhooks (https://www.typeform.com/developers/webhooks/reference/retrieve-webhooks/): ours are those
 * pointing at this web app (all of them when none does, e.g. behind a proxy); any enabled one is enough.
 */
export function webhookState(text: string, webAppUrl: string): WebhookState {
  const json = parseJson(text);
  if (!isRecord(json) || !Array.isArray(json.items)) return 'unknown';
  const hooks = json.items.filter(isRecord);
  const pointingHere = webAppUrl === '' ? [] : hooks.filter((hook) => typeof hook.url === 'string' && hook.url.startsWith(webAppUrl));
  const ours = pointingHere.length > 0 ? pointingHere : hooks;
  if (ours.length === 0) return 'none';
  return ours.some((hook) => hook.enabled === true) ? 'enabled' : 'disabled';
}
