// A Markdown reply as mail HTML (markdown-it, raw HTML off) and as plain text an inbox shows as it is.
import { describe, expect, it } from 'vitest';
import { replyHtml, replyPlainText } from '../../../src/core/processing/reply-format';

describe('replyPlainText', () => {
  it.each([
    ['bold and italics lose their marks', 'Your essay is **very** clear and *well* _argued_.', 'Your essay is very clear and well argued.'],
    ['headings become lines', '## Strengths\nClear structure.', 'Strengths\n\nClear structure.'],
    ['bullets become "-"', '* one\n* two\n* three', '- one\n- two\n- three'],
    ['ordered lists keep their numbers and start', '3. three\n4. four', '3. three\n4. four'],
    ['nested lists indent', '- a\n  - b\n- c', '- a\n  - b\n- c'],
    ['a link shows its address', 'See [the guide](https://example.com/guide).', 'See the guide (https://example.com/guide).'],
    ['a bare autolink is not doubled', '<https://example.com>', 'https://example.com'],
    ['inline code keeps its text', 'Use `const` here.', 'Use const here.'],
    ['a fenced block keeps its lines', '```\nline 1\nline 2\n```', 'line 1\nline 2'],
    ['a quote keeps "> "', '> quoted line', '> quoted line'],
    ['escaped marks stay literal', 'a \\*star\\*', 'a *star*'],
    ['single line breaks are kept', 'Dear Mina,\nthank you.', 'Dear Mina,\nthank you.'],
    ['plain text passes through', 'Dear Mina,\n\nWell done.\n\nThe team', 'Dear Mina,\n\nWell done.\n\nThe team'],
  ])('%s', (_name, markdown, text) => {
    expect(replyPlainText(markdown)).toBe(text);
  });
});

describe('replyHtml', () => {
  it('renders Markdown and escapes raw HTML', () => {
    expect(replyHtml('**Hi** <b>x</b>')).toBe('<p><strong>Hi</strong> &lt;b&gt;x&lt;/b&gt;</p>');
  });

  it('drops javascript: links', () => {
    expect(replyHtml('[x](javascript:alert(1))')).not.toContain('href');
  });
});
