// A reply as Gemini writes it (Markdown, even when asked for plain text) turned into mail HTML and a readable plain-text body.
import type createMarkdownIt from 'markdown-it';
import type { MarkdownIt } from 'markdown-it';

// Loaded on first use, not at load: markdown-it's start (its entity tables above all) was about two thirds of the
// bundle's own start-up, paid by every execution, while most executions (a delivery, a quiet tick, a menu) never render
// a reply. esbuild bundles a require() of a CommonJS module (markdown-it's "require" export) as a function that runs
// the module on its first call: `__commonJS` in https://github.com/evanw/esbuild/blob/main/internal/runtime/runtime.go.
declare const require: (id: 'markdown-it') => typeof createMarkdownIt;
let loaded: MarkdownIt | undefined;

/**
 * markdown-it (https://github.com/markdown-it/markdown-it) with raw HTML off: any tag in a reply or a staff edit is
 * shown as text, and its link validator drops javascript:/vbscript:/file:/data: URLs. No linkify: a URL is a link
 * only where the Markdown makes it one, so text like =HYPERLINK("http://…") stays text.
 */
function markdown(): MarkdownIt {
  loaded ??= new (require('markdown-it'))({ html: false, linkify: false, typographer: false, breaks: true });
  return loaded;
}

export type Token = ReturnType<MarkdownIt['parse']>[number];

/** The reply's Markdown tokens, as the mail renders them (the reply policy reads its links from these). */
export function replyTokens(text: string): Token[] {
  return markdown().parse(text, {});
}

/** The reply as HTML for the mail body. */
export function replyHtml(text: string): string {
  return markdown().render(text).trim();
}

/** One inline run as plain words: emphasis marks gone, a link as "label (url)", an image as its alt text. */
function inlineText(children: readonly Token[]): string {
  let out = '';
  const links: { start: number; href: string }[] = [];
  for (const token of children) {
    switch (token.type) {
      case 'text':
      case 'code_inline':
        out += token.content;
        break;
      case 'softbreak':
      case 'hardbreak':
        out += '\n';
        break;
      case 'image':
        out += token.content;
        break;
      case 'link_open':
        links.push({ start: out.length, href: String(token.attrGet('href') ?? '') });
        break;
      case 'link_close': {
        const link = links.pop();
        if (!link) break;
        const label = out.slice(link.start).trim();
        const href = link.href.replace(/^mailto:/i, '');
        if (href !== '' && label !== href) out += ` (${href})`;
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/**
 * The reply as plain text an inbox shows as it is: headings and paragraphs as lines with a blank line between,
 * lists with "-" or "1.", quotes with "> ", code as written. Never `**` or `###`.
 */
export function replyPlainText(text: string): string {
  const tokens = markdown().parse(text, {});
  const lines: string[] = [];
  const lists: { ordered: boolean; next: number }[] = [];
  let marker: string | null = null;
  let quote = 0;
  let row: string[] | null = null;
  const emit = (block: string) => {
    const indent = '  '.repeat(Math.max(0, lists.length - 1));
    const first = marker ?? '';
    const rest = ' '.repeat(first.length);
    const quoted = '> '.repeat(quote);
    block.split('\n').forEach((line, i) => lines.push(`${quoted}${indent}${i === 0 ? first : rest}${line}`.trimEnd()));
    marker = null;
  };
  // Blank lines in a row, and at either end, are folded by the join below.
  const gap = () => lines.push('');
  for (const token of tokens) {
    switch (token.type) {
      case 'bullet_list_open':
        lists.push({ ordered: false, next: 1 });
        break;
      case 'ordered_list_open':
        lists.push({ ordered: true, next: Number(token.attrGet('start') ?? 1) });
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists.pop();
        if (lists.length === 0) gap();
        break;
      case 'list_item_open': {
        const list = lists[lists.length - 1];
        marker = list && list.ordered ? `${list.next++}. ` : '- ';
        break;
      }
      case 'blockquote_open':
        quote++;
        break;
      case 'blockquote_close':
        quote--;
        gap();
        break;
      case 'tr_open':
        row = [];
        break;
      case 'tr_close':
        if (row) emit(row.join(' | '));
        row = null;
        break;
      case 'table_close':
        gap();
        break;
      case 'inline':
        if (row) row.push(inlineText(token.children ?? []).trim());
        else emit(inlineText(token.children ?? []));
        break;
      case 'paragraph_close':
        if (!token.hidden) gap();
        break;
      case 'heading_close':
        gap();
        break;
      case 'fence':
      case 'code_block':
        emit(token.content.replace(/\n$/, ''));
        gap();
        break;
      default:
        break;
    }
  }
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}
