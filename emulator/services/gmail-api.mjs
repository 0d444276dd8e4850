// Host handlers for the Gmail advanced service (Gmail.Users.Messages.list/get) over the effective user's Sent mail and
// the notices delivered to their inbox (Gmail's delivery-failure notices: bounce-notice.mjs).
//
// Facts emulated, from Google's reference:
// - users.messages.list returns only { id, threadId } per message, `resultSizeEstimate`, and `nextPageToken` when more
//   pages exist; maxResults defaults to 100, at most 500; `q` takes the Gmail search box's syntax and cannot be used
//   with the gmail.metadata scope (https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/list).
// - after:/before: take a date (midnight PST) or seconds since the epoch
//   (https://developers.google.com/workspace/gmail/api/guides/filtering).
// - users.messages.get's `format` is minimal, full (default), raw or metadata; `metadataHeaders` narrows the headers of
//   metadata (https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/get).
// - An advanced service's failure reaches the script as "GoogleJsonResponseException: API call to
//   gmail.users.messages.list failed with error: <message>"
//   (https://developers.google.com/apps-script/guides/services/advanced#how_advanced_services_work).
import { GasError } from '../errors.mjs';
import { matchesQuery } from './mail-query.mjs';
import { sentCopyOf } from './sent-copy.mjs';
import { bouncePayload } from './bounce-notice.mjs';

const AUTH = 'https://www.googleapis.com/auth/';
const LIST_SCOPES = ['https://mail.google.com/', `${AUTH}gmail.modify`, `${AUTH}gmail.readonly`];
const GET_SCOPES = [...LIST_SCOPES, `${AUTH}gmail.metadata`];
const FORMATS = ['minimal', 'full', 'metadata'];

function apiError(method, message) {
  return new GasError(`API call to gmail.users.messages.${method} failed with error: ${message}`, 'GoogleJsonResponseException');
}

/** The manifest's oauthScopes must carry one of the method's scopes (a manifest without oauthScopes grants all). */
function checkScopes(x, method, scopes) {
  const granted = x.host.grantedScopes;
  if (granted && !scopes.some((s) => granted.includes(s))) throw apiError(method, 'Request had insufficient authentication scopes.');
}

function checkUser(x, method, userId) {
  if (userId !== 'me' && String(userId).toLowerCase() !== String(x.st.userEmail).toLowerCase()) throw apiError(method, 'Delegation denied for ' + x.st.userEmail);
}

/**
 * The effective user's Sent folder: what that account sent and Gmail keeps a copy of (less copies deleted from Sent;
 * the `sentCopy` world says whether MailApp's are kept, sent-copy.mjs); `searchable` only those search finds by now.
 */
function sentBy(x, { searchable = false } = {}) {
  const now = x.host.now();
  return x.host.outbox.filter((m) => {
    if (m.from !== x.st.userEmail) return false;
    const copy = sentCopyOf(x.host, m, now);
    return searchable ? copy.searchable : copy.stored;
  });
}

/** The effective user's inbox: the notices that have arrived by now (a notice's sentAt is when it arrives). */
function receivedBy(x) {
  const now = x.host.now();
  return x.host.inbox.filter((m) => m.owner === x.st.userEmail && Date.parse(m.sentAt) <= now);
}

const b64url = (s) => Buffer.from(s, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

function headersOf(m) {
  const h = [
    { name: 'From', value: m.name ? `${m.name} <${m.from}>` : m.from },
    { name: 'To', value: m.to },
    { name: 'Subject', value: m.subject },
    { name: 'Date', value: new Date(Date.parse(m.sentAt)).toUTCString().replace('GMT', '+0000') },
    { name: 'Message-ID', value: `<${m.id}@mail.example.com>` },
  ];
  if (m.cc) h.push({ name: 'Cc', value: m.cc });
  if (m.replyTo) h.push({ name: 'Reply-To', value: m.replyTo });
  return h;
}

function resource(host, m, format, metadataHeaders) {
  const base = { id: m.id, threadId: `thread-${m.id}`, labelIds: m.labels ?? ['SENT'], snippet: m.body.slice(0, 200), internalDate: String(Date.parse(m.sentAt)), sizeEstimate: Buffer.byteLength(m.body) };
  if (format === 'minimal') return base;
  const report = m.kind === 'bounce' ? bouncePayload(host, m) : null;
  let headers = report ? report.headers : headersOf(m);
  if (format === 'metadata') {
    const wanted = (metadataHeaders || []).map((n) => String(n).toLowerCase());
    if (wanted.length) headers = headers.filter((h) => wanted.includes(h.name.toLowerCase()));
    return { ...base, payload: { mimeType: 'text/plain', headers } };
  }
  if (report) return { ...base, payload: report };
  return { ...base, payload: { mimeType: 'text/plain', headers, body: { size: Buffer.byteLength(m.body), data: b64url(m.body) } } };
}

export const gmailApiHandlers = {
  GmailUsersMessages: {
    list: (x, h, [userId, options = {}]) => {
      checkScopes(x, 'list', LIST_SCOPES);
      checkUser(x, 'list', userId);
      x.host.faults.gmailError('list', x.exec);
      const max = options.maxResults === undefined ? 100 : Number(options.maxResults);
      if (!Number.isInteger(max) || max < 1 || max > 500) throw apiError('list', 'Invalid maxResults');
      const now = x.host.now();
      const lag = x.host.faults.gmailLagMs();
      // Newest first, as Gmail lists; a copy still inside the index lag is not found yet.
      const mailbox = [...sentBy(x, { searchable: true }), ...receivedBy(x)].sort((a, b) => Date.parse(a.sentAt) - Date.parse(b.sentAt));
      const found = mailbox.filter((m) => now - Date.parse(m.sentAt) >= lag && (!options.q || matchesQuery(m, options.q, now))).reverse();
      const start = options.pageToken ? Number(options.pageToken) : 0;
      const page = found.slice(start, start + max);
      const out = { resultSizeEstimate: found.length };
      if (page.length) out.messages = page.map((m) => ({ id: m.id, threadId: `thread-${m.id}` }));
      if (start + max < found.length) out.nextPageToken = String(start + max);
      return out;
    },
    get: (x, h, [userId, id, options = {}]) => {
      const format = String(options.format || 'full').toLowerCase();
      checkScopes(x, 'get', format === 'metadata' || format === 'minimal' ? GET_SCOPES : LIST_SCOPES);
      checkUser(x, 'get', userId);
      if (!FORMATS.includes(format)) throw new GasError(`not emulated: Gmail.Users.Messages.get with format ${format}`, 'Error');
      x.host.faults.gmailError('get', x.exec);
      const m = sentBy(x).find((n) => n.id === id) ?? receivedBy(x).find((n) => n.id === id);
      if (!m) throw apiError('get', 'Requested entity was not found.');
      return resource(x.host, m, format, options.metadataHeaders);
    },
  },
};
