// A triage mail as lines, rendered once as plain text and once as escaped HTML, with every piece redacted first.
import { redact } from '../domain/failures/redact';
import { escapeHtml } from '../domain/text';

export type MailPart =
  | { kind: 'line'; text: string }
  /** A label and a value on one line: the first lines of every mail. */
  | { kind: 'field'; label: string; text: string }
  | { kind: 'link'; text: string; href: string }
  | { kind: 'heading'; text: string }
  /** Kept verbatim (a stack trace): monospace in HTML. */
  | { kind: 'pre'; text: string };

export interface RenderedMail {
  body: string;
  htmlBody: string;
}

export interface RedactionContext {
  knownSecrets: readonly string[];
  /** Values that look opaque but are ours to show (the spreadsheet URL in row links). */
  keep: readonly string[];
}

function redacted(parts: readonly MailPart[], context: RedactionContext): MailPart[] {
  const clean = (text: string) => redact(text, context.knownSecrets, context.keep);
  return parts.map((part) => {
    switch (part.kind) {
      case 'link':
        return { ...part, text: clean(part.text), href: clean(part.href) };
      default:
        return { ...part, text: clean(part.text) };
    }
  });
}

/** Redacts before escaping, so a secret is matched as written and escaping can never reveal one. */
export function renderMail(parts: readonly MailPart[], context: RedactionContext): RenderedMail {
  const clean = redacted(parts, context);
  const plain: string[] = [];
  const html: string[] = [];
  for (const part of clean) {
    switch (part.kind) {
      case 'field':
        plain.push(`${part.label}: ${part.text}`);
        html.push(`<p style="margin:0 0 6px"><b>${escapeHtml(part.label)}:</b> ${escapeHtml(part.text)}</p>`);
        break;
      case 'link':
        plain.push(`  ${part.text}: ${part.href}`);
        html.push(`<div style="margin-left:16px">${escapeHtml(part.text)}: <a href="${escapeHtml(part.href)}">${escapeHtml(part.href)}</a></div>`);
        break;
      case 'heading':
        plain.push('', part.text, '-'.repeat(part.text.length));
        html.push(`<h3 style="margin:16px 0 6px">${escapeHtml(part.text)}</h3>`);
        break;
      case 'pre':
        plain.push(part.text);
        html.push(`<pre style="white-space:pre-wrap;font-size:12px">${escapeHtml(part.text)}</pre>`);
        break;
      case 'line':
        plain.push(part.text);
        html.push(`<div>${escapeHtml(part.text)}</div>`);
    }
  }
  return { body: `${plain.join('\n')}\n`, htmlBody: `<div style="font-family:sans-serif;font-size:14px">${html.join('\n')}</div>` };
}

export function redactSubject(subject: string, context: RedactionContext): string {
  return redact(subject, context.knownSecrets, context.keep).replace(/\s+/g, ' ').trim();
}
