// What a reply links to and names: its Markdown links (label and target), and every host written in its text.
import { replyTokens, type Token } from './reply-format';

export interface ReplyLink {
  /** The URL scheme in lower case (http, mailto, tel…), or null for a link without one. */
  scheme: string | null;
  /** The host the link leads to, or null (no host: mailto:, tel:, a relative link). */
  target: string | null;
  /** Hosts the reader sees in the link's label (`[bank.example](…)`). */
  labelHosts: string[];
}

/**
 * Top-level domains a bare name is taken as a link for: mail clients link "evil.example" and "www.x" on their own.
 * The common generic ones, the reserved example/test names, and any two-letter country code except file endings.
 */
const GENERIC_TLDS = new Set(
  ('com net org edu gov mil int info biz name pro mobi app dev io ai co me tv cc ly gl to gg xyz top online site link click ' +
    'zip mov shop store tech live email bank money help support login secure example test invalid localhost page blog cloud')
    .split(' '),
);
const FILE_ENDINGS = new Set(['md', 'py', 'js', 'ts', 'rs', 'sh', 'cs', 'db', 'gz', 'ps', 'pl', 'rb', 'vb', 'hs', 'kt', 'ml', 'mm', 'so']);

const SCHEME_URL = /\b([a-z][a-z0-9+.-]{1,15}):\/\/[^\s<>"'()[\]]+/gi;
const WWW_HOST = /(?<![\p{L}\p{N}.@-])www\.[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/giu;
const BARE_DOMAIN = /(?<![\p{L}\p{N}.@/:-])(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+(\p{L}{2,24})(?![\p{L}\p{N}-]|\.[\p{L}\p{N}])/gu;

/** The host of an absolute URL (user info and port removed), lower case; null when it has none. */
export function hostOf(url: string): string | null {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#\s\\]*)/i.exec(url.trim());
  if (!authority) return null;
  // "https://bank.example@evil.example/" leads to evil.example: everything before the last @ is user info.
  const host = authority[1].slice(authority[1].lastIndexOf('@') + 1).replace(/:\d*$/, '').replace(/^\[|\]$/g, '');
  const clean = host.toLowerCase().replace(/\.$/, '');
  return clean === '' ? null : clean;
}

function schemeOf(href: string): string | null {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(href.trim());
  return match ? match[1].toLowerCase() : null;
}

/** Whether a bare name ending in `tld` is one a mail client would link. */
function isLinkedTld(tld: string): boolean {
  const lower = tld.toLowerCase();
  if (GENERIC_TLDS.has(lower)) return true;
  return /^[a-z]{2}$/.test(lower) && !FILE_ENDINGS.has(lower);
}

/** Hosts written in a run of text: URLs with a scheme, www. names and bare domain names. */
function hostsInText(text: string): string[] {
  const hosts: string[] = [];
  for (const match of text.matchAll(SCHEME_URL)) {
    const host = hostOf(match[0]);
    if (host !== null) hosts.push(host);
  }
  for (const match of text.matchAll(WWW_HOST)) hosts.push(match[0].toLowerCase());
  for (const match of text.matchAll(BARE_DOMAIN)) if (isLinkedTld(match[1])) hosts.push(match[0].toLowerCase());
  return hosts;
}

function labelText(children: readonly Token[], from: number): string {
  let label = '';
  for (let i = from + 1; i < children.length && children[i].type !== 'link_close'; i++) label += children[i].content;
  return label;
}

/** Every link and image the rendered mail would hold, with what its label shows. */
export function linksOf(text: string): ReplyLink[] {
  const links: ReplyLink[] = [];
  const visit = (tokens: readonly Token[]) => {
    tokens.forEach((token, i) => {
      if (token.children) visit(token.children);
      if (token.type !== 'link_open' && token.type !== 'image') return;
      const href = String(token.attrGet(token.type === 'image' ? 'src' : 'href') ?? '');
      const label = token.type === 'image' ? token.content : labelText(tokens, i);
      links.push({ scheme: schemeOf(href), target: hostOf(href), labelHosts: hostsInText(label) });
    });
  };
  visit(replyTokens(text));
  return links;
}

/** Every host the reply links to or names, once each: link targets (as rendered) and hosts in the raw text. */
export function textHosts(text: string, links: readonly ReplyLink[]): string[] {
  const hosts = [...links.flatMap((link) => (link.target === null ? [] : [link.target])), ...hostsInText(text)];
  return Array.from(new Set(hosts));
}

/** Scripts a letter can be written in, told apart where look-alikes come from; digits and hyphens have none. */
const SCRIPTS: readonly [string, RegExp][] = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Georgian', /\p{Script=Georgian}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
  ['Hebrew', /\p{Script=Hebrew}/u],
  ['Arabic', /\p{Script=Arabic}/u],
  // Japanese writes Han, Hiragana and Katakana together: one script here, so a real Japanese name is not a look-alike.
  ['Han/Kana', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['Hangul', /\p{Script=Hangul}/u],
];

/** The scripts of the letters in a host, in order of first use ("Other" for any script not listed). */
export function scriptsOf(host: string): string[] {
  const found: string[] = [];
  for (const char of host) {
    if (!/\p{L}/u.test(char)) continue;
    const script = SCRIPTS.find(([, pattern]) => pattern.test(char))?.[0] ?? 'Other';
    if (!found.includes(script)) found.push(script);
  }
  return found;
}
