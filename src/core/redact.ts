// Redaction for every text that leaves the system (sheet cells, emails, logs): secrets never travel.

const REDACTED = '[redacted]';

/** Patterns of secrets we may not know by value: API keys, query secrets, bearer tokens, long opaque strings. */
const SECRET_PATTERNS: readonly RegExp[] = [
  /AIza[0-9A-Za-z_-]{20,}/g, // Google API keys
  /\b(key|token|api_key|apikey|access_token|secret|signature|sig)=([^&\s"'<>]+)/gi,
  /\b(x-goog-api-key|authorization)(["']?\s*[:=]\s*["']?)(bearer\s+)?[^\s"',}]+/gi,
  /\bbearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi,
  /\b[0-9a-f]{32,}\b/gi, // long hex secrets
  /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{40,}={0,2}(?![A-Za-z0-9+/_-])/g, // long base64 / base64url blobs
];

/**
 * Removes known secret values (by value, whatever their shape) and anything shaped like a secret.
 * Known values shorter than 6 characters are ignored: replacing them would mangle ordinary text.
 */
export function redact(text: string, knownSecrets: readonly string[] = []): string {
  let out = String(text);
  for (const secret of knownSecrets) {
    if (secret && secret.length >= 6) out = out.split(secret).join(REDACTED);
  }
  out = out.replace(SECRET_PATTERNS[0], REDACTED);
  out = out.replace(SECRET_PATTERNS[1], (_m, name: string) => `${name}=${REDACTED}`);
  out = out.replace(SECRET_PATTERNS[2], (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`);
  out = out.replace(SECRET_PATTERNS[3], `Bearer ${REDACTED}`);
  out = out.replace(SECRET_PATTERNS[4], REDACTED);
  out = out.replace(SECRET_PATTERNS[5], REDACTED);
  return out;
}

/** A short, single-line, redacted summary for a sheet cell: `CODE: message`. */
export function errorSummary(code: string, message: string, knownSecrets: readonly string[] = [], maxLength = 300): string {
  const line = redact(`${code}: ${message}`, knownSecrets).replace(/\s+/g, ' ').trim();
  return line.length > maxLength ? `${line.slice(0, maxLength - 1)}…` : line;
}
