// Gmail's delivery-failure notice for a mail sent to an address marked dead (the mail fault `deadAddress`).
//
// Gmail's format, as public bounce parsers document it: from "Mail Delivery Subsystem <mailer-daemon@googlemail.com>",
// subject "Delivery Status Notification (Failure)", an X-Failed-Recipients header, and a multipart/report
// (report-type=delivery-status) of a human text ("Address not found … Your message wasn't delivered to …"), a
// message/delivery-status part (Final-Recipient, Action: failed, Status: 5.1.1, Diagnostic-Code with Gmail's 550 5.1.1
// text) and the original message (https://github.com/rgl/MailBounceDetector README, with a Gmail 550-5.1.1 example;
// https://github.com/sarff/bounce-parser README: subject "Delivery Status Notification (Failure)", X-Failed-Recipients,
// "Address not found"; the report's parts: RFC 6522 and RFC 3464). How much of the original the Gmail API shows is the
// `bounceOriginal` world (worlds.mjs).
import { worldReading } from '../worlds.mjs';

export const MAILER_DAEMON = 'mailer-daemon@googlemail.com';
export const BOUNCE_SUBJECT = 'Delivery Status Notification (Failure)';
const DEFAULT_DIAGNOSTIC = "550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's " +
  'email address for typos or unnecessary spaces. For more information, go to https://support.google.com/mail/?p=NoSuchUser';

const bare = (address) => (/<([^>]+)>\s*$/.exec(address)?.[1] ?? address).trim().toLowerCase();

/**
 * The inbox entry of the notice for `sent` (an outbox entry) bouncing at `recipient`, in the sender's mailbox,
 * received `fault.delayMs` (default 0) after the send. `fault.diagnostic` replaces Gmail's 550 5.1.1 text.
 */
export function bounceNotice(host, sent, recipient, fault) {
  const receivedAt = new Date(Date.parse(sent.sentAt) + Number(fault.delayMs ?? 0)).toISOString();
  const diagnostic = String(fault.diagnostic ?? DEFAULT_DIAGNOSTIC);
  const address = bare(recipient);
  const human = [
    '** Address not found **',
    '',
    `Your message wasn't delivered to ${address} because the address couldn't be found, or is unable to receive mail.`,
    '',
    'Learn more here: https://support.google.com/mail/?p=NoSuchUser',
    '',
    'The response was:',
    '',
    diagnostic,
  ].join('\n');
  const status = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(diagnostic)?.[1] ?? '5.0.0';
  const deliveryStatus = [
    'Reporting-MTA: dns; googlemail.com',
    `Arrival-Date: ${new Date(Date.parse(sent.sentAt)).toUTCString().replace('GMT', '+0000')}`,
    '',
    `Final-Recipient: rfc822; ${address}`,
    'Action: failed',
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${diagnostic}`,
    `Last-Attempt-Date: ${new Date(Date.parse(receivedAt)).toUTCString().replace('GMT', '+0000')}`,
  ].join('\n');
  return {
    id: `msg-bounce-${host.inbox.length + 1}`,
    kind: 'bounce',
    labels: ['INBOX'],
    owner: sent.from,
    from: `Mail Delivery Subsystem <${MAILER_DAEMON}>`,
    to: sent.from,
    cc: '',
    bcc: '',
    subject: BOUNCE_SUBJECT,
    sentAt: receivedAt, // Gmail's internalDate of a received message: when it arrived
    failedRecipient: address,
    human,
    deliveryStatus,
    original: { id: sent.id, from: sent.from, to: sent.to, subject: sent.subject, body: sent.body, sentAt: sent.sentAt },
    // What search sees: the notice's own text (Gmail indexes the report's human part).
    body: human,
    htmlBody: '',
  };
}

const b64url = (s) => Buffer.from(s, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const rfcDate = (iso) => new Date(Date.parse(iso)).toUTCString().replace('GMT', '+0000');

/** The notice as Users.Messages.get(format full) returns its payload: the report's three parts. */
export function bouncePayload(host, n) {
  const { reading } = worldReading('bounceOriginal', host.worlds.bounceOriginal);
  const originalHeaders = [
    { name: 'From', value: n.original.from },
    { name: 'To', value: n.original.to },
    { name: 'Subject', value: n.original.subject },
    { name: 'Date', value: rfcDate(n.original.sentAt) },
    { name: 'Message-ID', value: `<${n.original.id}@mail.example.com>` },
  ];
  const original = reading === 'inline'
    ? { partId: '2', mimeType: 'message/rfc822', filename: '', headers: [], body: { size: 0 },
      parts: [{ partId: '2.0', mimeType: 'text/plain', filename: '', headers: originalHeaders, body: { size: Buffer.byteLength(n.original.body), data: b64url(n.original.body) } }] }
    : { partId: '2', mimeType: 'message/rfc822', filename: '', headers: [], body: { size: Buffer.byteLength(n.original.body), attachmentId: `att-${n.id}` } };
  return {
    mimeType: 'multipart/report',
    headers: [
      { name: 'From', value: n.from },
      { name: 'To', value: n.to },
      { name: 'Subject', value: n.subject },
      { name: 'Date', value: rfcDate(n.sentAt) },
      { name: 'Message-ID', value: `<${n.id}@mx.google.com>` },
      { name: 'X-Failed-Recipients', value: n.failedRecipient },
      { name: 'Auto-Submitted', value: 'auto-replied' },
      { name: 'Content-Type', value: `multipart/report; boundary="b-${n.id}"; report-type=delivery-status` },
    ],
    parts: [
      { partId: '0', mimeType: 'text/plain', filename: '', headers: [], body: { size: Buffer.byteLength(n.human), data: b64url(n.human) } },
      { partId: '1', mimeType: 'message/delivery-status', filename: '', headers: [], body: { size: Buffer.byteLength(n.deliveryStatus), data: b64url(n.deliveryStatus) } },
      original,
    ],
  };
}
