// What intake refuses before it stores anything: a body too large or nested too deep, a field too long to keep.

/**
 * Bodies over this are refused (`body_too_large`). A Typeform delivery is a few kilobytes; this leaves room for
 * long essays (the payload is split over the Payloads sheet) while keeping one delivery from filling the spill.
 */
export const MAX_BODY_CHARS = 200000;
/** Typeform's bodies nest about six levels; deeper JSON is refused before parsing (JSON.stringify recurses). */
export const MAX_JSON_DEPTH = 64;
/**
 * Fields intake stores in a cell of their own. Typeform's ids are tens of characters; an address has at most
 * 64 + 1 + 255 (RFC 3696 §3). Past these a value is hostile or broken, and would not fit Queue's cells.
 */
export const FIELD_LIMITS = {
  event_id: 256,
  form_id: 256,
  response_token: 256,
  recipient: 320,
} as const;
export type LimitedField = keyof typeof FIELD_LIMITS;

export interface LimitFailure {
  error: 'body_too_large' | 'too_deeply_nested' | 'field_too_large';
  reason: string;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** Size and depth, checked on the raw text: linear, and never recursive, whatever the body holds. */
export function checkBodyShape(body: string): LimitFailure | null {
  if (body.length > MAX_BODY_CHARS) {
    return { error: 'body_too_large', reason: `the body is ${count(body.length)} characters (limit ${count(MAX_BODY_CHARS)})` };
  }
  const depth = nestingDepth(body, MAX_JSON_DEPTH);
  if (depth > MAX_JSON_DEPTH) return { error: 'too_deeply_nested', reason: `the JSON nests deeper than ${MAX_JSON_DEPTH} levels` };
  return null;
}

/** Depth of [ and { outside strings, scanning stops once past `stopAbove`. */
export function nestingDepth(text: string, stopAbove: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > stopAbove) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** The first field over its limit, named with its size, or null. */
export function checkFieldSizes(fields: Partial<Record<LimitedField, string>>): LimitFailure | null {
  for (const name of Object.keys(FIELD_LIMITS) as LimitedField[]) {
    const value = fields[name];
    if (value !== undefined && value.length > FIELD_LIMITS[name]) {
      return { error: 'field_too_large', reason: `${name} is ${count(value.length)} characters (limit ${count(FIELD_LIMITS[name])})` };
    }
  }
  return null;
}

/** A value shown in a reason or an id cell, cut so a hostile one cannot fill the cell. */
export function clip(text: string, limit = 120): string {
  if (text.length <= limit) return text;
  const last = text.charCodeAt(limit - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit; // never half a surrogate pair
  return `${text.slice(0, end)}… (${count(text.length)} characters)`;
}
