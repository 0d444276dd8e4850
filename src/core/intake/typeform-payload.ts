// Typeform's webhook body, parsed defensively: unknown keys ignored, every missing piece named.

/** One answer as Typeform sends it: the value sits under the key named by `type`. */
export interface TypeformAnswer {
  type: string;
  field: { id?: string; ref?: string; type?: string };
  [valueKey: string]: unknown;
}

export interface TypeformField {
  id?: string;
  ref?: string;
  type?: string;
  title?: string;
}

export interface TypeformDelivery {
  eventId: string;
  eventType: string;
  formId: string;
  /** The response id: a second dedupe key. */
  responseToken: string;
  submittedAt: string;
  fields: TypeformField[];
  answers: TypeformAnswer[];
  hidden: Record<string, string>;
  /** The body as compact JSON: what the payload column keeps. */
  compactJson: string;
}

export type ParseFailure = { ok: false; error: 'malformed_json' | 'missing_event_id' | 'missing_form_response' | 'unsupported_event_type'; reason: string };
export type ParseResult = { ok: true; delivery: TypeformDelivery } | ParseFailure;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

export function parseTypeformBody(body: string): ParseResult {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return { ok: false, error: 'malformed_json', reason: `the body is not valid JSON (${(error as Error).message})` };
  }
  if (!isRecord(json)) return { ok: false, error: 'malformed_json', reason: 'the body is JSON but not an object' };
  const eventId = text(json.event_id).trim();
  if (eventId === '') return { ok: false, error: 'missing_event_id', reason: 'the body has no event_id' };
  const eventType = text(json.event_type);
  // Partial responses would be answered before the respondent finished: only complete ones are queued.
  if (eventType !== 'form_response') {
    return { ok: false, error: 'unsupported_event_type', reason: `event_type "${eventType || '(none)'}" is not form_response` };
  }
  const response = json.form_response;
  if (!isRecord(response)) return { ok: false, error: 'missing_form_response', reason: 'the body has no form_response object' };
  const definition = isRecord(response.definition) ? response.definition : {};
  const fields = Array.isArray(definition.fields) ? definition.fields.filter(isRecord).map(toField) : [];
  const answers = Array.isArray(response.answers) ? response.answers.filter(isRecord).map(toAnswer) : [];
  const hidden: Record<string, string> = {};
  if (isRecord(response.hidden)) for (const [key, value] of Object.entries(response.hidden)) hidden[key] = text(value);
  return {
    ok: true,
    delivery: {
      eventId,
      eventType,
      formId: text(response.form_id) || text(definition.id),
      responseToken: text(response.token),
      submittedAt: text(response.submitted_at),
      fields,
      answers,
      hidden,
      compactJson: JSON.stringify(json),
    },
  };
}

function toField(raw: Record<string, unknown>): TypeformField {
  return { id: text(raw.id), ref: text(raw.ref), type: text(raw.type), title: text(raw.title) };
}

function toAnswer(raw: Record<string, unknown>): TypeformAnswer {
  const field = isRecord(raw.field) ? raw.field : {};
  return { ...raw, type: text(raw.type), field: { id: text(field.id), ref: text(field.ref), type: text(field.type) } };
}

/**
 * Typeform's "Send test request" sends a response whose token equals its event_id (see docs/platform.md#typeform-webhooks;
 * [TF-TEST]); Typeform documents no test flag, so this is the one reliable sign.
 */
export function isTestDelivery(delivery: TypeformDelivery): boolean {
  return delivery.responseToken !== '' && delivery.responseToken === delivery.eventId;
}
