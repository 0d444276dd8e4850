// The deploying account's Sent folder through the Gmail advanced service (RECONCILE_SENT_MAIL only): search and read.
//
// The service and the shapes it answers: gmail-service.ts.
import type { SentCopy, SentMailbox } from '../core/domain/ports';
import { gmailService, type GmailMessage, type GmailPart } from './gmail-service';

/** More copies than this of one reference is already "a person must look": the rest need not be read. */
const MAX_COPIES = 20;

function header(message: GmailMessage, name: string): string {
  const found = (message.payload?.headers ?? []).find((h) => h.name.toLowerCase() === name.toLowerCase());
  return found ? found.value : '';
}

/** The text of every text/* part (the reference may be in the plain or the HTML body). */
function bodyText(part: GmailPart | undefined): string {
  if (!part) return '';
  const own = part.body?.data && /^text\//.test(part.mimeType ?? 'text/plain')
    ? Utilities.newBlob(Utilities.base64DecodeWebSafe(part.body.data)).getDataAsString()
    : '';
  return [own, ...(part.parts ?? []).map(bodyText)].filter((text) => text !== '').join('\n');
}

export function createSentMailbox(): SentMailbox {
  return {
    search(query: string): SentCopy[] {
      const api = gmailService();
      const ids: string[] = [];
      let pageToken: string | undefined;
      do {
        const page = api.Users.Messages.list('me', pageToken ? { q: query, maxResults: 100, pageToken } : { q: query, maxResults: 100 });
        for (const message of page.messages ?? []) ids.push(message.id);
        pageToken = page.nextPageToken;
      } while (pageToken && ids.length < MAX_COPIES);
      return ids.slice(0, MAX_COPIES).map((id) => {
        const message = api.Users.Messages.get('me', id, { format: 'full' });
        return {
          id: message.id,
          to: header(message, 'To'),
          subject: header(message, 'Subject'),
          body: bodyText(message.payload),
          sentAt: Number(message.internalDate),
        };
      });
    },
  };
}
