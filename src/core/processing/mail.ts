// The reply mail rendered from Config templates (plain text + escaped HTML), recipient checks, mail error classes.
import { codedError } from '../domain/failures/errors';
import type { OutgoingMail } from '../domain/ports';
import type { FormConfig } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { submissionText } from '../domain/gemini/gemini';
import { replyHtml, replyPlainText } from './reply-format';
import { INVISIBLE_ALL, isEmailAddress, recipientProblem } from '../domain/mail/mail-addresses';
import { DEFAULT_BODY, DEFAULT_SUBJECT, escapeHtml, renderTemplate, textToHtml, type TemplateContext } from '../domain/mail/templates';

export const MAX_SUBJECT_CHARS = 200;

function configAddresses(formId: string, column: 'reply_to' | 'bcc', value: string): string[] {
  // Split on whitespace too, so no address keeps any: only the empty items at either end are dropped.
  const addresses = value.split(/[,;\s]+/).filter((address) => address !== '');
  const bad = addresses.filter((address) => !isEmailAddress(address));
  if (bad.length > 0) {
    // A Config mistake must not burn rows one by one as "invalid email": it stops sending for this form instead.
    throw codedError('CONFIG_INVALID', `Config for form "${formId}": ${column} "${bad.join(', ')}" is not a valid email address`);
  }
  return addresses;
}

/**
 * Single line, trimmed, capped: a newline in a subject is a header injection or a MailApp error, and control
 * characters (NUL, ESC, NEL…) or invisible ones have no place in it either.
 */
export function cleanSubject(subject: string): string {
  const line = subject
    .replace(/[\r\n\t\v\f\u0085\u2028\u2029]+/g, ' ')
    .replace(INVISIBLE_ALL, '')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > MAX_SUBJECT_CHARS ? `${line.slice(0, MAX_SUBJECT_CHARS - 1).trimEnd()}…` : line;
}

export function plainFooter(mailRef: string): string {
  return `\n\n--\nReference: ${mailRef}`;
}

export function htmlFooter(mailRef: string): string {
  return `<p style="margin-top:24px;padding-top:8px;border-top:1px solid #ddd;color:#777;font-size:12px">Reference: ${escapeHtml(mailRef)}</p>`;
}

const BLOCK = '(?:p|ul|ol|h[1-6]|pre|blockquote|table|hr)';

/** Line breaks of the template right beside a rendered block (a paragraph, a list) only add empty lines. */
function tidyBlockBreaks(html: string): string {
  return html
    .replace(new RegExp(`(</${BLOCK}>|<hr>)\\n?(?:<br>\\n?)+`, 'g'), '$1\n')
    .replace(new RegExp(`(?:<br>\\n?)+(<${BLOCK}[ >])`, 'g'), '$1');
}

export interface MailInput {
  row: QueueRow;
  config: FormConfig;
  /** Field ref → answer text (answerValuesByRef of the row's payload); null when it could not be read. */
  answers: Readonly<Record<string, string>> | null;
}

export type MailBuild = { kind: 'mail'; mail: OutgoingMail } | { kind: 'permanent'; reason: string };

/**
 * The mail for a row: the result as the row holds it now (staff may have edited it), the recipient checked.
 * A recipient that cannot be mailed is a permanent outcome; a template or Config mistake throws
 * TEMPLATE_INVALID / CONFIG_INVALID, because the row itself is fine and should wait for the fix.
 */
export function buildMail(input: MailInput): MailBuild {
  const { row, config } = input;
  const problem = recipientProblem(row.recipient);
  if (problem) return { kind: 'permanent', reason: problem };
  const values: Record<string, string> = {
    ...(input.answers ?? {}),
    answers: submissionText(row, input.answers),
    result: row.result,
    mail_ref: row.mailRef,
  };
  const note = input.answers === null ? "the row's payload could not be read, so no field refs are available" : undefined;
  // {{mail_ref}} is the one value allowed blank here: the send step gives the row its ref when it claims it.
  const refuseBlank = (name: string) => name !== 'mail_ref';
  const context = (template: TemplateContext['template']): TemplateContext => ({ formId: row.formId, template, note, refuseBlank });
  const bodyTemplate = config.body.trim() === '' ? DEFAULT_BODY : config.body;
  // A blank subject template renders blank, and a subject that renders blank gets the default (below).
  const subject = cleanSubject(renderTemplate(config.subject, values, context('subject')));
  // {{result}} is Markdown as models write it: rendered for HTML, reduced to readable text for the plain body.
  const text = renderTemplate(bodyTemplate, values, context('body'), {
    value: (value, name) => (name === 'result' ? replyPlainText(value) : value),
  });
  // Everything else is escaped, template included: Config templates are plain text, and the Markdown renderer
  // has raw HTML off, so nothing from the respondent or the model can ever become markup of its own.
  const html = tidyBlockBreaks(
    renderTemplate(bodyTemplate, values, context('body'), {
      value: (value, name) => (name === 'result' ? replyHtml(value) : textToHtml(value)),
      literal: textToHtml,
    }),
  );
  const htmlBody = `<div style="font-family:sans-serif;font-size:14px;line-height:1.5">${html}</div>${htmlFooter(row.mailRef)}`;
  const mail: OutgoingMail = {
    to: row.recipient.trim(),
    subject: subject === '' ? cleanSubject(renderTemplate(DEFAULT_SUBJECT, values, context('subject'))) : subject,
    body: `${text}${plainFooter(row.mailRef)}`,
    htmlBody,
  };
  const replyTo = configAddresses(row.formId, 'reply_to', config.replyTo);
  const bcc = configAddresses(row.formId, 'bcc', config.bcc);
  if (replyTo.length > 0) mail.replyTo = replyTo.join(',');
  if (bcc.length > 0) mail.bcc = bcc.join(',');
  if (config.senderName.trim() !== '') mail.name = cleanSubject(config.senderName);
  return { kind: 'mail', mail };
}

/** Recipients one send uses from the daily quota (MailApp counts bcc too). */
export function recipientCount(mail: OutgoingMail): number {
  return 1 + (mail.bcc ? mail.bcc.split(',').length : 0);
}

export type MailErrorClass = 'quota' | 'permanent' | 'unknown';

const PERMANENT_MAIL_ERRORS: readonly RegExp[] = [/Invalid email/i, /Limit Exceeded: Email Body Size/i, /Argument too large/i];

/**
 * quota: nothing left today, nothing was sent. permanent: refused before anything left. unknown: anything else,
 * which may have reached the person, so it is never resent automatically.
 */
export function classifyMailError(message: string): MailErrorClass {
  if (/Service invoked too many times for one day: email/i.test(message)) return 'quota';
  if (PERMANENT_MAIL_ERRORS.some((pattern) => pattern.test(message))) return 'permanent';
  return 'unknown';
}
