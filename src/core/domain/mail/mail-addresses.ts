// Email addresses: which are mailable, why one is not, and which mailbox an address reaches.

// Deliberately plain: one address, no display name, no spaces; MailApp rejects the rest anyway, later and vaguer.
const EMAIL = /^[^\s@<>()[\]",;:]+@[^\s@<>()[\]",;:]+\.[^\s@<>()[\]",;:.]{2,}$/;

/**
 * Control characters (C0, DEL, C1 incl. NEL U+0085) and invisible format characters (zero-width, bidi controls,
 * BOM): they hide what an address or subject really says, and can break a header.
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/;
export const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'g');

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** An address already trimmed (every caller trims it first). */
export function isEmailAddress(address: string): boolean {
  return !INVISIBLE.test(address) && EMAIL.test(address);
}

/** Why this recipient cannot be mailed (a permanent failure of the row), or null when it can. */
export function recipientProblem(recipient: string): string | null {
  const address = recipient.trim();
  if (address === '') return 'no email address in the submission';
  const hidden = INVISIBLE.exec(address);
  if (hidden) {
    const visible = address.replace(INVISIBLE_ALL, '');
    return `the address contains an invisible or control character (${codePoint(hidden[0])}), so it is not mailed: ${visible}`;
  }
  if (!isEmailAddress(address)) return `not a valid email address: ${address}`;
  return null;
}

/**
 * The mailbox an address reaches, for counting mails per person: case-insensitive, and a+tag@x is a@x (plus
 * addressing delivers both to one inbox, so a tag must not buy a second allowance).
 */
export function mailboxOf(address: string): string {
  const trimmed = address.trim().toLowerCase();
  const at = trimmed.lastIndexOf('@');
  if (at < 0) return trimmed;
  const local = trimmed.slice(0, at).split('+')[0];
  return `${local}@${trimmed.slice(at + 1)}`;
}
