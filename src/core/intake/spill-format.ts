// What a spilled delivery keeps: its compact JSON, with the form's definition stored once for all entries of that form.

/** Marks an entry whose form definition was cut out (older entries, and raw bodies, are the JSON itself). */
const PACKED_MARK = 'FQ2\n';
/** A definition shorter than this stays in its entry: storing it apart would save less than its own key costs. */
export const MIN_SHARED_DEFINITION_CHARS = 300;

export interface PackedEntry {
  /** The text to store for this delivery. */
  entry: string;
  /** The definition to store once under `key`, when it was cut out. */
  definition: { key: string; text: string } | null;
}

/**
 * Typeform repeats the whole form definition (every question's title, type and choices) in every delivery: for
 * the sample essay a quarter of the compressed size. It is cut out exactly (its text and offset), so unpacking
 * gives back the same characters. `keyOf` names a definition by its content (a digest, computed by the caller).
 */
export function packForSpill(compactJson: string, keyOf: (definition: string) => string): PackedEntry {
  const span = definitionSpan(compactJson);
  if (!span || span.text.length < MIN_SHARED_DEFINITION_CHARS) return { entry: compactJson, definition: null };
  const key = keyOf(span.text);
  const rest = compactJson.slice(0, span.offset) + compactJson.slice(span.offset + span.text.length);
  return { entry: `${PACKED_MARK}${key}\n${span.offset}\n${rest}`, definition: { key, text: span.text } };
}

/** The delivery's JSON again; a packed entry whose definition is gone gives a reason instead. */
export function unpackSpilled(entry: string, definitionFor: (key: string) => string | null): { ok: true; body: string } | { ok: false; reason: string; rest: string } {
  if (!entry.startsWith(PACKED_MARK)) return { ok: true, body: entry };
  const keyEnd = entry.indexOf('\n', PACKED_MARK.length);
  const offsetEnd = keyEnd < 0 ? -1 : entry.indexOf('\n', keyEnd + 1);
  if (offsetEnd < 0) return { ok: false, reason: 'its header is damaged', rest: entry };
  const key = entry.slice(PACKED_MARK.length, keyEnd);
  const offset = Number(entry.slice(keyEnd + 1, offsetEnd));
  const rest = entry.slice(offsetEnd + 1);
  const definition = definitionFor(key);
  if (definition === null) return { ok: false, reason: `its form definition (${key}) is missing`, rest };
  if (!Number.isInteger(offset) || offset < 0 || offset > rest.length) return { ok: false, reason: 'its header is damaged', rest };
  return { ok: true, body: rest.slice(0, offset) + definition + rest.slice(offset) };
}

/** Where form_response.definition's value sits in the compact JSON text, if it is an object. */
function definitionSpan(compactJson: string): { offset: number; text: string } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(compactJson);
  } catch {
    return null;
  }
  // A form_response that is a string or a number has no definition property either.
  const definition = (parsed as { form_response?: { definition?: unknown } | null } | null)?.form_response?.definition;
  if (!definition || typeof definition !== 'object') return null;
  const text = JSON.stringify(definition);
  // The same text elsewhere would be cut and put back in the same place: either occurrence restores the original.
  const at = compactJson.indexOf(`"definition":${text}`);
  if (at < 0) return null;
  return { offset: at + '"definition":'.length, text };
}
