// The deploying account's Sent folder through the Gmail advanced service (RECONCILE_SENT_MAIL only): search and read.
//
// Gmail.Users.Messages.list answers ids only; .get(format full) has the headers and the body parts
// (https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/list, …/get). The service exists
// only when appsscript.json enables it (https://developers.google.com/apps-script/guides/services/advanced).
import type { SentCopy, SentMailbox } from '../core/ports';

interface GmailPart {
  mimeType?: string;
  headers?: { name: string; value: string }[];
  body?: { data?: string };
  parts?: GmailPart[];
}
interface GmailMessage {
  id: string;
  internalDate?: string;
  payload?: GmailPart;
}
interface GmailAdvanced {
  Users: {
    Messages: {
      list(userId: string, options: { q: string; maxResults?: number; pageToken?: string }): { messages?: { id: string }[]; nextPageToken?: string };
      get(userId: string, id: string, options: { format: string }): GmailMessage;
    };
  };
}
declare const Gmail: GmailAdvanced | undefined;

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
      if (typeof Gmail === 'undefined') {
        throw new Error('the Gmail advanced service is not enabled in appsscript.json (dependencies.enabledAdvancedServices)');
      }
      const api = Gmail;
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
