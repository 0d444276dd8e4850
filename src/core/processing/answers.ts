// A Typeform payload's answers as plain text by field ref: what templates substitute for {{field_ref}}.
import { answerText } from '../intake/answers';
import type { TypeformAnswer } from '../intake/typeform-payload';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(textOf).filter((part) => part !== '').join(', ');
  return JSON.stringify(value);
}

/**
 * Field ref → answer text, from the row's raw payload JSON. Every field the form defines is present (''
 * when unanswered, so an optional question is not an "unknown placeholder"); hidden fields and variables
 * fill in names no answer uses. Null when the payload is not Typeform JSON (e.g. a pointer into Payloads
 * that the caller did not resolve).
 */
export function answerValuesByRef(payloadJson: string): Record<string, string> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payloadJson);
  } catch {
    return null;
  }
  const response = isObject(parsed) ? parsed.form_response : undefined;
  if (!isObject(response)) return null;
  const values: Record<string, string> = {};
  const definition = isObject(response.definition) ? response.definition : {};
  for (const field of Array.isArray(definition.fields) ? definition.fields : []) {
    if (isObject(field) && typeof field.ref === 'string' && field.ref !== '') values[field.ref] = '';
  }
  for (const answer of Array.isArray(response.answers) ? response.answers : []) {
    if (!isObject(answer) || !isObject(answer.field)) continue;
    const ref = answer.field.ref;
    if (typeof ref === 'string' && ref !== '') values[ref] = answerText(answer as unknown as TypeformAnswer);
  }
  const extras: Record<string, unknown> = isObject(response.hidden) ? { ...response.hidden } : {};
  for (const variable of Array.isArray(response.variables) ? response.variables : []) {
    if (isObject(variable) && typeof variable.key === 'string') extras[variable.key] = variable[String(variable.type)];
  }
  for (const [name, value] of Object.entries(extras)) if (!(name in values)) values[name] = textOf(value);
  return values;
}
