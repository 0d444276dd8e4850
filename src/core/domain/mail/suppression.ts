// The suppression list (the Suppressed sheet): addresses no reply is ever mailed to, added by staff or by a bounce.
import type { SuppressedEntry } from '../sheet-ports';
import { mailboxOf } from './mail-addresses';

export type { SuppressedEntry } from '../sheet-ports';

/** Who the bounce check writes as, in `added_by`. */
export const ADDED_BY_BOUNCE = 'bounce';

/** The bare address of a cell ("Ann <a@x.org>" → a@x.org), lower case; '' when it holds none. */
export function bareAddress(cell: string): string {
  const inBrackets = /<([^>]+)>/.exec(cell)?.[1] ?? cell;
  const bare = inBrackets.trim().replace(/^mailto:/i, '').toLowerCase();
  return bare.includes('@') ? bare : '';
}

/**
 * The list keyed by mailbox (mailboxOf: A@x, a@x and a+tag@x are one mailbox), so a person who asked to be left alone
 * is not mailed again under a tag. The first line of a mailbox wins (its reason is the one staff see).
 */
export function suppressionIndex(entries: readonly SuppressedEntry[]): Map<string, SuppressedEntry> {
  const index = new Map<string, SuppressedEntry>();
  for (const entry of entries) {
    const bare = bareAddress(entry.address);
    if (bare === '') continue;
    const mailbox = mailboxOf(bare);
    if (!index.has(mailbox)) index.set(mailbox, entry);
  }
  return index;
}

/** The line that suppresses this recipient, or null. */
export function suppressionOf(recipient: string, index: ReadonlyMap<string, SuppressedEntry>): SuppressedEntry | null {
  const bare = bareAddress(recipient);
  return bare === '' ? null : (index.get(mailboxOf(bare)) ?? null);
}

/** The row's `error` summary for a reply held back by the list: says why, and what a person can do. */
export function suppressedDetail(recipient: string, entry: SuppressedEntry): string {
  const why = entry.reason.trim() === '' ? 'no reason given' : entry.reason.trim();
  const by = entry.addedBy.trim() === '' ? '' : ` by ${entry.addedBy.trim()}`;
  return (
    `${recipient} is on the Suppressed sheet (added${by}: ${why}), so no reply is mailed to it. ` +
    'Leave the row (set SKIPPED), or remove the address from Suppressed and set PENDING for a new reply'
  );
}
