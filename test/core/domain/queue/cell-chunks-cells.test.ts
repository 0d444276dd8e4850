// Long text into Sheets cells and back: split points, pointers, the digest, fitting one cell, joining parts.
import { describe, expect, it } from 'vitest';
import {
  CELL_LIMIT_CHARS,
  CHUNK_CHARS,
  fitCell,
  isPayloadPointer,
  joinPayloadParts,
  parseRejectedBodyPointer,
  payloadPointer,
  rejectedBodyPointer,
  splitText,
  textDigest,
} from '../../../../src/core/domain/queue/cell-chunks';

describe('splitText', () => {
  it('cuts into pieces of exactly the size, the last one shorter', () => {
    expect(splitText('abcdefg', 3)).toEqual(['abc', 'def', 'g']);
    expect(splitText('abcdef', 3)).toEqual(['abc', 'def']);
    expect(splitText('ab', 3)).toEqual(['ab']);
  });

  it('empty text is one empty piece', () => expect(splitText('', 3)).toEqual(['']));

  it('never splits a surrogate pair: the piece ends before it instead', () => {
    expect(splitText('ab😀cd', 3)).toEqual(['ab', '😀c', 'd']);
    expect(splitText('a😀', 2)).toEqual(['a', '😀']);
  });

  it('a high surrogate at the very end of the text stays where it is', () => {
    expect(splitText('ab\ud83d', 3)).toEqual(['ab\ud83d']);
  });

  it('refuses a size under 2 (a pair could never fit)', () => {
    expect(() => splitText('abc', 1)).toThrow('splitText: size must be at least 2');
    expect(splitText('abc', 2)).toEqual(['ab', 'c']);
  });

  it('the default piece leaves a margin under the cell limit', () => {
    expect(CHUNK_CHARS).toBeLessThan(CELL_LIMIT_CHARS);
    expect(splitText('x'.repeat(CHUNK_CHARS + 1)).map((piece) => piece.length)).toEqual([CHUNK_CHARS, 1]);
  });
});

describe('pointers', () => {
  it('a payload pointer is recognised only in its exact form', () => {
    expect(payloadPointer(3)).toBe('(in Payloads: 3 parts)');
    expect(isPayloadPointer(payloadPointer(12))).toBe(true);
    expect(isPayloadPointer('(in Payloads: 3 parts) ')).toBe(false);
    expect(isPayloadPointer(' (in Payloads: 3 parts)')).toBe(false);
    expect(isPayloadPointer('(in Payloads: x parts)')).toBe(false);
  });

  it('a Rejected body pointer gives back its key, and nothing for anything else', () => {
    const cell = rejectedBodyPointer('rejected-1748772000000-0a1b2c3d', 2);
    expect(cell).toBe('(in Payloads under rejected-1748772000000-0a1b2c3d: 2 parts)');
    expect(parseRejectedBodyPointer(cell)).toBe('rejected-1748772000000-0a1b2c3d');
    expect(parseRejectedBodyPointer(`${cell}x`)).toBeNull();
    expect(parseRejectedBodyPointer(`x${cell}`)).toBeNull();
    expect(parseRejectedBodyPointer('(in Payloads under rejected-1-0A1B2C3D: 2 parts)')).toBeNull();
    expect(parseRejectedBodyPointer('(in Payloads under evil: 2 parts)')).toBeNull();
  });
});

describe('textDigest', () => {
  it('is FNV-1a 32-bit in 8 hex digits', () => {
    expect(textDigest('')).toBe('811c9dc5');
    expect(textDigest('a')).toBe('e40c292c');
    expect(textDigest('foobar')).toBe('bf9cf968');
  });

  it('tells apart texts that differ by one character and keeps leading zeros', () => {
    expect(textDigest('body-1')).not.toBe(textDigest('body-2'));
    expect(textDigest('x')).toMatch(/^[0-9a-f]{8}$/);
  });
});

describe('fitCell', () => {
  it('leaves text that fits alone, up to the limit itself', () => {
    expect(fitCell('abc', 'cut', 3)).toBe('abc');
  });

  it('cuts longer text so that text and note together are exactly the limit', () => {
    const fitted = fitCell('x'.repeat(100), 'full text in Payloads', 40);
    expect(fitted).toBe(`${'x'.repeat(40 - '\n… (full text in Payloads)'.length)}\n… (full text in Payloads)`);
    expect(fitted).toHaveLength(40);
  });
});

describe('joinPayloadParts', () => {
  const part = (p: number, parts: number, text: string) => ({ part: p, parts, text });

  it('joins parts in part order whatever the row order, each copy once', () => {
    expect(joinPayloadParts([part(2, 2, '"b"}'), part(1, 2, '{"a":'), part(1, 2, '{"a":')])).toBe('{"a":"b"}');
  });

  it('a missing part, a part out of range or a count that is no count gives nothing', () => {
    expect(joinPayloadParts([part(1, 2, '{"a":')])).toBeNull();
    expect(joinPayloadParts([part(0, 1, '{}'), part(3, 2, '{}')])).toBeNull();
    expect(joinPayloadParts([part(1, 0, '{}'), part(1, 1.5, '{}')])).toBeNull();
    expect(joinPayloadParts([])).toBeNull();
  });

  it('when two bodies were appended under one event, the combination that is JSON wins', () => {
    const rows = [part(1, 2, '{"a":1,'), part(1, 2, '{"b":'), part(2, 2, '"x"}'), part(2, 2, '"b":2}')];
    expect(joinPayloadParts(rows)).toBe('{"a":1,"b":2}');
  });

  it('tries at most 64 combinations before calling it unreadable', () => {
    const tried: string[] = [];
    const rows = [1, 2, 3, 4, 5, 6, 7].flatMap((p) => [part(p, 7, `${p}a`), part(p, 7, `${p}b`)]);
    expect(joinPayloadParts(rows, (text) => { tried.push(text); return false; })).toBeNull();
    expect(tried).toHaveLength(64);
    expect(tried[0]).toBe('1a2a3a4a5a6a7a');
    expect(tried[1]).toBe('1a2a3a4a5a6a7b');
  });

  it('a second count of parts is tried when the first cannot be completed', () => {
    expect(joinPayloadParts([part(1, 3, '{"a"'), part(1, 1, '{"b":1}')])).toBe('{"b":1}');
  });
});
