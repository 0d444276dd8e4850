// Renders Typeform answers as the readable `Question: answer` lines staff see, and finds the recipient.
import type { TypeformAnswer, TypeformDelivery, TypeformField } from './typeform-payload';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map((item) => String(item)) : [];
}

/** One answer's value as text, for every answer type Typeform sends (see docs/platform.md#typeform-webhooks). */
export function answerText(answer: TypeformAnswer): string {
  const value = answer[answer.type];
  switch (answer.type) {
    case 'text':
    case 'email':
    case 'url':
    case 'file_url':
    case 'phone_number':
    case 'date':
      return typeof value === 'string' ? value : value === undefined ? '' : String(value);
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
      // An answer type we do not know yet still reaches staff rather than vanishing.
      if (value === undefined || value === null) return '';
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

/** The question for an answer, matched by field id then ref (answers are not in definition order when some are skipped). */
function fieldFor(answer: TypeformAnswer, fields: readonly TypeformField[]): TypeformField | undefined {
  return (
    fields.find((field) => field.id !== '' && field.id === answer.field.id) ??
    fields.find((field) => field.ref !== '' && field.ref === answer.field.ref)
  );
}

export function questionTitle(answer: TypeformAnswer, fields: readonly TypeformField[]): string {
  const field = fieldFor(answer, fields);
  const title = field?.title || answer.field.ref || answer.field.id || answer.type;
  return title.replace(/\s+/g, ' ').trim();
}

/** Every answer as `Question title: answer`; multi-line answers keep their lines, indented. */
export function renderSubmission(delivery: TypeformDelivery): string {
  return delivery.answers
    .map((answer) => {
      const value = answerText(answer).replace(/\r\n?/g, '\n').replace(/\n/g, '\n  ');
      return `${questionTitle(answer, delivery.fields)}: ${value}`;
    })
    .join('\n');
}

/** The address to reply to: the answer Config names (by ref or id), else the first email answer; '' when none. */
export function findRecipient(delivery: TypeformDelivery, recipientField: string): string {
  const wanted = recipientField.trim();
  const named = wanted === '' ? undefined : delivery.answers.find((answer) => answer.field.ref === wanted || answer.field.id === wanted);
  const chosen = named ?? delivery.answers.find((answer) => answer.type === 'email');
  return chosen ? answerText(chosen).trim() : '';
}
