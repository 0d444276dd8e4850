// Whether a sent mail's copy is in its sender's Sent folder, and whether Gmail search finds it yet (the `sentCopy` world).
//
// MailApp's reference says a mail goes from the account the script runs as and nothing of a copy in Sent
// (https://developers.google.com/apps-script/reference/mail/mail-app), so the reading is a world switch (worlds.mjs):
// at once, stored at once but found by search only later (late[:MINUTES], an index lag), or never kept (absent). A copy
// a person deleted from Sent (DELETE /api/sent/ID) is gone in every reading.
import { worldReading } from '../worlds.mjs';

const MINUTE_MS = 60_000;

/**
 * The copy of outbox entry `m` as Gmail holds it at host time `now`: `stored` (Users.Messages.get by id finds it) and
 * `searchable` (Users.Messages.list and GmailApp.search find it).
 * @param {{ worlds: Record<string, string> }} host @param {{ sentAt: string, deletedFromSent?: boolean }} m @param {number} now
 */
export function sentCopyOf(host, m, now) {
  if (m.deletedFromSent) return { stored: false, searchable: false };
  const { reading, arg } = worldReading('sentCopy', host.worlds.sentCopy);
  if (reading === 'absent') return { stored: false, searchable: false };
  if (reading === 'late') return { stored: true, searchable: now - Date.parse(m.sentAt) >= Number(arg) * MINUTE_MS };
  return { stored: true, searchable: true };
}
