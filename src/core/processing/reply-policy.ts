// The reply policy: the one check every reply passes before it may be mailed without a person (links, addresses, phones, leftovers, look-alikes).
import type { FormConfig } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { mailboxOf } from '../domain/mail/mail-addresses';
import { linksOf, hostOf, scriptsOf, textHosts, type ReplyLink } from './reply-scan';

/**
 * The rules, in the order a breach is reported (the first that holds names the row's `error`). Stable: staff filter
 * on them and the docs list them (docs/configuration.md#the-reply-policy).
 */
export const REPLY_POLICY_RULES = [
  'INVISIBLE_CHARACTER',
  'LOOKALIKE_DOMAIN',
  'LINK_TEXT_MISMATCH',
  'LINK_DOMAIN',
  'EMAIL_ADDRESS',
  'PHONE_NUMBER',
  'RAW_MARKUP',
  'PLACEHOLDER',
  'LENGTH',
] as const;

export type ReplyPolicyRule = (typeof REPLY_POLICY_RULES)[number];

/** A reply must say something; any visible text will do (a short "Thanks, received." is a fine reply). */
export const REPLY_MIN_CHARS = 1;
/** Far beyond the default prompt's ~300 words: a reply this long was steered somewhere (a dump, a pasted page). */
export const REPLY_MAX_CHARS = 10000;

export interface ReplyPolicyInput {
  /** The reply as it would be mailed ({{result}}: Markdown as the model wrote it, or as staff edited it). */
  text: string;
  recipient: string;
  /** The form's Config `reply_to` cell, as typed. */
  replyTo: string;
  /** The form's Config `allowed_link_domains` cell, as typed: blank allows none. */
  allowedLinkDomains: string;
  allowPhoneNumbers: boolean;
}

export interface ReplyPolicyBreach {
  rule: ReplyPolicyRule;
  /** What broke it, for the person who reads the row: "link to evil.example is not allowed". */
  detail: string;
}

/**
 * Zero-width, bidi and other invisible format characters, and control characters other than line breaks and tabs:
 * in a reply they only hide what a link or address really says.
 */
const INVISIBLE_RANGES: readonly [number, number][] = [
  [0x0000, 0x0008],
  [0x000b, 0x000c],
  [0x000e, 0x001f],
  [0x007f, 0x009f],
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180e],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xe0000, 0xe007f], // tag characters: invisible text an LLM reads and a person does not
];

/** The first invisible or control character of the text (ranges above, by code point: a regex class of combining marks misleads). */
function firstInvisible(text: string): string | null {
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (INVISIBLE_RANGES.some(([low, high]) => code >= low && code <= high)) return char;
  }
  return null;
}

const EMAIL = /[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
/** A run of digits with the separators phone numbers are written with: checked for its digit count afterwards. */
const PHONE_CANDIDATE = /(?<![\p{L}\p{N}])(?:\+|00)?\(?\d[\d\s()./-]{5,22}\d(?![\p{L}\p{N}])/gu;
/** Dates and times are digit runs too; they are not phone numbers. */
const DATE_OR_TIME = [/^\d{4}[-./]\d{1,2}[-./]\d{1,2}$/, /^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$/, /^\d{1,2}:\d{2}/];

/** HTML the renderer would show as text, and things a mail client might still act on. */
const RAW_MARKUP: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>/i, what: 'an HTML tag' },
  { pattern: /<!--|-->/, what: 'an HTML comment' },
  { pattern: /&(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,30});/i, what: 'an HTML entity' },
  { pattern: /\b(?:javascript|vbscript):|\bdata:[a-z]+\/[a-z0-9.+-]+[;,]|\bfile:\/\//i, what: 'a script, data or file URL' },
];

const PLACEHOLDERS: readonly RegExp[] = [
  /\{\{[^{}]{0,60}\}\}/,
  /\{\s*(?:name|first_?name|recipient|company|date|link|url)\s*\}/i,
  // "[Your name]", "[insert link]"; a Markdown link's label ("[your account](…)") is not a leftover.
  /\[\s*(?:your|insert|recipient|company|organi[sz]ation|name|first name|date|link|url|phone|email|address|signature|placeholder)\b[^\]\n]{0,40}\](?!\()/i,
  /\b(?:TODO|TBD|FIXME)\b/,
  /\blorem ipsum\b/i,
  /\bX{4,}\b/,
];

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Config `allowed_link_domains` → hosts: "example.org", "*.example.org" and "https://example.org/x" all mean example.org. */
export function allowedDomainsOf(cell: string): string[] {
  return cell
    .split(/[,;\s]+/)
    .map((entry) => entry.trim().replace(/^\*\./, ''))
    .filter((entry) => entry !== '')
    .map((entry) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? hostOf(entry) ?? '' : entry.split('/')[0]).toLowerCase().replace(/\.$/, ''))
    .filter((entry) => entry !== '');
}

