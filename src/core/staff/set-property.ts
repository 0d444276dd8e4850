// "Set a Script Property…": what a typed KEY=VALUE changes, whether to ask first, and what staff are told (never a secret).
import { redact } from '../domain/failures/redact';
import { DEFAULT_GEMINI_MODEL } from '../domain/config/settings';
import { parseSettingAssignment, SECRET_SETTING_KEYS } from '../domain/config/setting-assignment';
import { unlikelyModelIds } from '../domain/config/config-check';

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

/**
 * A Gemini API key as Google AI Studio makes them: "AIza", then 35 letters, digits, '-' or '_' (39 characters). The
 * shape only: whether Gemini accepts it shows in the one-line test made before it is stored (gemini-trial.ts).
 */
const GEMINI_KEY_SHAPE = /^AIza[0-9A-Za-z_-]{35}$/;

/**
 * Why a model list or an API key is probably not what was meant (a typo, a key pasted with quotes or cut short), as a
 * question to confirm; null when it looks right. Never quotes a key: only its length and how it starts.
 */
function shapeQuestion(key: string, value: string): string | null {
  if (value === '') return null;
  if (key === 'GEMINI_MODEL') {
    const wrong = unlikelyModelIds(value);
    if (wrong.length === 0) return null;
    const shown = looksLikeSecretValue(wrong[0]) ? HIDDEN : `"${wrong[0]}"`;
    return (
      `${shown} does not look like a Gemini model id (gemini-… or gemma-…, for example ${DEFAULT_GEMINI_MODEL}; several are separated by commas). ` +
      'Saved as it is, no reply can be written until it is corrected (staff get a "Gemini model not found" mail). Save it anyway?'
    );
  }
  if (key === 'GEMINI_API_KEY' && !GEMINI_KEY_SHAPE.test(value)) {
    const start = value.startsWith('AIza') ? 'starts with "AIza" but' : 'does not start with "AIza", and';
    return (
      `That does not look like a Gemini API key: Google AI Studio's keys start with "AIza" and are 39 letters, digits, - or _; this one ${start} ` +
      `is ${value.length} characters${/[\s"'<>]/.test(value) ? ' with spaces or quotes in it' : ''}. Saved as it is, no reply can be written ` +
      '(staff get a "Gemini API key invalid" mail). Save it anyway?'
    );
  }
  return null;
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
  const done = value === '' ? `${key} removed.` : `${key} is set to ${shown}.`;
  const question = shapeQuestion(key, value);
  if (question !== null) return { kind: 'confirm', question, writes, done: `${done} It does not look right: correct it here if replies fail.` };
  // A new key or model is then tried with one tiny request, and staff told what Gemini said (gemini-trial.ts).
  return { kind: 'apply', writes, done };
}
