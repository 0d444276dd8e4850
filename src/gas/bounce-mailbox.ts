// The running account's inbox through the Gmail advanced service (RECONCILE_BOUNCES only): Gmail's delivery-failure notices.
//
// users.messages.list answers ids only; .get(format full) has the headers and the parts
// (https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/list, …/get). A failure notice is a
// multipart/report: a human text, a message/delivery-status part, and the original message, whose text Gmail may show
// inline or only as an attachment id (the runtime's `bounceOriginal` world): every part with body.data is read, with the
// headers of nested parts (the original's Subject and Message-ID), so whatever Gmail shows can be matched.
import type { BounceMailbox, BounceNotice } from '../core/domain/ports';
import { gmailService, type GmailPart } from './gmail-service';

/** One page: a check reads at most 20 notices (bounces.ts), and a later check picks up the rest. */
const PAGE = 100;

function header(part: GmailPart | undefined, name: string): string {
  const found = (part?.headers ?? []).find((h) => h.name.toLowerCase() === name.toLowerCase());
  return found ? found.value : '';
}

/** The readable text of a part and its sub-parts: nested headers as "Name: value" lines, then each body's text. */
function partText(part: GmailPart | undefined, top: boolean): string {
  if (!part) return '';
  const lines: string[] = [];
  if (!top) for (const h of part.headers ?? []) lines.push(`${h.name}: ${h.value}`);
  // Text, the delivery-status fields (message/delivery-status) and headers-only originals (text/rfc822-headers) are text.
  if (part.body?.data && /^(text\/|message\/delivery-status)/.test(part.mimeType ?? 'text/plain')) {
    lines.push(Utilities.newBlob(Utilities.base64DecodeWebSafe(part.body.data)).getDataAsString());
  }
  for (const sub of part.parts ?? []) lines.push(partText(sub, false));
  return lines.filter((line) => line !== '').join('\n');
}

export function createBounceMailbox(): BounceMailbox {
  return {
    list(query: string): string[] {
      return (gmailService().Users.Messages.list('me', { q: query, maxResults: PAGE }).messages ?? []).map((message) => message.id);
    },
    read(id: string): BounceNotice {
      const message = gmailService().Users.Messages.get('me', id, { format: 'full' });
      return {
        id: message.id,
        receivedAt: Number(message.internalDate),
        from: header(message.payload, 'From'),
        subject: header(message.payload, 'Subject'),
        failedRecipients: header(message.payload, 'X-Failed-Recipients'),
        text: partText(message.payload, true),
      };
    },
  };
}
