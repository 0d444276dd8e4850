// What a Rejected row holds: empty ids for a refusal before parsing, the body whole up to one cell, the reason bounded.
import { describe, expect, it } from 'vitest';
import { CHUNK_CHARS } from '../../../src/core/domain/queue/cell-chunks';
import { handleDelivery } from '../../../src/core/intake/intake';
import { shownReason } from '../../../src/core/intake/rejections';
import { memoryIntake } from './memory-intake';

describe('a Rejected row', () => {
  it('a refusal before the body is parsed has empty form and event ids', () => {
    const m = memoryIntake();
    handleDelivery({ token: 'wrong', body: '{}' }, m.deps);
    expect(m.rejected).toEqual([{ at: Date.UTC(2026, 10, 30, 12, 0, 0), reason: 'unauthorized: wrong token in the webhook URL', formId: '', eventId: '', body: '{}' }]);
  });

  it(`a body of exactly ${CHUNK_CHARS.toLocaleString('en-US')} characters stays in its cell; one more goes to Payloads under a key`, () => {
    const m = memoryIntake();
    const body = 'b'.repeat(CHUNK_CHARS);
    handleDelivery({ token: 'wrong', body }, m.deps);
    handleDelivery({ token: 'wrong', body: `${body}+` }, m.deps);
    expect(m.rejected[0].body).toBe(body);
    expect(m.rejected[0].bodyParts).toBeUndefined();
    expect(m.rejected[1].body).toMatch(/^\(in Payloads under rejected-\d+-\S+: 2 parts\)$/);
    expect(m.rejected[1].bodyParts?.parts.join('')).toBe(`${body}+`);
  });

  it('a Rejected sheet that cannot be written is logged with the reason and the error', () => {
    const m = memoryIntake();
    m.sheetsDown.value = true;
    handleDelivery({ token: 'wrong', body: '{}' }, m.deps);
    expect(m.logs).toEqual([
      'rejected delivery (unauthorized: wrong token in the webhook URL) could not be recorded in Rejected: Exception: Service Spreadsheets failed while accessing document with id x.',
    ]);
  });
});

describe("the room a rejection takes from the day's", () => {
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
  it.each([
    ['a body kept in its cell (one row)', 'é'.repeat(100)],
    ['a body in Payloads (the Rejected row and one row per part, each with the key)', 'é'.repeat(CHUNK_CHARS + 1)],
  ])('%s: the UTF-8 bytes of every text written plus 1,000 per row', (_case, body) => {
    const m = memoryIntake();
    handleDelivery({ token: 'wrong', body }, m.deps);
    const [entry] = m.rejected;
    const parts = entry.bodyParts?.parts ?? [];
    const written = [entry.reason, entry.formId, entry.eventId, entry.body, ...parts].reduce((sum, text) => sum + bytes(text), 0);
    const keys = parts.length * bytes(entry.bodyParts?.key ?? '');
    expect(m.tally.rows.map((row) => row.bytes)).toEqual([written + keys + 1000 * (1 + parts.length)]);
  });
});

describe('shownReason', () => {
  it.each([
    ['2,000 characters', 2000, 2000, false],
    ['2,001 characters', 2001, 2000, true],
    ['4,500 characters (bounded to 4,000 before redaction)', 4500, 2000, true],
  ])('a reason of %s is shown %d characters long, cut with a note: %s', (_what, length, shown, cut) => {
    const text = shownReason('r'.repeat(length), memoryIntake().deps);
    expect(text).toHaveLength(shown);
    expect(text.endsWith('\n… (reason cut to fit)')).toBe(cut);
  });

  it('is made from the first 4,000 characters only: text past them never shows, even when redaction shortens what comes before', () => {
    const reason = `${'a'.repeat(3995)} tail${'z'.repeat(100)}`;
    expect(shownReason(reason, memoryIntake().deps)).toBe('[redacted] tail');
  });
});
