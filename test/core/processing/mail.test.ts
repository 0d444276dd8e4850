// Mail rendering from Config templates: placeholders, escaping, subject and footer, recipients, mail error classes.
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../src/core/domain/failures/errors';
import { answerValuesByRef } from '../../../src/core/domain/typeform/template-answers';
import { recipientProblem } from '../../../src/core/domain/mail/mail-addresses';
import { buildMail, classifyMailError, recipientCount, type MailBuild } from '../../../src/core/processing/mail';
import { newMailRef } from '../../../src/core/processing/mail-ref';
import { DEFAULT_BODY, DEFAULT_PROMPT, DEFAULT_SUBJECT, placeholdersIn } from '../../../src/core/domain/mail/templates';
import type { FormConfig } from '../../../src/core/domain/sheet-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { fixedRandom, formConfig, pendingRow, typeformFixture } from '../memory-ports';

const essay = answerValuesByRef(typeformFixture('essay-submission'));
const readyRow = (patch: Partial<QueueRow> = {}) =>
  pendingRow({ status: 'READY', result: 'Dear Mina,\nwell done.', mailRef: 'FQ-7K2M9Q', ...patch });

function mailOf(config: Partial<FormConfig> = {}, row: Partial<QueueRow> = {}, answers = essay) {
  const built: MailBuild = buildMail({ row: readyRow(row), config: formConfig(config), answers });
  if (built.kind !== 'mail') throw new Error(`expected a mail, got ${built.reason}`);
  return built.mail;
}

function thrownBy(action: () => unknown): { code: string | undefined; message: string } {
  try {
    action();
  } catch (error) {
    return { code: codeOf(error), message: (error as Error).message };
  }
  throw new Error('expected an error');
}

describe('answerValuesByRef', () => {
  it('reads each answer by field ref from its type key: text, email, choice label, choices joined, number, boolean, date', () => {
    expect(essay).toMatchObject({
      name: 'Mina Okafor',
      email: 'mina.okafor@example.com',
      course: 'Technical writing',
      goals: 'Structure, Clarity',
      confidence: '6',
      consent: 'Yes',
      due: '2026-11-21',
      cohort: '2026-autumn',
    });
  });

  it('a payment answer reads as staff see it in the submission, and a defined but unanswered field is blank rather than unknown', () => {
    const payload = JSON.stringify({
      event_id: 'e1',
      event_type: 'form_response',
      form_response: {
        definition: { fields: [{ ref: 'fee' }, { ref: 'phone' }] },
        answers: [{ type: 'payment', payment: { amount: '49.00', last4: '4242' }, field: { ref: 'fee' } }],
      },
    });
    expect(answerValuesByRef(payload)).toEqual({ fee: '49.00, card ending 4242', phone: '' });
  });

  it('a payload that is not Typeform JSON gives null', () => {
    expect(answerValuesByRef('Payloads!evt-1')).toBeNull();
  });
});

