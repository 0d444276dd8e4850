// Redaction for every text that leaves the system (sheet cells, emails, logs): secrets never travel.
import type { Code } from './codes';

const REDACTED = '[redacted]';

/** Names whose value is a secret wherever it appears as `name=value` or `"name": "value"`. */
const SECRET_NAMES = 'key|api_?key|apikey|token|access_token|refresh_token|id_token|client_secret|secret|password|passwd|signature|sig';

/** Patterns of secrets we may not know by value; each replacer keeps the name so the text still reads. */
const SECRET_RULES: readonly { pattern: RegExp; replace: (match: string, ...groups: string[]) => string }[] = [
  // PEM blocks (service-account keys pasted into a setting).
  { pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, replace: () => REDACTED },
  // Google API keys and OAuth access tokens.
  { pattern: /AIza[0-9A-Za-z_-]{20,}/g, replace: () => REDACTED },
  { pattern: /\bya29\.[0-9A-Za-z._-]{10,}/g, replace: () => REDACTED },
  // Query strings and form bodies: ?key=…, &my_token=…, also URL-encoded (%3Fkey%3D…%26).
  {
    pattern: new RegExp(`(?:(?<![A-Za-z0-9])|(?<=%3F|%26))((?:[A-Za-z0-9]+[_-])*(?:${SECRET_NAMES}))(=|%3D)((?:(?!%26)[^&\\s"'<>])+)`, 'gi'),
    replace: (_match, name, sep) => `${name}${sep}${REDACTED}`,
  },
  // JSON fields: "token": "…"
  {
    pattern: new RegExp(`(["'](?:${SECRET_NAMES}|x-goog-api-key|authorization)["']\\s*:\\s*["'])([^"']+)`, 'gi'),
    replace: (_match, head) => `${head}${REDACTED}`,
  },
  // Headers: Authorization: Bearer …, x-goog-api-key: …
  {
    pattern: /\b(x-goog-api-key|authorization)(\s*[:=]\s*)(?:(bearer|basic)\s+)?[^\s"',}]+/gi,
    replace: (_match, name, sep, scheme) => `${name}${sep}${scheme ? `${scheme} ` : ''}${REDACTED}`,
  },
  // A bearer token anywhere: needs a digit or a symbol, so "Bearer instruments" stays prose.
  {
    pattern: /\b(bearer)\s+(?=[A-Za-z0-9._~+/-]*[0-9._~+/-])[A-Za-z0-9._~+/-]{8,}=*/gi,
    replace: (_match, word) => `${word} ${REDACTED}`,
  },
  // Long hex: digests, tokens (UUIDs have dashes and stay).
  { pattern: /\b[0-9a-f]{32,}\b/gi, replace: () => REDACTED },
];

/**
 * A run of base64/base64url characters long enough to be a secret. It must mix letters and digits (and both cases
 * unless it is 40+ long) and have a long stretch without `/`, so paths, identifiers and hyphenated words stay.
 */
const OPAQUE_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/_-])/g;

function looksLikeSecret(run: string): boolean {
  if (!/[0-9]/.test(run) || !/[A-Za-z]/.test(run)) return false;
  if (run.length < 40 && !(/[A-Z]/.test(run) && /[a-z]/.test(run))) return false;
  const longestSegment = Math.max(...run.split('/').map((segment) => segment.length));
  if (longestSegment < 24) return false;
  // Words joined by _ or - (snake_case, kebab-case paths) read as text; secrets rarely have many separators.
  const separators = (run.match(/[_-]/g) ?? []).length;
  return separators <= run.length / 12;
}

/** The forms a known secret may take in text that left the system: as is, and URL-encoded (upper or lower hex, `+` for a space). */
function secretForms(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  const forms = [secret, encoded, encoded.replace(/%20/g, '+'), encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())];
  return Array.from(new Set(forms)).sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Our own secret values removed, in every form they may take (see secretForms), however short. A value of 6 or
 * more characters goes wherever it appears; a shorter one only where it stands alone (not inside a longer word
 * or id), so ordinary text around it is not mangled. Used alone where pattern redaction would eat data that must
 * stay whole (a Rejected body).
 */
export function removeKnownSecrets(text: string, knownSecrets: readonly string[]): string {
  let out = String(text);
  for (const secret of knownSecrets) {
    if (!secret) continue;
    for (const form of secretForms(secret)) {
      if (form.length >= 6) out = out.split(form).join(REDACTED);
      else out = out.replace(new RegExp(`(?<![A-Za-z0-9_%-])${escapeRegExp(form)}(?![A-Za-z0-9_-])`, 'g'), REDACTED);
    }
  }
  return out;
}

/**
 * Removes known secret values (every form, any length: removeKnownSecrets) and anything shaped like a secret.
 * `keep` lists values known not to be secret that must survive intact (e.g. our own spreadsheet URL in links).
 * Redact first, cut after: a cut made first can leave part of a secret that no longer matches its value.
 */
export function redact(text: string, knownSecrets?: readonly string[], keep?: readonly string[]): string {
  // Optional rather than defaulted to []: a default array is a value no caller chose, and nothing to take out or keep
  // is said by leaving the argument off.
  let out = knownSecrets ? removeKnownSecrets(text, knownSecrets) : text;
  const kept: string[] = [];
  if (keep) {
    for (const value of keep) {
      // A kept value holding a known secret is no longer in `out` (removeKnownSecrets took the secret out), so it stays out.
      if (!value || !out.includes(value)) continue;
      out = out.split(value).join(`\u0000${kept.length}\u0000`);
      kept.push(value);
    }
  }
  for (const rule of SECRET_RULES) out = out.replace(rule.pattern, rule.replace as (match: string, ...groups: string[]) => string);
  out = out.replace(OPAQUE_RUN, (run) => (looksLikeSecret(run) ? REDACTED : run));
  return out.replace(/\u0000(\d+)\u0000/g, (_match, index: string) => kept[Number(index)] ?? '');
}

/** A short, single-line, redacted summary for a sheet cell: `CODE: message`. */
export function errorSummary(code: Code, message: string, knownSecrets?: readonly string[], maxLength = 300): string {
  const line = redact(`${code}: ${message}`, knownSecrets).replace(/\s+/g, ' ').trim();
  return line.length > maxLength ? `${line.slice(0, maxLength - 1)}…` : line;
}
