// A Script Property typed into the menu's prompt as KEY=VALUE: what is accepted, what is refused and the words of each refusal.
import { describe, expect, it } from 'vitest';
import { parseSettingAssignment } from '../../../../src/core/domain/config/setting-assignment';

describe('parseSettingAssignment (the menu prompt)', () => {
  it.each([
    ['a known key', 'STAFF_EMAILS = desk@example.com', { ok: true, key: 'STAFF_EMAILS', value: 'desk@example.com' }],
    ['a lower-case key', 'gemini_model=gemini-3.5-flash', { ok: true, key: 'GEMINI_MODEL', value: 'gemini-3.5-flash' }],
    ['an empty value (remove)', 'WEBHOOK_TOKEN_PREVIOUS=', { ok: true, key: 'WEBHOOK_TOKEN_PREVIOUS', value: '' }],
    ['a value containing =', 'GEMINI_API_KEY=abc=def', { ok: true, key: 'GEMINI_API_KEY', value: 'abc=def' }],
    ['a WEBHOOK_TOKEN of 32 random characters', 'WEBHOOK_TOKEN=Wk7-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca', { ok: true, key: 'WEBHOOK_TOKEN', value: 'Wk7-9fQ2xLp4Rz8Tn1Vb6Hs3Jd5Gm0Ca' }],
    ['a setting while another one is bad', 'STAFF_EMAILS=a@b.example', { ok: true, key: 'STAFF_EMAILS', value: 'a@b.example' }],
  ])('accepts %s', (_name, text, expected) => {
    expect(parseSettingAssignment(text, { HEALTH_TOKEN: 'weak' })).toEqual(expected);
  });

  it.each([
    ['no equals sign', 'STAFF_EMAILS', /Type NAME=VALUE/],
    ['an unknown key', 'SPREADSHEET=abc', /SPREADSHEET is not a property formqueue reads/],
    ['a knob out of range', 'GEMINI_CONCURRENCY=99', /GEMINI_CONCURRENCY must be a whole number from 1 to 20/],
    ['a WEBHOOK_TOKEN under 32 characters', 'WEBHOOK_TOKEN=letmein123', /^WEBHOOK_TOKEN is 10 characters long; it must be at least 32 random characters\. .*Set up \/ repair, which generates one/],
    ['a HEALTH_TOKEN under 32 characters', 'HEALTH_TOKEN=ping', /^HEALTH_TOKEN is 4 characters long/],
    ['a plain-http GEMINI_BASE_URL', 'GEMINI_BASE_URL=http://gemini.example.com', /GEMINI_BASE_URL must be https:\/\//],
  ])('refuses %s, saying why', (_name, text, message) => {
    const parsed = parseSettingAssignment(text, {});
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });
});

describe('parseSettingAssignment', () => {
  it('accepts KEY=VALUE for a known key, upper-casing the key and trimming the value', () => {
    expect(parseSettingAssignment('  staff_emails = a@x.y ', {})).toEqual({ ok: true, key: 'STAFF_EMAILS', value: 'a@x.y' });
    expect(parseSettingAssignment('GEMINI_MODEL=a=b', {})).toEqual({ ok: true, key: 'GEMINI_MODEL', value: 'a=b' });
  });

  it('an empty value removes the property, even for a knob', () => {
    expect(parseSettingAssignment('MAX_ATTEMPTS=', { MAX_ATTEMPTS: '3' })).toEqual({ ok: true, key: 'MAX_ATTEMPTS', value: '' });
  });

  it.each<string>(['no equals sign', '=value', '1KEY=2', ' =x'])('refuses %j with an example of the form', (text) => {
    expect(parseSettingAssignment(text, {})).toEqual({ ok: false, message: 'Type NAME=VALUE, for example STAFF_EMAILS=desk@example.com (an empty value removes the property).' });
  });

  it('refuses a key formqueue does not read, listing the ones it does', () => {
    const answer = parseSettingAssignment('STAFF_EMAIL=a@x.y', {});
    expect(answer.ok).toBe(false);
    expect(!answer.ok && answer.message).toMatch(/^STAFF_EMAIL is not a property formqueue reads\. Known: WEBHOOK_TOKEN, .*\bSTAFF_EMAILS, .*, DAILY_SUMMARY, TYPEFORM_BASE_URL, RECONCILE_SENT_MAIL, RECONCILE_RESEND(, [A-Z_]+)*\.$/);
  });

  it('refuses a knob value out of range with the reason, without the "using" part', () => {
    expect(parseSettingAssignment('MAX_ATTEMPTS=0', {})).toEqual({ ok: false, message: 'Script Property MAX_ATTEMPTS must be a whole number from 1 to 20 (it is "0").' });
    expect(parseSettingAssignment('GEMINI_BASE_URL=ftp://x', {}).ok).toBe(false);
  });

  it('a problem with another, already set property does not refuse this one', () => {
    expect(parseSettingAssignment('MAX_ATTEMPTS=3', { GEMINI_CONCURRENCY: '99' })).toEqual({ ok: true, key: 'MAX_ATTEMPTS', value: '3' });
  });
});

describe('parseSettingAssignment with an empty value', () => {
  it.each(['WEBHOOK_TOKEN', 'HEALTH_TOKEN', 'MAX_ATTEMPTS'])('%s= removes the property: no check of the empty value', (key) => {
    expect(parseSettingAssignment(`${key}=`, {})).toEqual({ ok: true, key, value: '' });
    expect(parseSettingAssignment(`${key}=   `, {})).toEqual({ ok: true, key, value: '' });
  });
});

describe("parseSettingAssignment's refusal of a value", () => {
  it('quotes the value whole, even one holding "; using" before a line break: only the fallback formqueue names is cut', () => {
    expect(parseSettingAssignment('MAX_ATTEMPTS=x; using 9\nnow', {})).toEqual({
      ok: false,
      message: 'Script Property MAX_ATTEMPTS must be a whole number from 1 to 20 (it is "x; using 9\nnow").',
    });
  });
});
