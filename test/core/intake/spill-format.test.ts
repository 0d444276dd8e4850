// A spilled entry without its form definition (stored once per form): unpacked to exactly the JSON that was spilled.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIN_SHARED_DEFINITION_CHARS, packForSpill, unpackSpilled } from '../../../src/core/intake/spill-format';

const essay = JSON.stringify(JSON.parse(readFileSync(new URL('../../fixtures/typeform/essay-submission.json', import.meta.url), 'utf8')));
const keyOf = (text: string) => `k${text.length}`;

describe('packForSpill and unpackSpilled', () => {
  it('cuts the definition out and puts it back character for character', () => {
    const packed = packForSpill(essay, keyOf);
    expect(packed.definition?.text).toBe(JSON.stringify(JSON.parse(essay).form_response.definition));
    expect(packed.entry.length).toBeLessThan(essay.length - packed.definition!.text.length + 40);
    expect(unpackSpilled(packed.entry, (key) => (key === packed.definition!.key ? packed.definition!.text : null))).toEqual({ ok: true, body: essay });
  });

  it.each([
    ['a raw body that is not compact JSON', '{\n  "event_id": "x"\n}'],
    ['a body without a definition', JSON.stringify({ event_id: 'x', form_response: { answers: [] } })],
    ['a definition too short to share', JSON.stringify({ event_id: 'x', form_response: { definition: { id: 'f' } } })],
    ['not JSON at all', 'not json'],
  ])('keeps %s whole', (_name, body) => {
    expect(packForSpill(body, keyOf)).toEqual({ entry: body, definition: null });
    expect(unpackSpilled(body, () => null)).toEqual({ ok: true, body });
  });

  it('restores the original even when a hidden field repeats the definition text', () => {
    const body = JSON.parse(essay);
    body.form_response.hidden = { definition: body.form_response.definition };
    const text = JSON.stringify(body);
    const packed = packForSpill(text, keyOf);
    expect(packed.definition!.text.length).toBeGreaterThanOrEqual(MIN_SHARED_DEFINITION_CHARS);
    expect(unpackSpilled(packed.entry, () => packed.definition!.text)).toEqual({ ok: true, body: text });
  });

  it('says so when the shared definition is gone, keeping the rest readable', () => {
    const packed = packForSpill(essay, keyOf);
    const result = unpackSpilled(packed.entry, () => null);
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/form definition \(k\d+\) is missing/) });
    expect(!result.ok && result.rest).toContain('"event_id":"01JQ8ZK4W6E2V1RZ5T3N8M0B7C"');
  });
});

describe('the packed entry, exactly', () => {
  // A body whose definition is exactly `length` characters of JSON.
  const withDefinition = (length: number) => {
    const bare = JSON.stringify({ id: 'f', title: '' }).length;
    return JSON.stringify({ event_id: 'x', form_response: { form_id: 'f', definition: { id: 'f', title: 'd'.repeat(length - bare) }, answers: [] } });
  };

  it('is the mark, the key, the offset and the rest, one per line', () => {
    const body = withDefinition(MIN_SHARED_DEFINITION_CHARS);
    const text = JSON.stringify(JSON.parse(body).form_response.definition);
    const offset = body.indexOf(text);
    const packed = packForSpill(body, (definition) => `key-of-${definition.length}`);
    expect(packed).toEqual({ entry: `FQ2\nkey-of-300\n${offset}\n${body.slice(0, offset)}${body.slice(offset + text.length)}`, definition: { key: 'key-of-300', text } });
  });

  it(`a definition of ${MIN_SHARED_DEFINITION_CHARS - 1} characters stays in the entry`, () => {
    const body = withDefinition(MIN_SHARED_DEFINITION_CHARS - 1);
    expect(packForSpill(body, keyOf)).toEqual({ entry: body, definition: null });
  });

  it.each([
    ['a definition that is text', JSON.stringify({ form_response: { definition: 'x'.repeat(400) } })],
    ['a form_response that is null', JSON.stringify({ form_response: null })],
    ['JSON null', 'null'],
    ['a definition written with spaces (not compact)', `{"form_response": {"definition": ${JSON.stringify({ title: 'd'.repeat(400) })}}}`],
  ])('keeps %s whole', (_name, body) => {
    expect(packForSpill(body, keyOf)).toEqual({ entry: body, definition: null });
  });

  it.each<[string, string, ReturnType<typeof unpackSpilled>]>([
    ['no line after the key', 'FQ2\nk1', { ok: false, reason: 'its header is damaged', rest: 'FQ2\nk1' }],
    ['no line after the offset', 'FQ2\nk1\n3', { ok: false, reason: 'its header is damaged', rest: 'FQ2\nk1\n3' }],
    ['an offset that is no number', 'FQ2\nk1\nx\n{}', { ok: false, reason: 'its header is damaged', rest: '{}' }],
    ['a fractional offset', 'FQ2\nk1\n1.5\n{}', { ok: false, reason: 'its header is damaged', rest: '{}' }],
    ['a negative offset', 'FQ2\nk1\n-1\n{}', { ok: false, reason: 'its header is damaged', rest: '{}' }],
    ['an offset past the end', 'FQ2\nk1\n3\n{}', { ok: false, reason: 'its header is damaged', rest: '{}' }],
    ['an offset at the end', 'FQ2\nk1\n2\n{}', { ok: true, body: '{}DEF' }],
    ['an offset at the start', 'FQ2\nk1\n0\n{}', { ok: true, body: 'DEF{}' }],
    ['an offset inside', 'FQ2\nk1\n1\n{}', { ok: true, body: '{DEF}' }],
    ['a key that is not stored', 'FQ2\nk2\n1\n{}', { ok: false, reason: 'its form definition (k2) is missing', rest: '{}' }],
    ['no mark: the JSON itself', 'FQ1\nk1\n1\n{}', { ok: true, body: 'FQ1\nk1\n1\n{}' }],
  ])('unpacking an entry with %s', (_name, entry, result) => {
    expect(unpackSpilled(entry, (key) => (key === 'k1' ? 'DEF' : null))).toEqual(result);
  });
});