/** A host is allowed when it is an allowed domain or a subdomain of one (news.example.org under example.org). */
function isAllowedHost(host: string, allowed: readonly string[]): boolean {
  return allowed.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/** The domain a reader sees: lower case, without a leading www. */
function shownDomain(host: string): string {
  return host.toLowerCase().replace(/^www\./, '');
}

function invisible(text: string): ReplyPolicyBreach | null {
  const hidden = firstInvisible(text);
  return hidden === null ? null : { rule: 'INVISIBLE_CHARACTER', detail: `an invisible or control character (${codePoint(hidden)}) is in the reply` };
}

function lookalike(hosts: readonly string[]): ReplyPolicyBreach | null {
  for (const host of hosts) {
    const scripts = scriptsOf(host);
    if (scripts.length > 1) return { rule: 'LOOKALIKE_DOMAIN', detail: `the domain ${host} mixes scripts (${scripts.join(' and ')})` };
    if (/(?:^|\.)xn--/i.test(host)) return { rule: 'LOOKALIKE_DOMAIN', detail: `the domain ${host} is punycode, which can spell a look-alike` };
  }
  return null;
}

function mismatch(links: readonly ReplyLink[]): ReplyPolicyBreach | null {
  for (const link of links) {
    if (link.target === null) continue;
    const shown = link.labelHosts.find((host) => shownDomain(host) !== shownDomain(link.target as string));
    if (shown !== undefined) return { rule: 'LINK_TEXT_MISMATCH', detail: `a link shows ${shownDomain(shown)} but leads to ${shownDomain(link.target)}` };
  }
  return null;
}

function linkDomain(hosts: readonly string[], links: readonly ReplyLink[], allowed: readonly string[]): ReplyPolicyBreach | null {
  const allowedText = allowed.length === 0 ? 'none' : allowed.join(', ');
  for (const link of links) {
    if (link.scheme !== null && !['http', 'https', 'mailto', 'tel'].includes(link.scheme)) {
      return { rule: 'LINK_DOMAIN', detail: `a ${link.scheme}: link is not allowed` };
    }
  }
  const outside = hosts.find((host) => !isAllowedHost(host, allowed));
  return outside === undefined ? null : { rule: 'LINK_DOMAIN', detail: `link to ${outside} is not allowed (allowed_link_domains: ${allowedText})` };
}

function emailAddress(text: string, input: ReplyPolicyInput): ReplyPolicyBreach | null {
  const own = [input.recipient, ...input.replyTo.split(/[,;\s]+/)].filter((address) => address.trim() !== '').map(mailboxOf);
  for (const match of text.matchAll(EMAIL)) {
    const address = match[0].replace(/\.+$/, '');
    if (!own.includes(mailboxOf(address))) return { rule: 'EMAIL_ADDRESS', detail: `the address ${address} is neither the recipient's nor the form's reply_to` };
  }
  return null;
}

function phoneNumber(text: string, links: readonly ReplyLink[]): ReplyPolicyBreach | null {
  if (links.some((link) => link.scheme === 'tel')) return { rule: 'PHONE_NUMBER', detail: 'a tel: link is in the reply (allow_phone_numbers is off)' };
  for (const match of text.matchAll(PHONE_CANDIDATE)) {
    const candidate = match[0].trim();
    const digits = candidate.replace(/\D/g, '').length;
    if (digits < 7 || digits > 15 || DATE_OR_TIME.some((pattern) => pattern.test(candidate))) continue;
    return { rule: 'PHONE_NUMBER', detail: `the phone number ${candidate} is in the reply (allow_phone_numbers is off)` };
  }
  return null;
}

function rawMarkup(text: string): ReplyPolicyBreach | null {
  for (const { pattern, what } of RAW_MARKUP) {
    const found = pattern.exec(text);
    if (found) return { rule: 'RAW_MARKUP', detail: `${what} is in the reply: ${found[0].slice(0, 40)}` };
  }
  return null;
}

function placeholder(text: string): ReplyPolicyBreach | null {
  for (const pattern of PLACEHOLDERS) {
    const found = pattern.exec(text);
    if (found) return { rule: 'PLACEHOLDER', detail: `a leftover placeholder is in the reply: ${found[0].slice(0, 40)}` };
  }
  return null;
}

function length(text: string): ReplyPolicyBreach | null {
  const chars = text.trim().length;
  if (chars < REPLY_MIN_CHARS) return { rule: 'LENGTH', detail: `the reply has ${chars} characters, fewer than ${REPLY_MIN_CHARS}` };
  if (chars > REPLY_MAX_CHARS) return { rule: 'LENGTH', detail: `the reply has ${chars} characters, more than ${REPLY_MAX_CHARS}` };
  return null;
}

/** Every rule the reply breaks, in REPLY_POLICY_RULES order; empty when it may be mailed without a person. */
export function replyPolicyBreaches(input: ReplyPolicyInput): ReplyPolicyBreach[] {
  const text = input.text;
  const links = linksOf(text);
  const emailHosts = Array.from(text.matchAll(EMAIL), (match) => match[0].slice(match[0].lastIndexOf('@') + 1).toLowerCase());
  const hosts = textHosts(text, links);
  const found = [
    invisible(text),
    lookalike([...hosts, ...emailHosts]),
    mismatch(links),
    linkDomain(hosts, links, allowedDomainsOf(input.allowedLinkDomains)),
    emailAddress(text, input),
    input.allowPhoneNumbers ? null : phoneNumber(text, links),
    rawMarkup(text),
    placeholder(text),
    length(text),
  ];
  return found.filter((breach): breach is ReplyPolicyBreach => breach !== null);
}

/** What the row's `error` says after `REPLY_POLICY: `: the first rule broken, its detail, and how many more. */
export function replyPolicySummary(breaches: readonly ReplyPolicyBreach[]): string {
  const [first, ...rest] = breaches;
  const more = rest.length === 0 ? '' : ` (also ${rest.map((breach) => breach.rule).join(', ')})`;
  return `${first.rule} ${first.detail}${more}; waits for a person: read it, then APPROVED mails it as it is`;
}

/** The policy as it applies to a row's reply now (its result, its recipient) under its form's Config. */
export function rowReplyBreaches(row: Pick<QueueRow, 'result' | 'recipient'>, config: FormConfig): ReplyPolicyBreach[] {
  return replyPolicyBreaches({
    text: row.result,
    recipient: row.recipient,
    replyTo: config.replyTo,
    allowedLinkDomains: config.allowedLinkDomains,
    allowPhoneNumbers: config.allowPhoneNumbers,
  });
}
