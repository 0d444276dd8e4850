import { describe, expect, it } from 'vitest';
import { errorSummary, redact } from '../../../../src/core/domain/failures/redact';

const API_KEY = 'AIzaSyB-1234567890abcdefghijklmnopqrstu';
const WEBHOOK_TOKEN = 'Zx9-webhook-secret';
const SPREADSHEET_URL = 'https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF/edit';

describe('redact removes secrets', () => {
  const cases: { name: string; input: string; gone: string[]; kept?: string[] }[] = [
    { name: 'a Google API key anywhere', input: `key is ${API_KEY}.`, gone: [API_KEY], kept: ['key is ', '.'] },
    { name: 'a key= query value', input: 'GET /v1beta/models/m:generateContent?key=abc123secretvalue&alt=json', gone: ['abc123secretvalue'], kept: ['key=[redacted]&alt=json'] },
    { name: 'a token= query value', input: 'https://script.google.com/macros/s/X/exec?token=s3cr3t-T0ken', gone: ['s3cr3t-T0ken'], kept: ['?token=[redacted]'] },
    { name: 'a URL-encoded key value', input: 'url=https%3A%2F%2Fx%3Fkey%3Dhunter2%2Bhunter2%26page%3D2', gone: ['hunter2'], kept: ['%26page%3D2'] },
    { name: 'a prefixed secret name', input: 'POST /hook?form=abc&typeform_token=q1w2e3r4', gone: ['q1w2e3r4'], kept: ['form=abc&typeform_token=[redacted]'] },
    { name: 'a bearer token', input: 'sent with Bearer ya29.a0AfB_byC-xyz_0123456789', gone: ['ya29.a0AfB_byC-xyz_0123456789'], kept: ['sent with Bearer [redacted]'] },
    { name: 'an Authorization header', input: 'Authorization: Bearer abc.def.ghi-123', gone: ['abc.def.ghi-123'], kept: ['Authorization: Bearer [redacted]'] },
    { name: 'an x-goog-api-key header', input: '{"x-goog-api-key": "plainvalue99"}', gone: ['plainvalue99'] },
    { name: 'a JSON secret field', input: '{"client_secret":"GOCSPX-abcdef","name":"ok"}', gone: ['GOCSPX-abcdef'], kept: ['"name":"ok"'] },
    { name: 'a long hex secret', input: 'sig 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 end', gone: ['9f86d081884c7d659a2feaa0c55ad015'], kept: ['sig ', ' end'] },
    { name: 'a long base64 blob', input: 'blob: dGhpcyBpcyBhIHNlY3JldCB0b2tlbiB3aXRoIDEyMzQ1Njc4OTA= done', gone: ['dGhpcyBpcyBhIHNlY3JldCB0b2tlbiB3aXRoIDEyMzQ1Njc4OTA'], kept: ['blob: ', ' done'] },
    { name: 'a base64url blob', input: 'id_tok eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9_abcDEF-0987xyz', gone: ['eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9'] },
    { name: 'a private key block', input: 'cfg -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY----- tail', gone: ['MIIEvQIBADANBg'], kept: ['cfg ', ' tail'] },
    {
      name: 'a key inside a stack trace, keeping the frames',
      input: `Exception: Request failed for https://generativelanguage.googleapis.com/v1beta/models/gemini:generateContent?key=${API_KEY} returned code 400\n    at callGemini (Code:812:23)\n    at processQueue (Code:44:7)`,
      gone: [API_KEY],
      kept: ['returned code 400', 'at callGemini (Code:812:23)', 'at processQueue (Code:44:7)'],
    },
    { name: 'a known secret of any shape', input: `token was ${WEBHOOK_TOKEN} in the body`, gone: [WEBHOOK_TOKEN], kept: ['token was ', ' in the body'] },
  ];
  for (const { name, input, gone, kept = [] } of cases) {
    it(`removes ${name}`, () => {
      const out = redact(input, [WEBHOOK_TOKEN]);
      for (const secret of gone) expect(out).not.toContain(secret);
      for (const text of kept) expect(out).toContain(text);
      expect(out).toContain('[redacted]');
    });
  }
});

