// The Gmail advanced service as formqueue reads it (the Sent check and the bounce check): the shapes it answers, and the service itself.
//
// users.messages.list answers ids only; .get(format full) has the headers and the body parts
// (https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/list, …/get). The service exists
// only when appsscript.json enables it (https://developers.google.com/apps-script/guides/services/advanced).

export interface GmailPart {
  mimeType?: string;
  headers?: { name: string; value: string }[];
  body?: { data?: string };
  parts?: GmailPart[];
}

export interface GmailMessage {
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

/** The service, or an error naming the fix when appsscript.json does not enable it. */
export function gmailService(): GmailAdvanced {
  if (typeof Gmail === 'undefined') throw new Error('the Gmail advanced service is not enabled in appsscript.json (dependencies.enabledAdvancedServices)');
  return Gmail;
}
