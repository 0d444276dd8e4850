// Renders Typeform answers as the readable `Question: answer` lines staff see, the values templates use, and the recipient.
import { fieldOf, type TypeformAnswer, type TypeformDelivery, type TypeformField } from './typeform-payload';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map((item) => String(item)) : [];
}

function scalar(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/** An object we have no rule for as `key: value` pairs, so staff and the model read words, not JSON. */
function readableObject(value: Record<string, unknown>): string {
  return Object.entries(value)
    .map(([key, item]) => {
      const shown = isRecord(item) ? readableObject(item) : Array.isArray(item) ? item.map((part) => (isRecord(part) ? readableObject(part) : scalar(part))).join(', ') : scalar(item);
      return shown === '' ? '' : `${key.replace(/_/g, ' ')}: ${shown}`;
    })
    .filter((part) => part !== '')
    .join('; ');
}

/**
 * One answer's value as text, for every answer type Typeform documents
 * (https://www.typeform.com/developers/responses/JSON-response-explanation/; docs/platform.md#typeform-webhooks): text, email, url, file_url,
 * phone_number, date, number, boolean, choice (with "other"), choices (ranking keeps its order), payment,
 * multi_format; a type we do not know yet still reaches staff readably rather than vanishing.
 */
export function answerText(answer: TypeformAnswer): string {
  const value = answer[answer.type];
  switch (answer.type) {
    // text, email, url, file_url, phone_number and date hold a string: the default below returns it as is, and
    // reads a value of the wrong shape (an object, a list) as words rather than "[object Object]".
    case 'number':
      return typeof value === 'number' || typeof value === 'string' ? String(value) : '';
    case 'boolean':
      return value === true ? 'Yes' : value === false ? 'No' : '';
    case 'choice': {
      if (!isRecord(value)) return '';
      const label = typeof value.label === 'string' ? value.label : '';
      const other = typeof value.other === 'string' ? value.other : '';
      return other !== '' ? (label !== '' ? `${label}: ${other}` : `Other: ${other}`) : label;
    }
    case 'choices': {
      if (!isRecord(value)) return '';
      const parts = stringList(value.labels);
      if (typeof value.other === 'string' && value.other !== '') parts.push(`Other: ${value.other}`);
      // A ranking answer lists the choices in the respondent's order: numbered, so the order reads.
      if (answer.field.type === 'ranking') return parts.map((part, i) => `${i + 1}. ${part}`).join(', ');
      return parts.join(', ');
    }
    case 'payment': {
      if (!isRecord(value)) return '';
      const amount = value.amount === undefined ? '' : String(value.amount);
      const status = value.success === true ? 'paid' : value.success === false ? 'not paid' : '';
      const card = typeof value.last4 === 'string' && value.last4 !== '' ? `card ending ${value.last4}` : '';
      return [amount, status, card].filter((part) => part !== '').join(', ');
    }
    default:
      if (value === undefined || value === null) return '';
      if (isRecord(value)) return readableObject(value);
      if (Array.isArray(value)) return value.map((part) => (isRecord(part) ? readableObject(part) : scalar(part))).join(', ');
      return String(value);
  }
}

/** The answer to a question named by ref or id, as text; undefined when it was not answered. */
function answerFor(name: string, delivery: TypeformDelivery): string | undefined {
  const answer = delivery.answers.find((item) => item.field.ref === name || item.field.id === name);
  return answer ? answerText(answer) : undefined;
}

/**
 * Typeform's recall placeholders in a question title ({{field:ref}}, {{answer_id}}, {{hidden:name}}, {{var:name}})
 * filled with what the respondent gave; one that resolves to nothing becomes "…" rather than staying raw.
 */
export function fillRecall(title: string, delivery: TypeformDelivery): string {
  return title.replace(/\{\{\s*([A-Za-z]+)[:_]([^{}\s]+)\s*\}\}/g, (_match, kind: string, name: string) => {
    const lower = kind.toLowerCase();
    const found =
      lower === 'hidden' ? delivery.hidden[name] : lower === 'var' || lower === 'variable' ? delivery.variables[name] : answerFor(name, delivery);
    return found === undefined || found === '' ? '…' : found.replace(/\s+/g, ' ').trim();
  });
}

export function questionTitle(answer: TypeformAnswer, delivery: TypeformDelivery): string {
  const field: TypeformField | undefined = fieldOf(answer.field, delivery.fields);
  const title = field?.title || answer.field.ref || answer.field.id || answer.type;
  return fillRecall(title, delivery).replace(/\s+/g, ' ').trim();
}

function indented(value: string): string {
  return value.replace(/\r\n?/g, '\n').replace(/\n/g, '\n  ');
}

/**
 * Every answer as `Question title: answer` (multi-line answers keep their lines, indented), then the hidden
 * fields, variables and score under the names templates use for them.
 */
export function renderSubmission(delivery: TypeformDelivery): string {
  const lines = delivery.answers.map((answer) => `${questionTitle(answer, delivery)}: ${indented(answerText(answer))}`);
  for (const [name, value] of Object.entries(delivery.hidden)) lines.push(`hidden.${name}: ${indented(value)}`);
  for (const [name, value] of Object.entries(delivery.variables)) lines.push(`variables.${name}: ${indented(value)}`);
  if (delivery.score !== '') lines.push(`score: ${delivery.score}`);
  return lines.join('\n');
}

/**
 * What a template may name, with its text: each question by ref and by id ('' when unanswered, so an optional
 * question is not an "unknown placeholder"), `hidden.<name>`, `variables.<key>`, `score`, and (as before)
 * bare hidden and variable names that no question uses.
 */
export function templateValues(delivery: TypeformDelivery): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of delivery.fields) {
    if (field.ref) values[field.ref] = '';
    if (field.id && !(field.id in values)) values[field.id] = '';
  }
  for (const answer of delivery.answers) {
    const shown = answerText(answer);
    if (answer.field.ref) values[answer.field.ref] = shown;
    if (answer.field.id && (!(answer.field.id in values) || values[answer.field.id] === '')) values[answer.field.id] = shown;
  }
  for (const [name, value] of Object.entries(delivery.hidden)) values[`hidden.${name}`] = value;
  for (const [name, value] of Object.entries(delivery.variables)) values[`variables.${name}`] = value;
  const score = delivery.score !== '' ? delivery.score : delivery.variables.score;
  if (score !== undefined) values.score = score;
  for (const [name, value] of [...Object.entries(delivery.hidden), ...Object.entries(delivery.variables)]) {
    if (!(name in values)) values[name] = value;
  }
  return values;
}

/**
 * The address to reply to: the answer Config's recipient_field names (a field ref or id, resolved through the
 * form's definition), else the first email answer; '' when none.
 */
export function findRecipient(delivery: TypeformDelivery, recipientField: string): string {
  const wanted = recipientField.trim();
  const named = wanted === '' ? undefined : delivery.answers.find((answer) => answer.field.ref === wanted || answer.field.id === wanted);
  const chosen = named ?? delivery.answers.find((answer) => answer.type === 'email');
  return chosen ? answerText(chosen).trim() : '';
}
