// A triage mail's parts rendered as plain text and as escaped HTML, every piece redacted before it is escaped.
import { describe, expect, it } from 'vitest';
import { redactSubject, renderMail, type MailPart } from '../../../src/core/triage/mail-text';

const SECRET = 'sekret-token-123';
const NONE = { knownSecrets: [], keep: [] };

describe('renderMail', () => {
  it('renders each kind of part in plain text and in HTML', () => {
    const parts: MailPart[] = [
      { kind: 'field', label: 'What', text: 'Sheets <down>' },
      { kind: 'link', text: 'Row 5', href: 'https://example.com/s?a=1&b=2' },
      { kind: 'heading', text: 'Next' },
      { kind: 'pre', text: 'at f (x:1)' },
      { kind: 'line', text: 'Fix "it"' },
    ];
    expect(renderMail(parts, NONE)).toEqual({
      body: 'What: Sheets <down>\n  Row 5: https://example.com/s?a=1&b=2\n\nNext\n----\nat f (x:1)\nFix "it"\n',
      htmlBody:
        '<div style="font-family:sans-serif;font-size:14px">' +
        '<p style="margin:0 0 6px"><b>What:</b> Sheets &lt;down&gt;</p>\n' +
        '<div style="margin-left:16px">Row 5: <a href="https://example.com/s?a=1&amp;b=2">https://example.com/s?a=1&amp;b=2</a></div>\n' +
        '<h3 style="margin:16px 0 6px">Next</h3>\n' +
        '<pre style="white-space:pre-wrap;font-size:12px">at f (x:1)</pre>\n' +
        '<div>Fix &quot;it&quot;</div>' +
        '</div>',
    });
  });

  it.each<[string, MailPart]>([
    ['a field', { kind: 'field', label: 'Error', text: `key ${SECRET}` }],
    ['a link text', { kind: 'link', text: `see ${SECRET}`, href: 'https://example.com/' }],
    ['a link address', { kind: 'link', text: 'see', href: `https://example.com/?k=${SECRET}` }],
    ['a heading', { kind: 'heading', text: `About ${SECRET}` }],
    ['a stack trace', { kind: 'pre', text: `Error: ${SECRET}` }],
    ['a line', { kind: 'line', text: SECRET }],
  ])('never shows a known secret in %s', (_what, part) => {
    const mail = renderMail([part], { knownSecrets: [SECRET], keep: [] });
    expect(mail.body).not.toContain(SECRET);
    expect(mail.htmlBody).not.toContain(SECRET);
    expect(mail.body).toContain('[redacted]');
  });

  it('an empty mail is one newline and an empty wrapper', () => {
    expect(renderMail([], NONE)).toEqual({ body: '\n', htmlBody: '<div style="font-family:sans-serif;font-size:14px"></div>' });
  });
});

describe('redactSubject', () => {
  it('redacts, then folds any run of whitespace to one space and trims', () => {
    expect(redactSubject(`  formqueue:\n\tkey ${SECRET}   leaked  `, { knownSecrets: [SECRET], keep: [] })).toBe('formqueue: key [redacted] leaked');
  });
});
