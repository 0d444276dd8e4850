// Text helpers of triage mails and stored values: UTF-8 size, durations a person reads, UTC times, HTML escaping.
import { describe, expect, it } from 'vitest';
import { escapeHtml, formatDuration, formatTime, minutesBetween, plural, utf8Length } from '../../../src/core/domain/text';

describe('utf8Length counts the bytes Apps Script counts against a property', () => {
  it.each<[string, string, number]>([
    ['empty', '', 0],
    ['ASCII', 'abc', 3],
    ['the last 1-byte character', '\u007f', 1],
    ['the first 2-byte character', '\u0080', 2],
    ['a 2-byte character (é)', 'é', 2],
    ['the last 2-byte character', '\u07ff', 2],
    ['the first 3-byte character', '\u0800', 3],
    ['a 3-byte character (€)', '€', 3],
    ['a 3-byte character just below the surrogates', '\ud7ff', 3],
    ['a surrogate pair (emoji) as one 4-byte character', '😀', 4],
    ['the first 4-byte character (high surrogate 0xd800)', '\u{10000}', 4],
    ['the last 4-byte character (high surrogate 0xdbff)', '\u{10ffff}', 4],
    ['a character after the high surrogates', '\ue000', 3],
    ['mixed', 'a€😀é', 1 + 3 + 4 + 2],
  ])('%s', (_what, text, bytes) => expect(utf8Length(text)).toBe(bytes));
});

describe('formatDuration', () => {
  it.each<[number, string]>([
    [-5000, '0 s'],
    [0, '0 s'],
    [1499, '1 s'],
    [45_000, '45 s'],
    [59_999, '60 s'],
    [60_000, '1 min'],
    [12 * 60_000 + 59_000, '12 min'],
    [59 * 60_000, '59 min'],
    [60 * 60_000, '1 h'],
    [(3 * 60 + 5) * 60_000, '3 h 5 min'],
    [47 * 3_600_000 + 59 * 60_000, '47 h 59 min'],
    [48 * 3_600_000, '2 d'],
    [(2 * 24 + 4) * 3_600_000 + 30 * 60_000, '2 d 4 h'],
    [10 * 24 * 3_600_000, '10 d'],
  ])('%d ms reads "%s"', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe('times and counts', () => {
  it('formatTime is minutes in UTC, said so', () => {
    expect(formatTime(Date.UTC(2025, 5, 1, 10, 2, 59))).toBe('2025-06-01 10:02 UTC');
  });

  it.each<[number, number, number]>([[0, 0, 0], [0, 59_999, 0], [0, 60_000, 1], [0, 150_000, 2], [60_000, 0, 0]])(
    'minutesBetween(%d, %d) = %d (never negative)', (from, to, minutes) => expect(minutesBetween(from, to)).toBe(minutes));

  it('escapeHtml escapes the five characters that can break out of text or an attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('plural', () => {
    expect(plural(1, 'row')).toBe('1 row');
    expect(plural(0, 'row')).toBe('0 rows');
    expect(plural(2, 'reply', 'replies')).toBe('2 replies');
  });
});
