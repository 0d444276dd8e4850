// The reply policy, rule by rule: what a reply may hold to be mailed without a person, and the rule named when it may not.
import { describe, expect, it } from 'vitest';
import {
  allowedDomainsOf,
  REPLY_MAX_CHARS,
  replyPolicyBreaches,
  replyPolicySummary,
  type ReplyPolicyInput,
  type ReplyPolicyRule,
} from '../../../src/core/processing/reply-policy';

const OPENING = 'Dear Mina, thank you for your essay on caching. ';
const base: ReplyPolicyInput = {
  text: '',
  recipient: 'mina@example.com',
  replyTo: 'tutors@school.example',
  allowedLinkDomains: '',
  allowPhoneNumbers: false,
};
const check = (text: string, patch: Partial<ReplyPolicyInput> = {}) => replyPolicyBreaches({ ...base, ...patch, text });
const firstRule = (text: string, patch: Partial<ReplyPolicyInput> = {}): ReplyPolicyRule | null => check(text, patch)[0]?.rule ?? null;

describe('the reply policy', () => {
  it.each<[string, string, Partial<ReplyPolicyInput>]>([
    ['a plain reply', `${OPENING}Your second paragraph is the strongest.\n\nBest regards,\nThe team`, {}],
    ['Markdown emphasis and lists', `${OPENING}**One suggestion:** keep it short.\n\n- first\n- second`, {}],
    ['a link to an allowed domain', `${OPENING}See [our guide](https://school.example/guide).`, { allowedLinkDomains: 'school.example' }],
    ['a subdomain of an allowed domain', `${OPENING}See https://help.school.example/a?b=c.`, { allowedLinkDomains: 'https://school.example/' }],
    ['a wildcard entry', `${OPENING}See www.school.example today.`, { allowedLinkDomains: '*.school.example, other.example' }],
    ["the recipient's own address", `${OPENING}We will write to Mina@Example.com again.`, {}],
    ["the form's reply_to", `${OPENING}Questions? Write to tutors@school.example.`, {}],
    ['a phone number when the form allows them', `${OPENING}Call us on +44 20 7946 0958.`, { allowPhoneNumbers: true }],
    ['a date and a time', `${OPENING}The next session is on 2026-12-02 at 14:30, or 12/03/2026.`, {}],
    ['a short number', `${OPENING}You scored 87 of 100 in round 12345.`, {}],
    ['a file name and abbreviations', `${OPENING}Open essay.pdf, e.g. with Node.js, i.e. as before.`, {}],
    ['a Japanese domain in one writing system', `${OPENING}See https://例え.テスト/.`, { allowedLinkDomains: '例え.テスト' }],
    ['German umlauts', `${OPENING}Schöne Grüße aus München, bücher.example`, { allowedLinkDomains: 'bücher.example' }],
    ['a Markdown link label that is its own target', `${OPENING}[school.example](https://school.example)`, { allowedLinkDomains: 'school.example' }],
  ])('mails %s', (_name, text, patch) => {
    expect(check(text, patch)).toEqual([]);
  });

  it.each<[string, string, Partial<ReplyPolicyInput>, ReplyPolicyRule, RegExp]>([
    ['any link when no domain is allowed', `${OPENING}Confirm at https://evil.example/login`, {}, 'LINK_DOMAIN', /link to evil\.example is not allowed \(allowed_link_domains: none\)/],
    ['a link to a domain not allowed', `${OPENING}Go to http://evil.example`, { allowedLinkDomains: 'school.example' }, 'LINK_DOMAIN', /allowed_link_domains: school\.example/],
    ['a bare domain name', `${OPENING}Visit evil.com today.`, {}, 'LINK_DOMAIN', /evil\.com/],
    ['a www. name', `${OPENING}Visit www.evil.example now`, {}, 'LINK_DOMAIN', /www\.evil\.example/],
    ['a domain that only ends like an allowed one', `${OPENING}See https://evilschool.example`, { allowedLinkDomains: 'school.example' }, 'LINK_DOMAIN', /evilschool/],
    ['user info that hides the real host', `${OPENING}See https://school.example@evil.example/x`, { allowedLinkDomains: 'school.example' }, 'LINK_DOMAIN', /evil\.example/],
    ['a link to an address by IP', `${OPENING}See http://203.0.113.9/pay`, {}, 'LINK_DOMAIN', /203\.0\.113\.9/],
    ['an image from outside', `${OPENING}![logo](https://tracker.example/p.png)`, {}, 'LINK_DOMAIN', /tracker\.example/],
    ['an angle-bracket autolink', `${OPENING}<https://evil.example>`, {}, 'LINK_DOMAIN', /evil\.example/],
    ['a reference-style link', `${OPENING}[here][1]\n\n[1]: https://evil.example`, {}, 'LINK_DOMAIN', /evil\.example/],
    ['another email address', `${OPENING}Send your password to help@evil.example.`, {}, 'EMAIL_ADDRESS', /help@evil\.example is neither/],
    ['a mailto link to another address', `${OPENING}[Write to us](mailto:desk@evil.example)`, {}, 'EMAIL_ADDRESS', /desk@evil\.example/],
    ['a phone number', `${OPENING}Call +1 (555) 010-0199 to confirm.`, {}, 'PHONE_NUMBER', /\+1 \(555\) 010-0199/],
    ['a phone number without a plus', `${OPENING}Call 020 7946 0958 today.`, {}, 'PHONE_NUMBER', /020 7946 0958/],
    ['a tel: link', `${OPENING}[call us](tel:5550100)`, {}, 'PHONE_NUMBER', /tel:/],
    ['a template placeholder', `${OPENING}Dear {{name}}, thanks.`, {}, 'PLACEHOLDER', /\{\{name\}\}/],
    ['a bracketed placeholder', `${OPENING}Best regards, [Your Name]`, {}, 'PLACEHOLDER', /\[Your Name\]/],
    ['an insert-here placeholder', `${OPENING}See [insert link here] for details.`, {}, 'PLACEHOLDER', /insert link/],
    ['lorem ipsum', `${OPENING}Lorem ipsum dolor sit amet.`, {}, 'PLACEHOLDER', /Lorem ipsum/],
    ['an HTML tag', `${OPENING}<a href="x">click</a>`, {}, 'RAW_MARKUP', /an HTML tag/],
    ['a script tag', `${OPENING}<script>alert(1)</script>`, {}, 'RAW_MARKUP', /<script>/],
    ['an HTML comment', `${OPENING}<!-- hidden -->`, {}, 'RAW_MARKUP', /comment/],
    ['an HTML entity', `${OPENING}Caf&eacute; &#169; us`, {}, 'RAW_MARKUP', /entity/],
    ['a javascript: URL', `${OPENING}[x](javascript:alert(1))`, {}, 'RAW_MARKUP', /script, data or file URL/],
    ['a zero-width space', `${OPENING}Visit our site\u200b today.`, {}, 'INVISIBLE_CHARACTER', /U\+200B/],
    ['a right-to-left override', `${OPENING}File: \u202Efdp.exe`, {}, 'INVISIBLE_CHARACTER', /U\+202E/],
    ['a zero-width joiner inside a domain', `${OPENING}school\u200d.example`, { allowedLinkDomains: 'school.example' }, 'INVISIBLE_CHARACTER', /U\+200D/],
    ['Cyrillic letters in a Latin domain', `${OPENING}Log in at https://p\u0430ypal.com now`, { allowedLinkDomains: 'paypal.com' }, 'LOOKALIKE_DOMAIN', /mixes scripts \(Latin and Cyrillic\)/],
    ['a Greek letter in a bare domain', `${OPENING}Log in at g\u03bfogle.com`, {}, 'LOOKALIKE_DOMAIN', /Latin and Greek/],
    ['a look-alike in an email domain', `${OPENING}Write to tutors@sch\u043eol.example`, {}, 'LOOKALIKE_DOMAIN', /sch.ol\.example/],
    ['a punycode domain', `${OPENING}See https://xn--pypal-4ve.com`, { allowedLinkDomains: 'xn--pypal-4ve.com' }, 'LOOKALIKE_DOMAIN', /punycode/],
    ['a link whose text shows another domain', `${OPENING}[https://school.example/login](https://evil.example/login)`, { allowedLinkDomains: 'school.example, evil.example' }, 'LINK_TEXT_MISMATCH', /shows school\.example but leads to evil\.example/],
    ['a link label naming a bare domain', `${OPENING}[school.example](https://evil.example)`, {}, 'LINK_TEXT_MISMATCH', /shows school\.example/],
    ['a reply with nothing visible', ' \n\t', {}, 'LENGTH', /0 characters, fewer than 1/],
    ['a reply too long', `${OPENING}${'word '.repeat(REPLY_MAX_CHARS / 5)}`, {}, 'LENGTH', /more than 10000/],
  ])('holds %s', (_name, text, patch, rule, detail) => {
    const [first] = check(text, patch);
    expect(first?.rule).toBe(rule);
    expect(first?.detail).toMatch(detail);
  });

  it('names the first rule broken and the others after it, in the fixed order', () => {
    const breaches = check(`${OPENING}<b>Call</b> +1 555 010 0199 or write to x@evil.example via https://evil.example`);
    expect(breaches.map((breach) => breach.rule)).toEqual(['LINK_DOMAIN', 'EMAIL_ADDRESS', 'PHONE_NUMBER', 'RAW_MARKUP']);
    expect(replyPolicySummary(breaches)).toBe(
      'LINK_DOMAIN link to evil.example is not allowed (allowed_link_domains: none) (also EMAIL_ADDRESS, PHONE_NUMBER, RAW_MARKUP); waits for a person: read it, then APPROVED mails it as it is',
    );
  });

  it('a phone number the form allows is still held when it is a look-alike domain or a link elsewhere', () => {
    expect(firstRule(`${OPENING}Call +44 20 7946 0958 or see evil.example`, { allowPhoneNumbers: true })).toBe('LINK_DOMAIN');
  });

  it('reads allowed_link_domains written as names, wildcards or URLs, separated by commas, semicolons or spaces', () => {
    expect(allowedDomainsOf(' School.example, *.help.example;https://docs.example/guide  news.example. ')).toEqual([
      'school.example',
      'help.example',
      'docs.example',
      'news.example',
    ]);
    expect(allowedDomainsOf('')).toEqual([]);
  });

  it('drops allowed_link_domains entries that name no host: a bare scheme, a lone dot, a path', () => {
    expect(allowedDomainsOf('school.example https:// . /guide')).toEqual(['school.example']);
  });

  it('removes a wildcard only at the start of an allowed_link_domains entry', () => {
    expect(allowedDomainsOf('help.*.example')).toEqual(['help.*.example']);
  });

  it('reads an allowed_link_domains entry as a URL only when it starts with a scheme, else by its name before the first slash', () => {
    expect(allowedDomainsOf('school.example/go?to=https://docs.example')).toEqual(['school.example']);
  });

  it('names an invisible character by its code point in at least four hex digits', () => {
    expect(check(`${OPENING}Thanks\u00ad for writing.`)).toEqual([
      { rule: 'INVISIBLE_CHARACTER', detail: 'an invisible or control character (U+00AD) is in the reply' },
    ]);
  });

  it('a link label showing the www. name of its own target is not a mismatch', () => {
    expect(check(`${OPENING}See [www.school.example](https://school.example/guide).`, { allowedLinkDomains: 'school.example' })).toEqual([]);
  });

  it('a link label showing a host with www. in its middle is compared as written, so a target without it is a mismatch', () => {
    expect(check(`${OPENING}See [news.www.example](https://news.example).`, { allowedLinkDomains: 'news.example, news.www.example' })).toEqual([
      { rule: 'LINK_TEXT_MISMATCH', detail: 'a link shows news.www.example but leads to news.example' },
    ]);
  });

  it('a mailto: link whose label shows a domain leads to no host and is not a mismatch', () => {
    expect(check(`${OPENING}Write to [school.example](mailto:tutors@school.example).`, { allowedLinkDomains: 'school.example' })).toEqual([]);
  });

  it('a link with a scheme other than http, https, mailto or tel is held even when its domain is allowed', () => {
    expect(check(`${OPENING}Download it from [our server](ftp://school.example/essay.pdf).`, { allowedLinkDomains: 'school.example' })).toEqual([
      { rule: 'LINK_DOMAIN', detail: 'a ftp: link is not allowed' },
    ]);
  });

  it('http and https links to an allowed domain and a relative link are mailed', () => {
    const text = `${OPENING}See [the guide](http://school.example/guide), [the notes](https://school.example/notes) and [the index](/index).`;
    expect(check(text, { allowedLinkDomains: 'school.example' })).toEqual([]);
  });

  it('a link outside several allowed domains lists them all, comma-separated', () => {
    expect(check(`${OPENING}Go to https://evil.example`, { allowedLinkDomains: 'school.example; other.example' })).toEqual([
      { rule: 'LINK_DOMAIN', detail: 'link to evil.example is not allowed (allowed_link_domains: school.example, other.example)' },
    ]);
  });

  it.each<[string, string, ReturnType<typeof check>]>([
    ['six digits is too short for a phone number', 'Your code is 123 456.', []],
    ['seven digits is a phone number', 'Call 555 0199 today.', [{ rule: 'PHONE_NUMBER', detail: 'the phone number 555 0199 is in the reply (allow_phone_numbers is off)' }]],
    [
      'fifteen digits is a phone number',
      'Call +49 30 1234 5678 901 today.',
      [{ rule: 'PHONE_NUMBER', detail: 'the phone number +49 30 1234 5678 901 is in the reply (allow_phone_numbers is off)' }],
    ],
    ['sixteen digits is too long for a phone number', 'Your reference is 1234 5678 9012 3456.', []],
  ])('a run of %s', (_name, text, breaches) => {
    expect(check(`${OPENING}${text}`)).toEqual(breaches);
  });

  it('quotes at most the first 40 characters of raw markup or a leftover placeholder', () => {
    expect(check(`${OPENING}<span style="color: red; font-weight: bold">Note</span> this.`)).toEqual([
      { rule: 'RAW_MARKUP', detail: 'an HTML tag is in the reply: <span style="color: red; font-weight: bo' },
    ]);
    expect(check(`${OPENING}Dear {{recipient_first_name_or_preferred_name}}, thanks.`)).toEqual([
      { rule: 'PLACEHOLDER', detail: 'a leftover placeholder is in the reply: {{recipient_first_name_or_preferred_name' },
    ]);
  });

  it('a reply of exactly REPLY_MAX_CHARS visible characters is mailed', () => {
    const text = `${OPENING}${'a'.repeat(REPLY_MAX_CHARS - OPENING.length)}`;
    expect(text.length).toBe(REPLY_MAX_CHARS);
    expect(check(text)).toEqual([]);
  });

  it('an address whose name is in another script than its domain is not a look-alike domain', () => {
    expect(check(`${OPENING}We will write to иван@school.example again.`, { recipient: 'иван@school.example' })).toEqual([]);
  });
});
