// Host handlers for MailApp and GmailApp: recipient quota per day, Apps Script's send errors, the outbox, GmailApp.search.
import { GasError, KillExecution } from '../errors.mjs';
import { matchesQuery } from './mail-query.mjs';
import { MAIL_QUOTA_EXCEEDED, spend, usedIn } from '../daily-quotas.mjs';
import { sentCopyOf } from './sent-copy.mjs';
import { bounceNotice } from './bounce-notice.mjs';

const EMAIL_RE = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;
const BODY_MAX_BYTES = 200 * 1024; // [GAS-QUOTA] consumer: 200 KB per message
const RECIPIENTS_PER_MESSAGE = 50; // [GAS-QUOTA]

const split = (s) => (s ? String(s).split(',').map((a) => a.trim()).filter(Boolean) : []);

/**
 * Recipients left for `user` in their quota window, counted as to+cc+bcc addresses [GAS-MAIL]; a mail fault can force
 * the value. Quotas are per user ("Email recipients per day", counted against the account the script runs as) and
 * reset 24 hours after the first request, not at midnight (https://developers.google.com/apps-script/guides/services/quotas):
 * a staff member's menu run spends their own quota, the web app and the deployer's triggers the deployer's.
 */
export function remainingQuota(host, user = host.owner) {
  const real = Math.max(0, host.mail.quota - usedIn(host.mail.users, user, host.now()));
  const forced = host.faults.mailQuota();
  return forced === null ? real : Math.min(real, forced);
}

function send(x, via, msg) {
  const host = x.host;
  const to = split(msg.to), cc = split(msg.cc), bcc = split(msg.bcc);
  const all = [...to, ...cc, ...bcc];
  if (all.length === 0) throw new GasError('Failed to send email: no recipient');
  for (const a of all) {
    const bare = /<([^>]+)>\s*$/.exec(a)?.[1] ?? a;
    if (!EMAIL_RE.test(bare)) throw new GasError(`Invalid email: ${a}`);
  }
  if (msg.replyTo && !EMAIL_RE.test(String(msg.replyTo).trim())) throw new GasError(`Invalid email: ${msg.replyTo}`);
  if (all.length > RECIPIENTS_PER_MESSAGE) throw new GasError('Limit Exceeded: Email Recipients Per Message.');
  if (String(msg.subject ?? '').length > 250) throw new GasError('Argument too large: subject');
  if (Buffer.byteLength(String(msg.body ?? '')) + Buffer.byteLength(String(msg.htmlBody ?? '')) > BODY_MAX_BYTES) throw new GasError('Limit Exceeded: Email Body Size.');
  if (remainingQuota(host, x.st.userEmail) < all.length) throw new GasError(MAIL_QUOTA_EXCEEDED);
  if (host.faults.takeCrashBeforeSend(x.exec)) {
    throw new KillExecution('crash', { name: 'Exception', message: 'Execution killed right before a send (injected fault mail.crashBeforeSend)' });
  }
  const entry = {
    to: to.join(', '), cc: cc.join(', '), bcc: bcc.join(', '), replyTo: msg.replyTo ? String(msg.replyTo) : '', name: msg.name ? String(msg.name) : '',
    from: x.st.userEmail, subject: String(msg.subject ?? ''), body: String(msg.body ?? ''), htmlBody: msg.htmlBody ? String(msg.htmlBody) : '',
    attachments: (msg.attachments || []).filter((b) => b && b.__ref === 'Blob').map((b) => ({ name: b.h.name, contentType: b.h.contentType, data: Buffer.from(b.h.bytes.map((n) => n & 255)).toString('base64') })),
    noReply: !!msg.noReply, sentAt: new Date(host.now()).toISOString(), executionId: x.exec.id, via, id: `msg-${host.outbox.length + 1}`,
  };
  spend(host.mail.users, x.st.userEmail, host.now(), all.length); // the first send opens the user's 24-hour window
  host.outbox.push(entry);
  x.exec.mailsSent += 1;
  host.emit('mail', entry);
  // A dead address (the mail fault deadAddress) takes the mail and answers with Gmail's failure notice to the sender.
  for (const a of all) {
    const bare = /<([^>]+)>\s*$/.exec(a)?.[1] ?? a;
    const dead = host.faults.deadAddress(bare, x.exec);
    if (dead) host.inbox.push(bounceNotice(host, entry, bare, dead));
  }
  host.markDirty();
  if (host.faults.takeCrashAfterSend(x.exec)) {
    throw new KillExecution('crash', { name: 'Exception', message: 'Execution killed right after a send (injected fault mail.crashAfterSend)' });
  }
}

export const mailHandlers = {
  MailApp: {
    sendEmail: (x, h, [msg]) => send(x, 'MailApp', msg),
    getRemainingDailyQuota: (x) => remainingQuota(x.host, x.st.userEmail),
  },
  GmailApp: {
    sendEmail: (x, h, [msg]) => send(x, 'GmailApp', msg),
    search: (x, h, [query, start = 0, max = 500]) => {
      // The effective user's mailbox: what that account sent, as far as search finds its copies (the `sentCopy` world).
      const now = x.host.now();
      const found = x.host.outbox.filter((m) => m.from === x.st.userEmail && sentCopyOf(x.host, m, now).searchable && matchesQuery(m, query, now)).reverse().slice(start, start + max);
      return found.map((m) => ({
        __ref: 'GmailThread',
        h: { id: `thread-${m.id}`, messages: [{ id: m.id, subject: m.subject, to: m.to, cc: m.cc, bcc: m.bcc, from: m.from, replyTo: m.replyTo, plainBody: m.body, htmlBody: m.htmlBody || m.body, date: new Date(Date.parse(m.sentAt)) }] },
      }));
    },
  },
};
