// Config templates: {{placeholder}} substitution that refuses unknown names, HTML escaping, and the defaults.
import { codedError } from '../failures/errors';

export type TemplateName = 'prompt' | 'subject' | 'body';

/** Names every mail template may use besides the submission's own (field refs and ids, hidden.*, variables.*, score). */
export const MAIL_PLACEHOLDERS = ['answers', 'result', 'mail_ref'] as const;
/** The prompt never sees {{result}} or {{mail_ref}}: neither exists before Gemini answers. */
export const PROMPT_PLACEHOLDERS = ['answers'] as const;

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/** Written into the Config `*` row by the staff console; usable as-is by a course school or a support desk. */
export const DEFAULT_PROMPT = [
  'You answer submissions sent to our team through an online form (for example a course assignment or a support request).',
  'Write the email reply to the person who sent the submission below.',
  '- Greet them by name if they gave one; write in the language they wrote in.',
  '- Answer what they asked, or give specific, constructive feedback on what they sent: quote or name the parts you mean.',
  '- Be warm, clear and brief: at most about 300 words.',
  '- Do not invent facts, prices, dates, links or promises. If something needs a person, say that a member of our team will follow up.',
  '- Plain text only: no Markdown, no headings, no bullet symbols other than "-".',
  '- End with a short sign-off from "The team"; do not add a subject line.',
  '',
  '{{answers}}',
].join('\n');

export const DEFAULT_SUBJECT = 'Our reply to your submission ({{mail_ref}})';

export const DEFAULT_BODY = [
  '{{result}}',
  '',
  'If anything is unclear, simply reply to this email and a person will read it.',
].join('\n');

/** The distinct placeholder names a template uses, in order of first use. */
export function placeholdersIn(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) if (!names.includes(match[1])) names.push(match[1]);
  return names;
}

export interface TemplateContext {
  formId: string;
  template: TemplateName;
  /** Why field refs may be missing (e.g. the payload could not be read), added to the error. */
  note?: string;
  /**
   * A mail template never sends a blank where a name was meant: a placeholder this submission left empty
   * (an unanswered question, a hidden field not passed) stops the row with the reason instead.
   */
  refuseBlank?: (name: string) => boolean;
}

export interface TemplatePresentation {
  /** How a substituted value is written (e.g. HTML escaping; {{result}} as rendered Markdown). */
  value?: (value: string, name: string) => string;
  /** How the template's own text between placeholders is written (e.g. HTML with line breaks). */
  literal?: (text: string) => string;
}

function refusal(context: TemplateContext, unknown: readonly string[], blank: readonly string[]): Error {
  const builtins = context.template === 'prompt' ? PROMPT_PLACEHOLDERS : MAIL_PLACEHOLDERS;
  const reasons: string[] = [];
  if (unknown.length > 0) {
    reasons.push(
      `uses ${unknown.map((name) => `{{${name}}}`).join(', ')}, which is neither a field ref or id of this form, a ` +
        `hidden.<name> or variables.<key> of this submission, {{score}}, nor one of ${builtins.map((name) => `{{${name}}}`).join(', ')}` +
        (context.note ? ` (${context.note})` : ''),
    );
  }
  if (blank.length > 0) {
    const named = blank.map((name) => `{{${name}}}`).join(', ');
    reasons.push(`uses ${named}, which this submission left empty; a blank is never mailed, so the row waits`);
  }
  // Called only with something to refuse: no unknown name means a blank one.
  const fix =
    unknown.length === 0
      ? 'Make the template not need it (edit the Config sheet; the row is then sent on the next run), or skip the row.'
      : 'Fix the template in the Config sheet.';
  return codedError('TEMPLATE_INVALID', `Config for form "${context.formId}": the ${context.template} template ${reasons.join('; it also ')}. ${fix}`);
}

/**
 * Replaces every {{name}} with values[name], written through `presentation`. An unknown name, or (for mail)
 * a name whose value is blank, is an error naming it and the form: a blank where a name was meant is never mailed.
 */
export function renderTemplate(
  template: string,
  values: Readonly<Record<string, string>>,
  context: TemplateContext,
  presentation: TemplatePresentation = {},
): string {
  const names = placeholdersIn(template);
  const unknown = names.filter((name) => !Object.prototype.hasOwnProperty.call(values, name));
  const blank = names.filter((name) => !unknown.includes(name) && context.refuseBlank?.(name) && values[name].trim() === '');
  if (unknown.length > 0 || blank.length > 0) throw refusal(context, unknown, blank);
  const value = presentation.value ?? ((text: string) => text);
  const literal = presentation.literal ?? ((text: string) => text);
  let out = '';
  let at = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const index = match.index ?? 0;
    out += literal(template.slice(at, index)) + value(values[match[1]], match[1]);
    at = index + match[0].length;
  }
  return out + literal(template.slice(at));
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);
}

/** Escaped text with its line breaks kept as <br>. */
export function textToHtml(text: string): string {
  return escapeHtml(text).replace(/\r\n|\r|\n/g, '<br>\n');
}
