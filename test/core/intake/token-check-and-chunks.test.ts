import { describe, expect, it } from 'vitest';
import { fitCell, splitText, isPayloadPointer, payloadPointer } from '../../../src/core/domain/queue/cell-chunks';
import { checkWebhookToken, constantTimeEquals } from '../../../src/core/intake/token-check';
import { QUEUE_NUMBER_FORMATS } from '../../../src/core/domain/queue/queue-row';

describe('checkWebhookToken', () => {
  const CURRENT = 'abc123456789-Kq7Xw2Vn5Rt8Yp3Ls6Zd';
  const OLD = 'old123456789-Hj4Mb9Cf2Gk7Nx5Qw1Ez';
  it.each([
    ['the current token', CURRENT, CURRENT, '', 'current'],
    ['the previous token during rotation', OLD, CURRENT, OLD, 'previous'],
    ['a wrong token', `${CURRENT.slice(0, -1)}0`, CURRENT, '', 'wrong'],
    ['a prefix of the token', 'abc', CURRENT, '', 'wrong'],
    ['the token plus more', `${CURRENT}x`, CURRENT, '', 'wrong'],
    ['no token', undefined, CURRENT, '', 'missing'],
    ['an empty token', '', CURRENT, '', 'missing'],
    ['no WEBHOOK_TOKEN configured', 'anything', '', '', 'not_configured'],
    ['an empty previous token never matches', '', CURRENT, '', 'missing'],
    ['a configured token under 32 characters opens nothing, even given exactly', 'abc123456789', 'abc123456789', '', 'weak'],
    ['a 32-character token of one repeated letter opens nothing', 'a'.repeat(32), 'a'.repeat(32), '', 'weak'],
    ['a short previous token is not accepted during rotation', 'old123456789', CURRENT, 'old123456789', 'wrong'],
  ])('%s', (_name, given, current, previous, expected) => {
    expect(checkWebhookToken(given, current, previous)).toBe(expected);
  });

  it('constantTimeEquals agrees with === on every pair', () => {
    const samples = ['', 'a', 'ab', 'abc', 'abd', 'b', 'ééé', '😀x'];
    for (const a of samples) for (const b of samples) expect(constantTimeEquals(a, b)).toBe(a === b);
  });
});

describe('splitText / fitCell', () => {
  it('splits a 120,000-character payload into parts that fit a cell and rejoin exactly', () => {
    const text = 'x'.repeat(60000) + '😀'.repeat(30000);
    const parts = splitText(text);
    expect(parts.length).toBe(3);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(45000);
    expect(parts.join('')).toBe(text);
  });

  it('never splits a surrogate pair', () => {
    const text = 'a' + '😀'.repeat(10);
    for (const part of splitText(text, 4)) {
      const last = part.charCodeAt(part.length - 1);
      expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
    }
    expect(splitText(text, 4).join('')).toBe(text);
  });

  it('cuts long text to a cell and says so', () => {
    const cut = fitCell('y'.repeat(60000), 'see payload');
    expect(cut.length).toBeLessThanOrEqual(45000);
    expect(cut.endsWith('(see payload)')).toBe(true);
    expect(fitCell('short', 'x')).toBe('short');
  });

  it('marks the payload cell when the JSON lives in Payloads', () => {
    expect(isPayloadPointer(payloadPointer(2))).toBe(true);
    expect(isPayloadPointer('{"event_id":"x"}')).toBe(false);
  });
});

describe('Queue number formats', () => {
  it.each(['event_id', 'form_id', 'response_token', 'recipient', 'submission', 'payload', 'result', 'error'] as const)(
    'writes %s as plain text, so "=…", "+…", "-…" and "@…" answers stay text',
    (column) => {
      expect(QUEUE_NUMBER_FORMATS[column]).toBe('@');
    },
  );
});