describe('buildMail', () => {
  it('renders {{field_ref}}, {{answers}}, {{result}} and {{mail_ref}} into subject and body', () => {
    const mail = mailOf({ subject: 'Feedback for {{name}} ({{mail_ref}})', body: 'Hi {{name}},\n{{result}}\n\nYou sent:\n{{answers}}' });
    expect(mail.subject).toBe('Feedback for Mina Okafor (FQ-7K2M9Q)');
    expect(mail.body).toBe(`Hi Mina Okafor,\nDear Mina,\nwell done.\n\nYou sent:\n${readyRow().submission}\n\n--\nReference: FQ-7K2M9Q`);
    expect(mail.to).toBe('mina.okafor@example.com');
  });

  it('puts the mail_ref in the footer of both bodies even when the template does not use it', () => {
    const mail = mailOf({ body: '{{result}}' });
    expect(mail.body.endsWith('Reference: FQ-7K2M9Q')).toBe(true);
    expect(mail.htmlBody).toMatch(/Reference: FQ-7K2M9Q<\/p>$/);
  });

  it('escapes everything from the respondent and the model in HTML: <script> and =HYPERLINK(…) arrive as text', () => {
    const answers = { ...essay, name: '<script>alert(1)</script>' };
    const mail = mailOf({ body: 'Hi {{name}},\n{{result}}' }, { result: '=HYPERLINK("http://evil.example","click") & <b>' }, answers);
    expect(mail.htmlBody).toContain('Hi &lt;script&gt;alert(1)&lt;/script&gt;,<p>');
    expect(mail.htmlBody).toContain('=HYPERLINK(&quot;http://evil.example&quot;,&quot;click&quot;) &amp; &lt;b&gt;');
    expect(mail.htmlBody).not.toMatch(/<script|<b>/);
    expect(mail.body).toContain('Hi <script>alert(1)</script>,');
  });

  it("mails a Markdown reply as HTML and as readable plain text: never ** or ### in the respondent's inbox", () => {
    const result = '### Feedback\n\nDear Mina, your essay is **clear**.\n\n* Tighten the _intro_\n* Cite [the RFC](https://example.com/rfc)\n\n1. Rewrite\n2. Resubmit';
    const mail = mailOf({ body: '{{result}}\n\nThe team' }, { result });
    expect(mail.htmlBody).toContain('<h3>Feedback</h3>');
    expect(mail.htmlBody).toContain('<strong>clear</strong>');
    expect(mail.htmlBody).toContain('<li>Cite <a href="https://example.com/rfc">the RFC</a></li>');
    expect(mail.htmlBody).toContain('</ol>\nThe team</div>');
    expect(mail.body).toBe(
      'Feedback\n\nDear Mina, your essay is clear.\n\n- Tighten the intro\n- Cite the RFC (https://example.com/rfc)\n\n1. Rewrite\n2. Resubmit\n\nThe team\n\n--\nReference: FQ-7K2M9Q',
    );
    expect(mail.body).not.toMatch(/\*\*|###|_intro_/);
  });

  it('a reply with raw HTML or a javascript: link never becomes markup or a live link', () => {
    const mail = mailOf({}, { result: '<img src=x onerror=alert(1)> [click](javascript:alert(2)) <a href="https://evil.example">x</a>' });
    expect(mail.htmlBody).not.toMatch(/<img|<a |href="javascript/);
    expect(mail.htmlBody).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('a subject loses control and invisible characters (NUL, ESC, NEL, DEL, zero-width, bidi overrides)', () => {
    expect(mailOf({ subject: 'Re\u0000: your\u001b[31m essay\u0085Bcc: x@example.com\u007f \u200bdone\u202e' }).subject).toBe('Re: your[31m essay Bcc: x@example.com done');
  });

  it('keeps the subject on one line, trimmed and capped at 200 characters', () => {
    expect(mailOf({ subject: '  Re:\r\n {{name}}\n\tBcc: x@example.com ' }).subject).toBe('Re: Mina Okafor Bcc: x@example.com');
    const long = mailOf({ subject: 'x'.repeat(500) }).subject;
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });

  it('an unknown placeholder is a TEMPLATE_INVALID error naming it and the form, never a silent blank', () => {
    const error = thrownBy(() => mailOf({ body: 'Hi {{first_name}}, {{result}}' }));
    expect(error.code).toBe('TEMPLATE_INVALID');
    expect(error.message).toContain('Config for form "Wr1tE5sy": the body template uses {{first_name}}');
  });

  it("a placeholder this submission left empty is never mailed blank: TEMPLATE_INVALID naming it, the row waits", () => {
    const answers = { ...essay, name: '' };
    for (const config of [{ body: 'Dear {{name}},\n{{result}}' }, { subject: 'For {{name}}' }]) {
      const error = thrownBy(() => mailOf(config, {}, answers));
      expect(error.code).toBe('TEMPLATE_INVALID');
      expect(error.message).toMatch(/uses \{\{name\}\}, which this submission left empty; a blank is never mailed, so the row waits/);
    }
  });

  it("Typeform's example payload (answers with only field.id) fills ref, id, hidden, variable and score placeholders", () => {
    const values = answerValuesByRef(typeformFixture('example-payload'));
    const mail = mailOf(
      { subject: '{{readable_ref_short_text}} ({{hidden.user_id}})', body: 'Dear {{JwWggjAKtOkA}}, score {{score}} / {{variables.score}} ({{variables.name}})\n{{result}}' },
      { recipient: 'laura@example.com' },
      values,
    );
    expect(mail.subject).toBe('Laura (abc123456)');
    expect(mail.body.startsWith('Dear Laura, score 9 / 4 (typeform)\n')).toBe(true);
  });

  it('field refs are unknown when the payload could not be read, and the error says so', () => {
    const error = thrownBy(() => mailOf({ subject: 'For {{name}}' }, {}, null));
    expect(error.message).toMatch(/subject template uses \{\{name\}\}.*payload could not be read/);
  });

  it('uses reply-to, bcc and sender name from Config', () => {
    const mail = mailOf({ replyTo: 'tutors@school.example', bcc: 'archive@school.example', senderName: 'Writing School' });
    expect(mail).toMatchObject({ replyTo: 'tutors@school.example', bcc: 'archive@school.example', name: 'Writing School' });
  });

  it('an invalid reply-to in Config is a CONFIG_INVALID error, not the row failing', () => {
    expect(thrownBy(() => mailOf({ replyTo: 'tutors at school' })).code).toBe('CONFIG_INVALID');
  });

  it.each([
    ['', 'no email address in the submission'],
    ['   ', 'no email address in the submission'],
    ['mina.example.com', 'not a valid email address: mina.example.com'],
    ['a@b.example, c@d.example', 'not a valid email address: a@b.example, c@d.example'],
    ['mina\u200b@example.com', 'the address contains an invisible or control character (U+200B), so it is not mailed: mina@example.com'],
    ['mina@exa\u0085mple.com', 'the address contains an invisible or control character (U+0085), so it is not mailed: mina@example.com'],
    ['mina@example.com\u0000', 'the address contains an invisible or control character (U+0000), so it is not mailed: mina@example.com'],
    ['\u202emoc.elpmaxe@anim', 'the address contains an invisible or control character (U+202E), so it is not mailed: moc.elpmaxe@anim'],
  ])('a recipient "%s" is a permanent failure: %s', (recipient, reason) => {
    expect(recipientProblem(recipient)).toBe(reason);
    expect(buildMail({ row: readyRow({ recipient }), config: formConfig(), answers: essay })).toEqual({ kind: 'permanent', reason });
  });

  it('the default templates render for any form: they use only built-in placeholders', () => {
    for (const template of [DEFAULT_PROMPT, DEFAULT_SUBJECT, DEFAULT_BODY]) {
      expect(placeholdersIn(template).every((name) => ['answers', 'result', 'mail_ref'].includes(name))).toBe(true);
    }
    const mail = mailOf({}, {}, {});
    expect(mail.subject).toBe('Our reply to your submission (FQ-7K2M9Q)');
    expect(mail.body.startsWith('Dear Mina,\nwell done.')).toBe(true);
  });
});

describe('classifyMailError', () => {
  it.each([
    ['Service invoked too many times for one day: email.', 'quota'],
    ['Exception: Service invoked too many times for one day: email.', 'quota'],
    ['Invalid email: mina@', 'permanent'],
    ['Limit Exceeded: Email Body Size.', 'permanent'],
    ['Argument too large: subject', 'permanent'],
    ['Error sending email to mina@example.com. Please try again later.', 'unknown'],
    ['Exceeded maximum execution time', 'unknown'],
  ])('"%s" is %s', (message, kind) => {
    expect(classifyMailError(message)).toBe(kind);
  });
});

describe('newMailRef', () => {
  it('is FQ- and six Crockford base32 characters, drawn again when taken', () => {
    expect(newMailRef(fixedRandom(0, 0.5, 0.99, 0.1, 0.2, 0.3))).toBe('FQ-0GZ369');
    expect(newMailRef(fixedRandom(0, 0, 0, 0, 0, 0, 0.5), new Set(['FQ-000000']))).toMatch(/^FQ-[0-9A-HJKMNP-TV-Z]{6}$/);
    expect(newMailRef(fixedRandom(0, 0, 0, 0, 0, 0, 0.5), new Set(['FQ-000000']))).not.toBe('FQ-000000');
  });

  it.each<[string, number[], string[], string]>([
    ['a free first draw is given as drawn', [0, 0, 0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [], 'FQ-000000'],
    ['a free draw is given even when the next one would be taken', [0, 0, 0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], ['FQ-GGGGGG'], 'FQ-000000'],
    ['a taken draw is drawn again', [0, 0, 0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], ['FQ-000000'], 'FQ-GGGGGG'],
    ['a Random at the ends of its range still gives Crockford letters', [0, 0.999999, 1, 0, 0.999999, 1], [], 'FQ-0ZZ0ZZ'],
    ['a Random that repeats one taken reference cannot hold the run: the reference is given anyway', [0.5], ['FQ-GGGGGG'], 'FQ-GGGGGG'],
  ])('%s', (_name, draws, taken, ref) => {
    expect(newMailRef(fixedRandom(...draws), new Set(taken))).toBe(ref);
  });

  it('draws a taken reference again at most 20 times in all (six numbers a draw), then gives it anyway', () => {
    let numbers = 0;
    const stuck = { next: () => (numbers++, 0.5) };
    expect(newMailRef(stuck, new Set(['FQ-GGGGGG']))).toBe('FQ-GGGGGG');
    expect(numbers).toBe(20 * 6);
  });
});

describe('buildMail, part by part', () => {
  const STYLE = '<div style="font-family:sans-serif;font-size:14px;line-height:1.5">';
  const FOOTER = '<p style="margin-top:24px;padding-top:8px;border-top:1px solid #ddd;color:#777;font-size:12px">Reference: FQ-7K2M9Q</p>';

  it('a bad reply_to or bcc names every bad address, the column and the form', () => {
    expect(thrownBy(() => mailOf({ replyTo: 'ok@x.example; tutors at school' }))).toEqual({
      code: 'CONFIG_INVALID',
      message: 'Config for form "Wr1tE5sy": reply_to "tutors, at, school" is not a valid email address',
    });
    expect(thrownBy(() => mailOf({ bcc: 'archive' })).message).toBe('Config for form "Wr1tE5sy": bcc "archive" is not a valid email address');
  });

  it('several reply-to and bcc addresses, split on commas, semicolons and spaces, are joined by commas; each bcc counts', () => {
    const mail = mailOf({ replyTo: 'a@x.example, b@x.example;c@x.example', bcc: ' d@x.example  e@x.example ' });
    expect(mail).toMatchObject({ replyTo: 'a@x.example,b@x.example,c@x.example', bcc: 'd@x.example,e@x.example' });
    expect(recipientCount(mail)).toBe(3);
    expect(recipientCount(mailOf())).toBe(1);
  });

  it('without reply-to, bcc or sender name the mail has none of them; a blank sender name is none', () => {
    expect(Object.keys(mailOf({ senderName: '   ' })).sort()).toEqual(['body', 'htmlBody', 'subject', 'to']);
    expect(mailOf({ senderName: ' Writing\nSchool ' }).name).toBe('Writing School');
  });

  it('a subject or body of spaces uses the default; a subject that renders empty falls back to the default', () => {
    const mail = mailOf({ subject: '   ', body: ' \n ' });
    expect(mail.subject).toBe('Our reply to your submission (FQ-7K2M9Q)');
    expect(mail.body).toBe('Dear Mina,\nwell done.\n\nIf anything is unclear, simply reply to this email and a person will read it.\n\n--\nReference: FQ-7K2M9Q');
    expect(mailOf({ subject: '{{mail_ref}}' }, { mailRef: '' }).subject).toBe('Our reply to your submission ()');
  });

  it('a subject of exactly 200 characters stays; longer is cut to 199, its trailing space dropped, and an ellipsis', () => {
    expect(mailOf({ subject: 'x'.repeat(200) }).subject).toBe('x'.repeat(200));
    expect(mailOf({ subject: `${'x'.repeat(198)} ${'y'.repeat(10)}` }).subject).toBe(`${'x'.repeat(198)}…`);
    expect(mailOf({ subject: `  ${'x'.repeat(201)}` }).subject).toBe(`${'x'.repeat(199)}…`);
  });

  it('a vertical tab or form feed in a subject is a space', () => {
    expect(mailOf({ subject: 'a\vb\fc' }).subject).toBe('a b c');
  });

  it('the recipient is trimmed, and an address with spaces around it is valid', () => {
    expect(mailOf({}, { recipient: '  mina@example.com ' }).to).toBe('mina@example.com');
  });

  it('only {{result}} is read as Markdown: an answer keeps its marks in the plain body', () => {
    const mail = mailOf({ body: 'Dear {{name}}: {{result}}' }, { result: '**well** done' }, { ...essay, name: '**Mina**' });
    expect(mail.body).toBe('Dear **Mina**: well done\n\n--\nReference: FQ-7K2M9Q');
  });

  it('template line breaks right beside a rendered block add no empty lines', () => {
    expect(mailOf({ body: '{{result}}\n\nBye' }, { result: 'para one\n\npara two' }).htmlBody).toBe(`${STYLE}<p>para one</p>\n<p>para two</p>\nBye</div>${FOOTER}`);
    expect(mailOf({ body: 'Top\n{{result}}' }, { result: '# Head' }).htmlBody).toBe(`${STYLE}Top<h1>Head</h1></div>${FOOTER}`);
  });

  it('every place the template\'s line breaks meet a rendered block is tidied, not only the first', () => {
    const html = mailOf({ body: 'Dear Mina,\n\n{{result}}\n\nP.S.\n\n{{result}}\n\nBye' }, { result: 'para' }).htmlBody;
    expect(html.match(/<p>para<\/p>/g)).toHaveLength(2);
    expect(html).not.toMatch(/<\/p>\n?<br>|<br>\n?<p>/);
  });

  it('with the payload read, an unknown name does not blame the payload', () => {
    expect(thrownBy(() => mailOf({ subject: 'For {{nobody}}' })).message).not.toContain('payload could not be read');
  });
});

