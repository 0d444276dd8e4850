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

/** Text cut to fit one cell, saying so, for cells (like `submission`) whose full text is kept elsewhere. */
export function fitCell(text: string, note: string, limit = CHUNK_CHARS): string {
  if (text.length <= limit) return text;
  const suffix = `\n… (${note})`;
  return splitText(text, limit - suffix.length)[0] + suffix;
}
