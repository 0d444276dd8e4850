// A Script Property as staff type it into the menu's "Set a Script Property…" prompt (KEY=VALUE): refused now when formqueue would not accept it.
import { SETTING_KEYS, TOKEN_KEYS, readSettings, tokenProblem } from './settings';

export type SettingAssignment = { ok: true; key: string; value: string } | { ok: false; message: string };

/** Secrets are set but never shown back (not in the alert, not in the execution log). */
export const SECRET_SETTING_KEYS: readonly string[] = ['WEBHOOK_TOKEN', 'WEBHOOK_TOKEN_PREVIOUS', 'HEALTH_TOKEN', 'GEMINI_API_KEY', 'TYPEFORM_TOKEN'];

/**
 * Reads `KEY=VALUE` as typed into the menu's prompt: the key must be one formqueue reads, and a knob's
 * value must be one it accepts (so a typo is refused now, not discovered as an incident later). An
 * empty value means "remove it" and is returned as ''.
 */
export function parseSettingAssignment(text: string, current: Readonly<Record<string, string>>): SettingAssignment {
  const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/s.exec(text);
  if (!match) return { ok: false, message: 'Type NAME=VALUE, for example STAFF_EMAILS=desk@example.com (an empty value removes the property).' };
  const key = match[1].toUpperCase();
  const value = match[2].trim();
  if (!(SETTING_KEYS as readonly string[]).includes(key)) {
    return { ok: false, message: `${key} is not a property formqueue reads. Known: ${SETTING_KEYS.join(', ')}.` };
  }
  // An empty value (remove the property) passes both checks: an unset token is no problem, and every other setting has a default.
  const token = (TOKEN_KEYS as readonly string[]).includes(key) ? tokenProblem(value) : null;
  if (token !== null) {
    return { ok: false, message: `${key} ${token}. Type a longer random one, or leave it empty and run Set up / repair, which generates one.` };
  }
  const problem = readSettings({ ...current, [key]: value }).problems.find((text) => text.startsWith(`Script Property ${key} `));
  if (problem) return { ok: false, message: problem.replace(/; using .*$/, '.') };
  return { ok: true, key, value };
}
