// answerText, one row per answer shape: what staff and the model read for every Typeform answer type, and for
// values of the wrong shape (which must read as nothing rather than as "[object Object]" or "undefined").
import { describe, expect, it } from 'vitest';
import { answerText } from '../../../../src/core/domain/typeform/answers';
import type { TypeformAnswer } from '../../../../src/core/domain/typeform/typeform-payload';

const answer = (type: string, value: unknown, fieldType?: string): TypeformAnswer => ({ type, field: { id: 'f', ref: 'r', type: fieldType }, [type]: value });

describe('answerText', () => {
  it.each<[string, TypeformAnswer, string]>([
    ['text', answer('text', 'Hello'), 'Hello'],
    ['email', answer('email', 'a@x.y'), 'a@x.y'],
    ['url', answer('url', 'https://x.y'), 'https://x.y'],
    ['file_url', answer('file_url', 'https://api.typeform.com/f/1'), 'https://api.typeform.com/f/1'],
    ['phone_number', answer('phone_number', '+44 20 7946 0958'), '+44 20 7946 0958'],
    ['date', answer('date', '2026-12-01'), '2026-12-01'],
    ['a text answer holding a number', answer('text', 42), '42'],
    ['a missing text value', answer('text', undefined), ''],
    ['a null text value', answer('email', null), ''],
    ['number', answer('number', 7), '7'],
    ['number zero', answer('number', 0), '0'],
    ['number as a string', answer('number', '7.5'), '7.5'],
    ['number of the wrong shape', answer('number', { n: 1 }), ''],
    ['boolean true', answer('boolean', true), 'Yes'],
    ['boolean false', answer('boolean', false), 'No'],
    ['boolean of the wrong shape', answer('boolean', 'true'), ''],
    ['choice', answer('choice', { label: 'Red' }), 'Red'],
    ['choice with other text', answer('choice', { label: 'Other', other: 'Teal' }), 'Other: Teal'],
    ['choice with only other text', answer('choice', { other: 'Teal' }), 'Other: Teal'],
    ['choice with an empty other', answer('choice', { label: 'Red', other: '' }), 'Red'],
    ['choice with a non-text label', answer('choice', { label: 3 }), ''],
    ['choice of the wrong shape', answer('choice', 'Red'), ''],
    ['choices', answer('choices', { labels: ['A', 'B'] }), 'A, B'],
    ['choices with other text', answer('choices', { labels: ['A'], other: 'Z' }), 'A, Other: Z'],
    ['choices with an empty other', answer('choices', { labels: ['A'], other: '' }), 'A'],
    ['choices with labels of the wrong shape', answer('choices', { labels: 'A' }), ''],
    ['choices with numbers as labels', answer('choices', { labels: [1, 2] }), '1, 2'],
    ['choices of the wrong shape', answer('choices', ['A']), ''],
    ['a ranking keeps the order, numbered', answer('choices', { labels: ['Third', 'First'] }, 'ranking'), '1. Third, 2. First'],
    ['payment', answer('payment', { amount: '12.50', success: true, last4: '4242' }), '12.50, paid, card ending 4242'],
    ['payment that failed', answer('payment', { amount: 5, success: false }), '5, not paid'],
    ['payment with only an amount', answer('payment', { amount: '1', last4: '' }), '1'],
    ['payment with no amount or status', answer('payment', { success: 'yes', last4: 4242 }), ''],
    ['payment of the wrong shape', answer('payment', 'paid'), ''],
    ['an unknown type holding text', answer('signature', 'drawn'), 'drawn'],
    ['an unknown type holding a number', answer('rating_v2', 4), '4'],
    ['an unknown type holding nothing', answer('rating_v2', undefined), ''],
    ['an unknown type holding null', answer('rating_v2', null), ''],
    ['an unknown type holding an object', answer('address', { line_1: '1 Main St', city: 'Leeds', extra: null, zip: { code: 'LS1' } }), 'line 1: 1 Main St; city: Leeds; zip: code: LS1'],
    ['an unknown type holding a list', answer('multi_format', ['a', 2, true, { kind: 'audio' }]), 'a, 2, true, kind: audio'],
    ['an object with a list inside', answer('address', { lines: ['a', { b: 'c' }, 3], empty: [] }), 'lines: a, b: c, 3'],
  ])('%s', (_what, given, text) => expect(answerText(given)).toBe(text));
});
