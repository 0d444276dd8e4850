// Gmail's delivery-failure notices (RECONCILE_BOUNCES): which messages are failure notices, which address failed and
// why, and which sent reply each is about (pure; the inbox is a port, src/gas/bounce-mailbox.ts).
//
// Gmail's format, as public bounce parsers describe it: from mailer-daemon@googlemail.com, subject "Delivery Status
// Notification (Failure)", an X-Failed-Recipients header, and a multipart/report of a human text ("** Address not
// found ** … Your message wasn't delivered to …"), a message/delivery-status part (Final-Recipient, Action: failed,
// Status, Diagnostic-Code) and, optionally, the original message (https://github.com/rgl/MailBounceDetector README;
// https://github.com/sarff/bounce-parser README; RFC 3464). How much of the original the Gmail API shows is not
// documented, so a notice is matched by the Reference it quotes when it shows one, else by the failed address and time.
import type { BounceNotice } from '../domain/ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { DAY_MS, MINUTE_MS } from '../domain/time';
import { mailboxOf } from '../domain/mail/mail-addresses';
import { bareAddress } from '../domain/mail/suppression';

/** The inbox is searched from this long before the last check: a notice Gmail indexed late is still found. */
export const BOUNCE_OVERLAP_MS = 60 * MINUTE_MS;
/** The first check (no earlier one recorded) looks back this far. */
export const FIRST_LOOKBACK_MS = DAY_MS;
/** A notice is matched by address only to a reply sent at most this long before it arrived (Gmail retries for days at most). */
export const MATCH_WINDOW_MS = 3 * DAY_MS;
/**
 * A reply counts as sent before the notice up to this long after it arrived: sent_at is taken after MailApp returns, by
 * Apps Script's clock, and a notice for a dead address can arrive within the same second, stamped by Gmail's.
 */
export const CLOCK_MARGIN_MS = 5 * MINUTE_MS;
/** Notices read in one check at most (each is one Gmail get); the rest wait for the next check. */
export const MAX_NOTICES_PER_CHECK = 20;
/** Ids of notices already read, kept for the next check's overlap. */
export const MAX_SEEN_IDS = 200;

/** Gmail takes `after:` in epoch seconds (https://developers.google.com/workspace/gmail/api/guides/filtering). */
export function bounceQuery(since: number): string {
  return `from:mailer-daemon after:${Math.floor(since / 1000)}`;
}

const REF_PATTERN = /\bFQ-[0-9A-HJKMNP-TV-Z]{6}\b/g;

/** A failure notice read: the addresses that failed, why, and the references it quotes. */
export interface Bounce {
  id: string;
  receivedAt: number;
  failed: string[];
  reason: string;
  refs: string[];
}

/** The notice as a bounce, or null when it is no delivery failure (a delay notice, or not from a mailer daemon). */
export function readBounce(notice: BounceNotice): Bounce | null {
  if (!/mailer-daemon|postmaster/i.test(notice.from)) return null;
  const failure = /\(Failure\)/i.test(notice.subject) || /^Action:\s*failed\b/im.test(notice.text);
  if (!failure) return null;
  const failed = new Set<string>();
  for (const part of notice.failedRecipients.split(',')) if (bareAddress(part) !== '') failed.add(bareAddress(part));
  for (const match of notice.text.matchAll(/^(?:Final|Original)-Recipient:\s*rfc822;\s*(\S+)/gim)) if (bareAddress(match[1]) !== '') failed.add(bareAddress(match[1]));
  if (failed.size === 0) {
    // The address ends before a space, a comma or a closing bracket; a sentence's full stop is not part of it.
    const told = /wasn't delivered to\s+<?([^\s,<>]+@[^\s,<>]*[^\s,<>.])/i.exec(notice.text);
    if (told && bareAddress(told[1]) !== '') failed.add(bareAddress(told[1]));
  }
  if (failed.size === 0) return null;
  return { id: notice.id, receivedAt: notice.receivedAt, failed: Array.from(failed), reason: reasonOf(notice.text), refs: Array.from(new Set(notice.text.match(REF_PATTERN) ?? [])) };
}

/** "Address not found (550 5.1.1 The email account …)": Gmail's heading and the server's answer, at most 200 characters. */
function reasonOf(text: string): string {
  const heading = /\*\*\s*([^*\n]+?)\s*\*\*/.exec(text)?.[1];
  const diagnostic = /^Diagnostic-Code:\s*(?:smtp;\s*)?(.+)$/im.exec(text)?.[1]?.trim();
  const status = /^Status:\s*(\d\.\d{1,3}\.\d{1,3})/im.exec(text)?.[1];
  const answer = diagnostic ?? (status ? `status ${status}` : undefined);
  const reason = heading && answer ? `${heading} (${answer})` : (heading ?? answer ?? 'delivery failed');
  return reason.length > 200 ? `${reason.slice(0, 199)}…` : reason;
}

