// {{placeholder}} templates: which names they use, how values and text are written, and the words of a refusal.
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../../src/core/domain/failures/errors';
import { DEFAULT_BODY, DEFAULT_PROMPT, DEFAULT_SUBJECT, escapeHtml, placeholdersIn, renderTemplate } from '../../../../src/core/domain/mail/templates';

const mail = { formId: 'F1', template: 'body' as const };

function refusal(run: () => unknown): { code: string | undefined; message: string } {
  try {
    run();
  } catch (error) {
    return { code: codeOf(error), message: (error as Error).message };
  }
  throw new Error('expected a refusal');
}

describe('placeholdersIn', () => {
  it('lists each distinct name once, in order of first use, spaces inside the braces allowed', () => {
    expect(placeholdersIn('{{ a }} {{b}} {{a}} {{c.d}} {x} {{}} {{ two words }}')).toEqual(['a', 'b', 'c.d']);
  });

  it('the defaults use what each template may: answers for the prompt, mail_ref and result for mail', () => {
    expect(placeholdersIn(DEFAULT_PROMPT)).toEqual(['answers']);
    expect(placeholdersIn(DEFAULT_SUBJECT)).toEqual(['mail_ref']);
    expect(placeholdersIn(DEFAULT_BODY)).toEqual(['result']);
  });
});

describe('renderTemplate', () => {
  it('replaces every use of each name, leaving the text between as it is', () => {
    expect(renderTemplate('Hi {{name}}, {{ name }}! Ref {{mail_ref}}.', { name: 'Ann', mail_ref: 'FQ-1' }, mail)).toBe('Hi Ann, Ann! Ref FQ-1.');
    expect(renderTemplate('no placeholders', {}, mail)).toBe('no placeholders');
  });

  it('writes values and literal text through the presentation', () => {
    const html = renderTemplate('<b>{{a}}</b>\n{{b}}', { a: 'x<y', b: 'z' }, mail, { value: (v, name) => `[${name}:${escapeHtml(v)}]`, literal: (t) => t.replace(/\n/g, '<br>') });
    expect(html).toBe('<b>[a:x&lt;y]</b><br>[b:z]');
  });

  it('an empty value is written when blanks are allowed', () => {
    expect(renderTemplate('[{{a}}]', { a: '' }, mail)).toBe('[]');
  });

  it('refuses an unknown name, naming it, the form, the names it may use and the fix', () => {
    expect(refusal(() => renderTemplate('{{nope}} {{also}}', {}, mail))).toEqual({
      code: 'TEMPLATE_INVALID',
      message:
        'Config for form "F1": the body template uses {{nope}}, {{also}}, which is neither a field ref or id of this form, a hidden.<name> or variables.<key> of this submission, {{score}}, nor one of {{answers}}, {{result}}, {{mail_ref}}. Fix the template in the Config sheet.',
    });
  });

  it('the prompt is told only {{answers}}, and the note says why fields may be missing', () => {
    const { message } = refusal(() => renderTemplate('{{result}}', {}, { formId: 'F2', template: 'prompt', note: 'the payload could not be read' }));
    expect(message).toBe(
      'Config for form "F2": the prompt template uses {{result}}, which is neither a field ref or id of this form, a hidden.<name> or variables.<key> of this submission, {{score}}, nor one of {{answers}} (the payload could not be read). Fix the template in the Config sheet.',
    );
  });

  it('refuses a blank where a name was meant, when told to, and says the row waits', () => {
    const context = { ...mail, refuseBlank: (name: string) => name === 'name' };
    expect(refusal(() => renderTemplate('Hi {{name}} {{other}}', { name: '  ', other: '' }, context))).toEqual({
      code: 'TEMPLATE_INVALID',
      message:
        'Config for form "F1": the body template uses {{name}}, which this submission left empty; a blank is never mailed, so the row waits. Make the template not need it (edit the Config sheet; the row is then sent on the next run), or skip the row.',
    });
  });

  it('both at once: the unknown names first, then the blanks, and the template fix', () => {
    const context = { ...mail, refuseBlank: () => true };
    const { message } = refusal(() => renderTemplate('{{x}} {{name}}', { name: '' }, context));
    expect(message).toBe(
      'Config for form "F1": the body template uses {{x}}, which is neither a field ref or id of this form, a hidden.<name> or variables.<key> of this submission, {{score}}, nor one of {{answers}}, {{result}}, {{mail_ref}}; it also uses {{name}}, which this submission left empty; a blank is never mailed, so the row waits. Fix the template in the Config sheet.',
    );
  });

  it('two blanks are named together', () => {
    const context = { ...mail, refuseBlank: () => true };
    expect(refusal(() => renderTemplate('{{a}} {{b}}', { a: '', b: ' ' }, context)).message).toContain('the body template uses {{a}}, {{b}}, which this submission left empty');
  });

  it('a name inherited from Object.prototype is still unknown', () => {
    expect(refusal(() => renderTemplate('{{toString}}', {}, mail)).code).toBe('TEMPLATE_INVALID');
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML characters and nothing else', () => {
    expect(escapeHtml(`&<>"' plain é`)).toBe('&amp;&lt;&gt;&quot;&#39; plain é');
  });
});