describe('redact leaves ordinary text intact', () => {
  const untouched = [
    'The key to success is patience; a token of thanks.',
    'monkey=banana and turkey=roast',
    'Please reply to jane.doe+forms@example-mail.co.uk before Friday.',
    'Received 2025-06-01T10:02:03.456Z, due 2025-06-02 09:00 UTC.',
    'API key not valid. Please pass a valid API key.',
    'Bearer instruments and a bearer of bad news.',
    'https://example.com/search?q=formqueue&page=2',
    'Call +44 20 7946 0958 or visit room 12B.',
    'event 01HZX3K9Q8V7T6S5R4P3N2M1KJ and mail ref FQ-7K2M9Q',
    'uuid 123e4567-e89b-12d3-a456-426614174000',
    'at Object.processQueueAfterTheSpreadsheetComesBack (Code:12:3)',
    '/home/ci/formqueue/node_modules/vitest/dist/chunks/runtime-2024.js',
    'GEMINI_MODEL_NOT_FOUND_AFTER_THE_MODEL_WAS_RETIRED_2025',
    'a-very-long-hyphenated-phrase-that-goes-on-and-on-for-2-lines',
    'Service invoked too many times for one day: email.',
    'Typeform response token a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6',
  ];
  for (const text of untouched) {
    it(`keeps "${text.slice(0, 50)}"`, () => {
      expect(redact(text, [WEBHOOK_TOKEN])).toBe(text);
    });
  }

  it('removes a known secret shorter than 6 characters where it stands alone, not inside other words', () => {
    expect(redact('the row was sent; sentinel stays', ['sent', ''])).toBe('the row was [redacted]; sentinel stays');
    expect(redact('?token=Ab1&x=1', ['Ab1'])).not.toContain('Ab1');
  });

  it('removes a known secret URL-encoded (upper or lower hex, + for a space)', () => {
    const secret = 'p@ss/w0rd+token value';
    for (const form of [encodeURIComponent(secret), encodeURIComponent(secret).replace(/%20/g, '+'), encodeURIComponent(secret).toLowerCase()]) {
      expect(redact(`next=https%3A%2F%2Fx.example%2Fcb%3Fs%3D${form}%26y%3D1 and ${form}`, [secret])).not.toMatch(/p%40ss|w0rd/i);
    }
  });

  it('a secret whose URL-encoded form contains it (it ends in %) is removed whole from that form, leaving no trail', () => {
    expect(redact('cb?s=k3y-abc%25 end', ['k3y-abc%'])).toBe('cb?s=[redacted] end');
  });

  it('redacts before cutting: an error summary cut through a known secret keeps none of it', () => {
    const token = 'Zr8-Kq2Wm5Xv9Tb3Nc7Yh1Lp4Fd6Gs0Aj';
    const summary = errorSummary('CODE_BUG', `${'a'.repeat(280)} ${token}`, [token], 300);
    expect(summary).not.toContain(token.slice(0, 10));
  });

  it('keeps values the caller vouches for (our spreadsheet link) while still removing secrets', () => {
    const text = `row 4: ${SPREADSHEET_URL}#gid=0&range=A4 key=${API_KEY}`;
    expect(redact(text, [], [SPREADSHEET_URL])).toBe(`row 4: ${SPREADSHEET_URL}#gid=0&range=A4 key=[redacted]`);
    expect(redact(text)).not.toContain('1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF');
  });

  it('never keeps a vouched value that contains a known secret', () => {
    expect(redact(`see https://x.test/${WEBHOOK_TOKEN}`, [WEBHOOK_TOKEN], [`https://x.test/${WEBHOOK_TOKEN}`])).toBe('see https://x.test/[redacted]');
  });
});

describe('errorSummary', () => {
  it('is one redacted line starting with the code, cut to the limit', () => {
    const summary = errorSummary('GEMINI_KEY_INVALID', `HTTP 403\n key=${API_KEY}\n${'x'.repeat(400)}`);
    expect(summary.startsWith('GEMINI_KEY_INVALID: HTTP 403 key=[redacted]')).toBe(true);
    expect(summary).not.toContain('\n');
    expect(summary.length).toBeLessThanOrEqual(300);
  });
});

describe('redact, rule by rule', () => {
  it.each<[string, string, string]>([
    ['an Authorization header keeps its scheme', 'Authorization: Bearer abcdef123456', 'Authorization: Bearer [redacted]'],
    ['an x-goog-api-key header', 'x-goog-api-key: abc123', 'x-goog-api-key: [redacted]'],
    ['a bearer token in prose', 'sent with bearer abc123def456 today', 'sent with bearer [redacted] today'],
  ])('%s', (_name, text, redacted) => {
    expect(redact(text)).toBe(redacted);
  });

  it('an opaque run with a 24-character stretch between slashes is a secret; 23 is a path', () => {
    expect(redact('id aB3dE5gH7jK9mN1pQ3sT5vW7/xY9zA1b2 end')).toBe('id [redacted] end');
    expect(redact('id aB3dE5gH7jK9mN1pQ3sT5vW/xY9zA1b2c end')).toBe('id aB3dE5gH7jK9mN1pQ3sT5vW/xY9zA1b2c end');
  });

  it('a separator every 12 characters still reads as a secret; one more reads as words', () => {
    expect(redact('x aB3dE5gH7jK9-mN1pQ3sT5vW7xY-9zA1b2-c x')).toBe('x [redacted] x');
    expect(redact('x aB3dE5gH7jK9-mN1pQ3sT5vW7xY-9zA1b-2-c x')).toBe('x aB3dE5gH7jK9-mN1pQ3sT5vW7xY-9zA1b-2-c x');
  });

  it('a short known secret is matched as text, not as a pattern, everywhere it stands alone', () => {
    expect(redact('a.b and axb, then a.b', ['a.b'])).toBe('[redacted] and axb, then [redacted]');
  });
});

describe('redact, what is kept and what is not a secret', () => {
  it('a run of digits and + without a letter stays, and so do capitals and digits under 40 characters', () => {
    expect(redact('n 1234567890+1234567890+1234567890+1234567890 n')).toBe('n 1234567890+1234567890+1234567890+1234567890 n');
    expect(redact('n ABCDEFGHIJ1234567890ABCDEFGHIJ12 n')).toBe('n ABCDEFGHIJ1234567890ABCDEFGHIJ12 n');
  });

  it('an empty kept value keeps nothing and hides nothing', () => {
    expect(redact('key AIzaSyD3m0Key_0123456789abcdefghijklmn', [], [''])).toBe('key [redacted]');
  });

  it('more than ten kept values all come back', () => {
    const keep = Array.from({ length: 12 }, (_, i) => `https://docs.google.com/spreadsheets/d/${'s'.repeat(30)}${i}x/edit`);
    expect(redact(keep.join(' '), [], keep)).toBe(keep.join(' '));
  });
});
