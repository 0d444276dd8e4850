// "Set a Script Property…": what a typed KEY=VALUE changes, whether to ask first, and what staff are told (never a secret).
import { redact } from '../domain/failures/redact';
import { parseSettingAssignment, SECRET_SETTING_KEYS } from '../domain/config/settings';

export interface PropertyWrites {
  set: Record<string, string>;
  remove: string[];
}

export type PropertyChange =
  | { kind: 'refused'; message: string }
  /** Replacing or removing the webhook token breaks Typeform's deliveries until its URL is updated: ask first. */
  | { kind: 'confirm'; question: string; writes: PropertyWrites; done: string }
  | { kind: 'apply'; writes: PropertyWrites; done: string };

const HIDDEN = '(hidden: it looks like a secret)';

/** A value that redaction would touch is shown to nobody, whatever key it was typed for. */
export function looksLikeSecretValue(value: string): boolean {
  return redact(value) !== value;
}

function hideSecrets(message: string, value: string): string {
  const hidden = looksLikeSecretValue(value) ? message.split(value).join(HIDDEN) : message;
  return redact(hidden);
}

export function planPropertyChange(text: string, current: Readonly<Record<string, string>>): PropertyChange {
  // The value as typed (without '=', the whole text): a refusal may quote it, and it must not show a secret.
  const typed = text.slice(text.indexOf('=') + 1).trim();
  const parsed = parseSettingAssignment(text, current);
  if (!parsed.ok) return { kind: 'refused', message: hideSecrets(parsed.message, typed) };
  const { key, value } = parsed;
  const shown = SECRET_SETTING_KEYS.includes(key) ? '(hidden)' : looksLikeSecretValue(value) ? HIDDEN : value;
  const writes: PropertyWrites = value === '' ? { set: {}, remove: [key] } : { set: { [key]: value }, remove: [] };
  const old = (current.WEBHOOK_TOKEN ?? '').trim();
  if (key === 'WEBHOOK_TOKEN' && old !== '' && old !== value) {
    if (value === '') {
      return {
        kind: 'confirm',
        question:
          'Remove WEBHOOK_TOKEN? Every Typeform delivery is then refused (kept in Rejected) until a token is set again; ' +
          'Set up / repair generates a new one.',
        writes,
        done: 'WEBHOOK_TOKEN removed.',
      };
    }
    const dropped = (current.WEBHOOK_TOKEN_PREVIOUS ?? '').trim() !== '' ? ' The token now in WEBHOOK_TOKEN_PREVIOUS is dropped.' : '';
    return {
      kind: 'confirm',
      question:
        'Replace WEBHOOK_TOKEN? The current token moves to WEBHOOK_TOKEN_PREVIOUS and is still accepted, so Typeform keeps ' +
        `delivering until you put the new token in its webhook URL (?token=…); then remove WEBHOOK_TOKEN_PREVIOUS here.${dropped}`,
      writes: { set: { WEBHOOK_TOKEN: value, WEBHOOK_TOKEN_PREVIOUS: old }, remove: [] },
      done:
        'WEBHOOK_TOKEN replaced (hidden). The old token is in WEBHOOK_TOKEN_PREVIOUS and still accepted: put the new one in ' +
        'the Typeform webhook URL, check a delivery arrives, then remove WEBHOOK_TOKEN_PREVIOUS (type WEBHOOK_TOKEN_PREVIOUS=).',
    };
  }
  return { kind: 'apply', writes, done: value === '' ? `${key} removed.` : `${key} is set to ${shown}.` };
}
