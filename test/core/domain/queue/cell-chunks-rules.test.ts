// Cell splitting and payload joining at their boundaries: surrogate pairs at the cut, pointer formats, the digest's
// width, and which copies of which parts a join reads, in which order.
import { describe, expect, it } from 'vitest';
import { isRejectedBodyKey, joinPayloadParts, parseRejectedBodyPointer, splitText, textDigest, type PayloadPart } from '../../../../src/core/domain/queue/cell-chunks';

describe('splitText at a surrogate pair', () => {
  it.each([
    ['the lowest high surrogate', '\ud800\udc00'],
    ['the highest high surrogate', '\udbff\udfff'],
  ])('keeps a pair starting with %s whole', (_what, pair) => {
    expect(splitText(`a${pair}b`, 2)).toEqual(['a', pair, 'b']);
  });

  it('cuts after a character just below the surrogates, and before a lone low surrogate', () => {
    expect(splitText('a\ud7ffb', 2)).toEqual(['a\ud7ff', 'b']);
    expect(splitText('a\udc00b', 2)).toEqual(['a\udc00', 'b']);
  });
});

describe('parseRejectedBodyPointer', () => {
  it.each<[string, string | null]>([
    ['(in Payloads under rejected-1764583200000-0e1aeed8: 12 parts)', 'rejected-1764583200000-0e1aeed8'],
    ['(in Payloads under rejected-1-0e1aeed8: 2 parts)', 'rejected-1-0e1aeed8'],
    ['(in Payloads under rejected-1-0e1aeed8: parts)', null],
    ['(in Payloads under rejected-x-0e1aeed8: 2 parts)', null],
  ])('%s → %s', (cell, key) => {
    expect(parseRejectedBodyPointer(cell)).toBe(key);
  });
});

describe('isRejectedBodyKey', () => {
  it.each<[string, boolean]>([
    ['rejected-1764583200000-0e1aeed8', true],
    ['01JQ8ZK4W6E2V1RZ5T3N8M0B7C', false], // a Queue payload's event id
    ['rejected-1764583200000-0e1aeed8: 2 parts)', false],
    ['rejected-x-0e1aeed8', false],
  ])('%s → %s', (key, rejected) => {
    expect(isRejectedBodyKey(key)).toBe(rejected);
  });
});

describe('textDigest', () => {
  it('is always eight hex digits, leading zeros kept', () => {
    expect(textDigest('body-620')).toBe('0e1aeed8');
    expect(textDigest('')).toBe('811c9dc5');
  });
});

describe('joinPayloadParts', () => {
  const part = (n: number, parts: number, text: string): PayloadPart => ({ part: n, parts, text });

  it('a part counted as 0 parts is no payload, even for a reader that takes anything', () => {
    expect(joinPayloadParts([part(1, 0, 'x')], () => true)).toBeNull();
  });

  it('a part numbered beyond its count is left out', () => {
    expect(joinPayloadParts([part(1, 2, '{"a":'), part(3, 2, 'x'), part(2, 2, '1}')])).toBe('{"a":1}');
  });

  it('each part count is joined from its own parts only', () => {
    const tried: string[] = [];
    joinPayloadParts([part(1, 2, 'A'), part(2, 2, 'B'), part(1, 1, 'C')], (text) => {
      tried.push(text);
      return false;
    });
    expect(tried).toEqual(['AB', 'C']);
  });

  it('a repeated copy of a part is tried once', () => {
    const tried: string[] = [];
    joinPayloadParts([part(1, 1, 'x'), part(1, 1, 'x')], (text) => {
      tried.push(text);
      return false;
    });
    expect(tried).toEqual(['x']);
  });

  it('differing copies are tried first copies first, the last part turning fastest, each join once', () => {
    const tried: string[] = [];
    const result = joinPayloadParts([part(1, 2, 'A1'), part(2, 2, 'A2'), part(1, 2, 'B1'), part(2, 2, 'B2')], (text) => {
      tried.push(text);
      return false;
    });
    expect(result).toBeNull();
    expect(tried).toEqual(['A1A2', 'A1B2', 'B1A2', 'B1B2']);
  });

  it('text that is not JSON is no payload by default', () => {
    expect(joinPayloadParts([part(1, 1, '{"a":')])).toBeNull();
    expect(joinPayloadParts([part(1, 1, '{"a":1}')])).toBe('{"a":1}');
  });
});
