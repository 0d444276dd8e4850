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
