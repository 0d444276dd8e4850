// Typeform's webhook body, parsed defensively: unknown keys ignored, every missing piece named, answers tied to their questions.

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
  /** `form_response_partial`: the respondent has not finished; kept, never answered. */
  partial: boolean;
  formId: string;
  /** The response id: a second dedupe key. */
  responseToken: string;
  submittedAt: string;
  /** Every question, those inside matrix and group questions included (titled "Group — Question"). */
  fields: TypeformField[];
  /** Each answer with its field's id and ref filled in from the definition when the answer carried only one. */
  answers: TypeformAnswer[];
  hidden: Record<string, string>;
  /** Typeform variables (`variables[]`) by key, as text. */
  variables: Record<string, string>;
  /** `calculated.score` as text; '' when the form has no score. */
  score: string;
  /** The body as compact JSON: what the payload column keeps. */
  compactJson: string;
}

export type ParseFailure = { ok: false; error: 'malformed_json' | 'missing_event_id' | 'missing_form_response' | 'unsupported_event_type'; reason: string };
export type ParseResult = { ok: true; delivery: TypeformDelivery } | ParseFailure;

/** The event types a Typeform webhook sends (https://www.typeform.com/developers/webhooks/reference/create-or-update-webhook/). */
const COMPLETE = 'form_response';
const PARTIAL = 'form_response_partial';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The objects of a list; nothing when it is not a list. */
function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(valueText).filter((part) => part !== '').join(', ');
  // A number's JSON is its digits (JSON has no NaN or Infinity); an object's is the readable fallback.
  return JSON.stringify(value);
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
  if (eventType !== COMPLETE && eventType !== PARTIAL) {
    return { ok: false, error: 'unsupported_event_type', reason: `event_type "${eventType || '(none)'}" is neither ${COMPLETE} nor ${PARTIAL}` };
  }
  const response = json.form_response;
  if (!isRecord(response)) return { ok: false, error: 'missing_form_response', reason: 'the body has no form_response object' };
  const definition = isRecord(response.definition) ? response.definition : {};
  const fields = flattenFields(definition.fields, '');
  const answers = records(response.answers).map((raw) => toAnswer(raw, fields));
  const hidden: Record<string, string> = {};
  if (isRecord(response.hidden)) for (const [key, value] of Object.entries(response.hidden)) hidden[key] = valueText(value);
  const variables: Record<string, string> = {};
  for (const variable of records(response.variables)) {
    if (typeof variable.key === 'string') variables[variable.key] = valueText(variable[text(variable.type)]);
  }
  const calculated = isRecord(response.calculated) ? response.calculated : {};
  return {
    ok: true,
    delivery: {
      eventId,
      eventType,
      partial: eventType === PARTIAL,
      formId: text(response.form_id) || text(definition.id),
      responseToken: text(response.token),
      submittedAt: text(response.submitted_at),
      fields,
      answers,
      hidden,
      variables,
      score: valueText(calculated.score),
      compactJson: JSON.stringify(json),
    },
  };
}

/** Matrix and group questions hold their questions in `properties.fields`; answers name those inner fields. */
function flattenFields(raw: unknown, parentTitle: string): TypeformField[] {
  const out: TypeformField[] = [];
  for (const item of records(raw)) {
    const title = text(item.title);
    out.push({ id: text(item.id), ref: text(item.ref), type: text(item.type), title: parentTitle && title ? `${parentTitle} — ${title}` : title || parentTitle });
    out.push(...flattenFields(isRecord(item.properties) ? item.properties.fields : undefined, title || parentTitle));
  }
  return out;
}

/** The question an answer belongs to: by field id, then by ref (Typeform's example answers carry only the id). */
export function fieldOf(answerField: { id?: string; ref?: string }, fields: readonly TypeformField[]): TypeformField | undefined {
  const { id, ref } = answerField;
  return (id ? fields.find((field) => field.id === id) : undefined) ?? (ref ? fields.find((field) => field.ref === ref) : undefined);
}

function toAnswer(raw: Record<string, unknown>, fields: readonly TypeformField[]): TypeformAnswer {
  const given = isRecord(raw.field) ? raw.field : {};
  const field = { id: text(given.id), ref: text(given.ref), type: text(given.type) };
  const defined = fieldOf(field, fields);
  if (defined) {
    field.id = field.id || defined.id || '';
    field.ref = field.ref || defined.ref || '';
    field.type = field.type || defined.type || '';
  }
  return { ...raw, type: text(raw.type), field };
}

/**
 * Typeform's "Send test request" sends a response whose token equals its event_id (see docs/platform.md#typeform-webhooks;
 * [TF-TEST]); Typeform documents no test flag, so this is the one reliable sign.
 */
export function isTestDelivery(delivery: TypeformDelivery): boolean {
  // A parsed delivery's eventId is never empty, so an empty token never matches.
  return delivery.responseToken === delivery.eventId;
}
