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
    ['an image is its alt text', '![a chart](https://x/c.png) here', 'a chart here'],
    ['a mailto link shows the address without mailto:', 'Write to [us](mailto:desk@example.org).', 'Write to us (desk@example.org).'],
    ['MAILTO: in capitals is dropped too', 'Write to [MAILTO:desk@example.org](MAILTO:desk@example.org).', 'Write to MAILTO:desk@example.org (desk@example.org).'],
    ['a link labelled with its own address is not doubled', '[https://example.com](https://example.com)', 'https://example.com'],
    ['a link without an address is its label', '[empty]()', 'empty'],
    ['a link labelled with its own address inside spaces is not doubled', 'See [ https://example.com ](https://example.com) now', 'See  https://example.com  now'],
    ['a hard break is a line break, its spaces gone', 'line one  \nline two', 'line one\nline two'],
    ['a quote in a quote keeps both marks', '> > deep', '> > deep'],
    ['a paragraph after a quote is unquoted, after a blank line', '> quote\n\nafter', '> quote\n\nafter'],
    ['a table is rows of cells joined by " | "', '| a | b |\n|---|---|\n| 1 | 2 |\n\nafter', 'a | b\n1 | 2\n\nafter'],
    ['a rule is a blank line', 'above\n\n---\n\nbelow', 'above\n\nbelow'],
    ['an indented code block keeps its lines', '    indented code\n    second\n\nafter', 'indented code\nsecond\n\nafter'],
    ['a list then a paragraph: a blank line between', '1. one\n2. two\n\nafter', '1. one\n2. two\n\nafter'],
    ['nested ordered lists number and indent each level', '1. a\n   1. b\n   2. c\n2. d', '1. a\n  1. b\n  2. c\n2. d'],
    ['many blank lines become one', '- a\n\n\n\n- b', '- a\n\n- b'],
    ['a list in a quote', '> - a\n> - b', '> - a\n> - b'],
    ['a fence then a paragraph: a blank line between', '```\ncode\n```\nafter', 'code\n\nafter'],
    ['blank lines and spaces around are trimmed', '   \n\nhi\n\n   ', 'hi'],
    ['headings in a row are lines apart', '# Title\n## Sub\ntext', 'Title\n\nSub\n\ntext'],
    ['a list item\'s second line lines up under its text', '- [link](https://e.com)\n  continued', '- link (https://e.com)\n  continued'],
    ['a bold link', '**[bold link](https://e.com)**', 'bold link (https://e.com)'],
    ['an autolink after text is not doubled', 'See <https://example.com>', 'See https://example.com'],
    ['only a leading mailto: is dropped', '[a](https://x.org/mailto:desk)', 'a (https://x.org/mailto:desk)'],
    ['blank lines inside a fence fold to one', '```\na\n\n\n\nb\n```', 'a\n\nb'],
    ['a quote right after a list starts its own block', '- a\n> q', '- a\n\n> q'],
    ['a table in a quote ends with a blank line, not a bare ">"', '> | a | b |\n> |---|---|\n> | 1 | 2 |\n\nafter', '> a | b\n> 1 | 2\n\nafter'],
    ['a heading in a quote ends with a blank line, not a bare ">"', '> # Title\n> text', '> Title\n\n> text'],
    ['a table cell of padded code loses its padding', '| b | `  a  ` |\n|---|---|\n| 1 | 2 |', 'b | a\n1 | 2'],
    ['quotes, dashes and (c) stay as typed', '"Hi" -- (c)', '"Hi" -- (c)'],
  ])('%s', (_name, markdown, text) => {
    expect(replyPlainText(markdown)).toBe(text);
  });
});

describe('replyHtml', () => {
  it('renders Markdown and escapes raw HTML', () => {
    expect(replyHtml('**Hi** <b>x</b>')).toBe('<p><strong>Hi</strong> &lt;b&gt;x&lt;/b&gt;</p>');
  });

  it('a single line break is a <br> in the mail', () => {
    expect(replyHtml('Dear Mina,\nthank you.')).toBe('<p>Dear Mina,<br>\nthank you.</p>');
  });

  it('a URL written as text stays text, not a link', () => {
    expect(replyHtml('=HYPERLINK("http://x.org")')).toBe('<p>=HYPERLINK(&quot;http://x.org&quot;)</p>');
  });

  it('quotes, dashes and (c) are kept as typed', () => {
    expect(replyHtml('"Hi" -- (c)')).toBe('<p>&quot;Hi&quot; -- (c)</p>');
  });

  it('drops javascript: links', () => {
    expect(replyHtml('[x](javascript:alert(1))')).not.toContain('href');
  });
});
