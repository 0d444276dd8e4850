// Splitting long text so every piece fits a Sheets cell (50,000 characters) and joins back exactly.

/** Sheets refuses more than 50,000 characters in a cell; keep a margin. */
export const CELL_LIMIT_CHARS = 50000;
export const CHUNK_CHARS = 45000;

/** Splits text into pieces of at most `size` characters, never between the two halves of a surrogate pair. */
export function splitText(text: string, size = CHUNK_CHARS): string[] {
  if (size < 2) throw new Error('splitText: size must be at least 2');
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces.length > 0 ? pieces : [''];
}

/** The payload cell's text when the JSON lives in the Payloads sheet. */
export function payloadPointer(parts: number): string {
  return `(in Payloads: ${parts} parts)`;
}

export function isPayloadPointer(cell: string): boolean {
  return /^\(in Payloads: \d+ parts\)$/.test(cell);
}

/** A Rejected body cell whose body is in the Payloads sheet under `key` (its first column). */
export function rejectedBodyPointer(key: string, parts: number): string {
  return `(in Payloads under ${key}: ${parts} parts)`;
}

export function parseRejectedBodyPointer(cell: string): string | null {
  const match = /^\(in Payloads under (rejected-\d+-[0-9a-f]{8}): \d+ parts\)$/.exec(cell);
  return match ? match[1] : null;
}

/** Whether a Payloads key (column A) is a Rejected body's, not a Queue payload's (those are keyed by event id). */
export function isRejectedBodyKey(key: string): boolean {
  return parseRejectedBodyPointer(rejectedBodyPointer(key, 1)) === key;
}

/** FNV-1a, 32 bits, in hex: tells two bodies rejected in the same millisecond apart (a name, not a secret). */
export function textDigest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** Text cut to fit one cell, saying so, for cells (like `submission`) whose full text is kept elsewhere. */
export function fitCell(text: string, note: string, limit = CHUNK_CHARS): string {
  if (text.length <= limit) return text;
  const suffix = `\n… (${note})`;
  return splitText(text, limit - suffix.length)[0] + suffix;
}

/** One row of the Payloads sheet: part `part` of `parts` of one event's payload. */
export interface PayloadPart {
  part: number;
  parts: number;
  text: string;
}

/** Combinations of differing copies tried before a payload is called unreadable (two bodies under one event id). */
const MAX_COMBINATIONS = 64;

/**
 * The payload from its parts in sheet order, or null when a part is missing. Parts are appended before their
 * Queue row, so an append that failed half-way and was retried (or two executions queuing the same delivery)
 * leaves a part more than once: each part counts once, first copies first. Only when two executions appended
 * different bodies under one event id can copies differ; then the combination that is JSON is taken.
 */
export function joinPayloadParts(rows: readonly PayloadPart[], isWhole: (text: string) => boolean = isJson): string | null {
  const counts = Array.from(new Set(rows.map((row) => row.parts))).filter((n) => Number.isInteger(n) && n > 0);
  for (const parts of counts) {
    const copies: string[][] = Array.from({ length: parts }, () => []);
    for (const row of rows) {
      if (row.parts !== parts || row.part < 1 || row.part > parts) continue;
      const seen = copies[row.part - 1];
      if (!seen.includes(row.text)) seen.push(row.text);
    }
    if (copies.some((texts) => texts.length === 0)) continue;
    let tried = 0;
    for (const text of combinations(copies)) {
      if (isWhole(text)) return text;
      if (++tried >= MAX_COMBINATIONS) break;
    }
  }
  return null;
}

/** Every join of one copy per part, the first copies' join first. */
function* combinations(copies: readonly string[][]): Generator<string> {
  const choice = copies.map(() => 0);
  while (true) {
    yield choice.map((at, part) => copies[part][at]).join('');
    let part = copies.length - 1;
    while (part >= 0 && choice[part] === copies[part].length - 1) choice[part--] = 0;
    if (part < 0) return;
    choice[part]++;
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
  } catch {
    return false;
  }
  return true;
}
