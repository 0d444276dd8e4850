// What a reply links to and names (reply-scan.ts): its Markdown links with their labels' hosts, every host in its text, and the scripts of a host.
import { describe, expect, it } from 'vitest';
import { hostOf, linksOf, scriptsOf, textHosts, type ReplyLink } from '../../../src/core/processing/reply-scan';

describe('hostOf: the host an absolute URL leads to', () => {
  it.each<[string, string, string | null]>([
    ['a plain URL', 'https://bank.example/login?x=1#top', 'bank.example'],
    ['upper case, lowered', 'HTTPS://Bank.EXAMPLE/', 'bank.example'],
    ['blanks around the URL', '  https://bank.example/a  ', 'bank.example'],
    ['user info before the last @ is not the host', 'https://bank.example@evil.example/', 'evil.example'],
    ['user info with a password and several @', 'https://a@b:pw@evil.example:8443/x', 'evil.example'],
    ['a port', 'https://bank.example:8080/', 'bank.example'],
    ['an empty port', 'https://bank.example:/', 'bank.example'],
    ['a trailing dot (the root)', 'https://bank.example./', 'bank.example'],
    ['an IPv6 literal with a port', 'http://[2001:db8::1]:8080/', '2001:db8::1'],
    ['brackets inside a name are kept', 'https://a[b].example/', 'a[b].example'],
    ['the host ends at a query', 'https://bank.example?next=/evil', 'bank.example'],
    ['the host ends at a backslash', 'https://bank.example\\@evil.example', 'bank.example'],
    ['a scheme with digits, plus, dot and hyphen', 'svn+ssh.x-1://repo.example/', 'repo.example'],
    ['no host', 'https:///path', null],
    ['only user info', 'https://user@/path', null],
    ['no scheme', 'bank.example/login', null],
    ['mailto: has no authority', 'mailto:ann@bank.example', null],
    ['a scheme must start the URL', '1https://bank.example/', null],
    ['a URL inside text is not one', 'see https://bank.example/', null],
    ['a scheme starting with a digit', '9p://bank.example/', null],
  ])('%s: %j → %j', (_case, url, host) => {
    expect(hostOf(url)).toBe(host);
  });
});

describe('linksOf: every link and image of the rendered mail, with the hosts its label shows', () => {
  it.each<[string, string, ReplyLink[]]>([
    ['a link: scheme, target and the hosts in its label', 'See [bank.example](https://evil.example/login).', [{ scheme: 'https', target: 'evil.example', labelHosts: ['bank.example'] }]],
    ['the label is the link\'s own text only, not the text around it', 'Go to other.example or [click here](https://evil.example) then third.example', [{ scheme: 'https', target: 'evil.example', labelHosts: [] }]],
    ['a label of several tokens', '[**www.Bank.example** and *pay.example*](https://evil.example)', [{ scheme: 'https', target: 'evil.example', labelHosts: ['www.bank.example', 'www.bank.example', 'pay.example'] }]],
    ['an image: its src, and the hosts of its alt text', '![bank.example logo](https://cdn.example/logo.png)', [{ scheme: 'https', target: 'cdn.example', labelHosts: ['bank.example'] }]],
    ['a mailto: link has a scheme and no host', '[write to us](MAILTO:help@school.example)', [{ scheme: 'mailto', target: null, labelHosts: [] }]],
    ['a relative link has neither', '[the form](forms/a:b)', [{ scheme: null, target: null, labelHosts: [] }]],
    ['a link with a blank before its scheme', '[x]( https://bank.example)', [{ scheme: 'https', target: 'bank.example', labelHosts: [] }]],
    ['links in a list item and in a quote, in text order', '- [a](https://one.example)\n\n> [b](https://two.example)', [
      { scheme: 'https', target: 'one.example', labelHosts: [] },
      { scheme: 'https', target: 'two.example', labelHosts: [] },
    ]],
    ['a link and an image side by side', '[site.example](https://a.example) ![pic](https://b.example/p.png)', [
      { scheme: 'https', target: 'a.example', labelHosts: ['site.example'] },
      { scheme: 'https', target: 'b.example', labelHosts: [] },
    ]],
    ['a bare URL is no link (no linkify)', 'Visit https://bank.example today.', []],
    ['no links', 'Dear Mina, thank you.', []],
  ])('%s', (_case, text, links) => {
    expect(linksOf(text)).toEqual(links);
  });
});

describe('textHosts: every host the reply links to or names, once each', () => {
  const link = (target: string | null): ReplyLink => ({ scheme: 'https', target, labelHosts: [] });

  it('link targets first, then the hosts written in the text, each once; a link without a host adds none', () => {
    expect(textHosts('Write to https://Bank.example/x or www.school.example, see pay.example.', [link('evil.example'), link(null), link('bank.example')])).toEqual([
      'evil.example',
      'bank.example',
      'www.school.example',
      'pay.example',
    ]);
  });

  it.each<[string, string, string[]]>([
    ['a URL with a scheme', 'see ftp://files.example/a', ['files.example']],
    ['a URL whose host is empty names none', 'see https:///path only', []],
    ['a www. name, lowered (named once, though it reads as a bare name too)', 'at WWW.School.Example now', ['www.school.example']],
    ['a bare name with a generic TLD', 'evil.example and shop.COM', ['evil.example', 'shop.com']],
    ['a bare name with a two-letter country code', 'bank.de or bank.Co.Uk', ['bank.de', 'bank.co.uk']],
    ['a file name is no host (two-letter file endings, longer unknown endings)', 'see notes.md, run.py, report.docx, a.txt', []],
    ['a bare name after @ (a mail address) or inside a URL path is not one more host', 'mail ann@school.example or https://a.example/b.example', ['a.example']],
    ['no host at all', 'Dear Mina, thank you.', []],
  ])('%s', (_case, text, hosts) => {
    expect(textHosts(text, [])).toEqual(hosts);
  });
});

describe('scriptsOf: the scripts of a host\'s letters, in order of first use', () => {
  it.each<[string, string[]]>([
    ['bank.example', ['Latin']],
    ['b4nk-1.example', ['Latin']],
    ['123-45', []],
    ['bаnk.example', ['Latin', 'Cyrillic']],
    ['пример.рф', ['Cyrillic']],
    ['αβγ.example', ['Greek', 'Latin']],
    ['例え.テスト', ['Han/Kana']],
    ['한국.kr', ['Hangul', 'Latin']],
    ['ไทย.example', ['Other', 'Latin']],
    ['ไทยa', ['Other', 'Latin']],
  ])('%s → %j', (host, scripts) => {
    expect(scriptsOf(host)).toEqual(scripts);
  });
});
