// What intake refuses before storing anything, at each limit's edge, and how a hostile value is shown.
import { describe, expect, it } from 'vitest';
import { checkBodyShape, checkFieldSizes, clip, FIELD_LIMITS, MAX_BODY_CHARS, MAX_JSON_DEPTH, nestingDepth } from '../../../../src/core/domain/typeform/delivery-limits';

describe('checkBodyShape', () => {
  it('a body of exactly the limit is taken; one character more is refused, with both sizes', () => {
    expect(checkBodyShape(' '.repeat(MAX_BODY_CHARS))).toBeNull();
    expect(checkBodyShape(' '.repeat(MAX_BODY_CHARS + 1))).toEqual({ error: 'body_too_large', reason: 'the body is 200,001 characters (limit 200,000)' });
  });

  it('JSON nested exactly to the limit is taken; one level deeper is refused', () => {
    expect(checkBodyShape('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBeNull();
    expect(checkBodyShape('{"a":'.repeat(MAX_JSON_DEPTH + 1))).toEqual({ error: 'too_deeply_nested', reason: 'the JSON nests deeper than 64 levels' });
  });
});

describe('nestingDepth', () => {
  it.each<[string, number]>([
    ['', 0],
    ['{}', 1],
    ['[[]]', 2],
    ['[[], []]', 2],
    ['{"a":[1,{"b":2}]}', 3],
    ['[] [] []', 1],
    ['"[[[["', 0],
    ['{"a":"x\\"[[[["}', 1],
    ['{"a":"\\\\"}[', 1],
    ['[]]]', 1],
    ['[[]][]', 2],
  ])('%j nests %d deep (brackets inside strings, escaped quotes included, do not count)', (text, depth) => expect(nestingDepth(text, 100)).toBe(depth));

  it('stops counting once past the limit', () => {
    expect(nestingDepth('['.repeat(1000), 5)).toBe(6);
  });
});

describe('checkFieldSizes', () => {
  it('each field may be exactly its limit; the first one over is named with its size', () => {
    const at = Object.fromEntries(Object.entries(FIELD_LIMITS).map(([name, limit]) => [name, 'x'.repeat(limit)]));
    expect(checkFieldSizes(at)).toBeNull();
    expect(checkFieldSizes({ ...at, recipient: 'x'.repeat(FIELD_LIMITS.recipient + 1), form_id: 'x'.repeat(300) })).toEqual({
      error: 'field_too_large',
      reason: 'form_id is 300 characters (limit 256)',
    });
    expect(checkFieldSizes({ recipient: 'x'.repeat(1321) })).toEqual({ error: 'field_too_large', reason: 'recipient is 1,321 characters (limit 320)' });
    expect(checkFieldSizes({})).toBeNull();
  });
});

describe('clip', () => {
  it('leaves text up to the limit alone and cuts longer text, saying how long it was', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('abcd', 3)).toBe('abc… (4 characters)');
    expect(clip('x'.repeat(1500))).toBe(`${'x'.repeat(120)}… (1,500 characters)`);
  });

  it('never cuts a surrogate pair in half', () => {
    expect(clip('ab😀cd', 3)).toBe('ab… (6 characters)');
    expect(clip('a😀cd', 3)).toBe('a😀… (5 characters)');
    // The first and the last high surrogate: U+10000 and U+10FFFF.
    expect(clip('a\u{10000}cd', 2)).toBe('a… (5 characters)');
    expect(clip('a\u{10FFFF}cd', 2)).toBe('a… (5 characters)');
    expect(clip('a\u{FFFF}cd', 2)).toBe('a\u{FFFF}… (4 characters)');
  });
});