export type BounceMatch =
  /** The sent reply it is about, and its failed address. */
  | { kind: 'row'; row: QueueRow; address: string }
  /** A reply of ours by its Reference, no longer in Queue: the address is suppressed, no row is marked. */
  | { kind: 'address'; address: string; ref: string }
  | { kind: 'none' };

/**
 * Which reply the notice is about: the row whose mail_ref it quotes (and whose recipient failed); without a Reference
 * shown, the latest reply sent to a failed address before the notice arrived, within MATCH_WINDOW_MS. A notice that
 * matches nothing is about mail formqueue did not send (the account's own mail) and is left alone.
 */
export function matchBounce(bounce: Bounce, rows: readonly QueueRow[]): BounceMatch {
  const failed = new Set(bounce.failed.map(mailboxOf));
  const failedAddressOf = (row: QueueRow) => bounce.failed.find((address) => mailboxOf(address) === mailboxOf(row.recipient));
  if (bounce.refs.length > 0) {
    const byRef = rows.find((row) => row.mailRef !== '' && bounce.refs.includes(row.mailRef) && row.sentAt !== null && failed.has(mailboxOf(row.recipient)));
    if (byRef) return { kind: 'row', row: byRef, address: failedAddressOf(byRef) as string };
    // A reference of ours and one failed address: the reply was archived or removed since; the address still bounced.
    if (bounce.failed.length === 1) return { kind: 'address', address: bounce.failed[0], ref: bounce.refs[0] };
    return { kind: 'none' };
  }
  let best: QueueRow | null = null;
  for (const row of rows) {
    if (row.sentAt === null || !failed.has(mailboxOf(row.recipient))) continue;
    if (row.sentAt > bounce.receivedAt + CLOCK_MARGIN_MS || bounce.receivedAt - row.sentAt > MATCH_WINDOW_MS) continue;
    if (best === null || row.sentAt > (best.sentAt as number)) best = row;
  }
  return best === null ? { kind: 'none' } : { kind: 'row', row: best, address: failedAddressOf(best) as string };
}

/** What the last check recorded (Script Property BOUNCE_CHECK_PROPERTY): when, and the notices it read. */
export interface BounceCheckState {
  at: number;
  seen: string[];
  /**
   * Bounces of formqueue's replies by the hour their notice arrived ([hour start, count]), kept for a day: what Queue
   * health and the daily summary count (bouncesSince). An hour a bucket, so the property stays small whatever the flood.
   */
  bounced?: [number, number][];
}

const HOUR_MS = 60 * MINUTE_MS;

/** The tally with `times` added, the hours older than a day before `now` dropped. */
export function tallyBounces(tally: readonly [number, number][], times: readonly number[], now: number): [number, number][] {
  const hours = new Map(tally.filter(([hour]) => hour > now - DAY_MS - HOUR_MS));
  for (const time of times) {
    const hour = Math.floor(time / HOUR_MS) * HOUR_MS;
    if (hour > now - DAY_MS - HOUR_MS) hours.set(hour, (hours.get(hour) ?? 0) + 1);
  }
  return Array.from(hours).sort((a, b) => a[0] - b[0]);
}

/** Bounces whose notice arrived in the hours from `since`'s on (the hour that holds `since` counts whole). */
export function bouncesSince(state: BounceCheckState | null, since: number): number {
  const from = Math.floor(since / HOUR_MS) * HOUR_MS;
  return (state?.bounced ?? []).reduce((sum, [hour, count]) => (hour >= from ? sum + count : sum), 0);
}

export const BOUNCE_CHECK_PROPERTY = 'FQ_BOUNCE_CHECK';

export function readBounceCheckState(props: Readonly<Record<string, string | undefined>>): BounceCheckState | null {
  try {
    const parsed = JSON.parse(props[BOUNCE_CHECK_PROPERTY] ?? '') as Partial<BounceCheckState>;
    if (typeof parsed.at !== 'number' || !Number.isFinite(parsed.at)) return null;
    const seen = Array.isArray(parsed.seen) ? parsed.seen.filter((id): id is string => typeof id === 'string') : [];
    const bounced = Array.isArray(parsed.bounced)
      ? parsed.bounced.filter((pair): pair is [number, number] => Array.isArray(pair) && pair.length === 2 && pair.every((n) => typeof n === 'number' && Number.isFinite(n)))
      : [];
    return bounced.length === 0 ? { at: parsed.at, seen } : { at: parsed.at, seen, bounced };
  } catch {
    return null;
  }
}

/** The row's `error` after its reply bounced: the address, why, and that it is suppressed now. */
export function bouncedDetail(address: string, bounce: Bounce, iso: (ms: number) => string): string {
  return `${address}: ${bounce.reason} (delivery-failure notice ${bounce.id} at ${iso(bounce.receivedAt)}); the address is on the Suppressed sheet now`;
}
