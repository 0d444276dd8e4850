// Writes each mail of the runtime's outbox as a standard .eml file (<dataDir>/outbox/NNNN-<slug>.eml) for any mail client to open.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';

/**
 * @typedef {{ to: string, cc?: string, bcc?: string, replyTo?: string, name?: string, subject: string, body: string,
 *   htmlBody?: string, sentAt?: string|Date, executionId?: string, via?: string, from?: string,
 *   attachments?: { name: string, contentType: string, data: string }[] }} OutboxMail  attachment data is base64
 */

/**
 * Builds the MIME message of one outbox mail: plain text, plus an HTML alternative when the script gave htmlBody.
 * @param {OutboxMail} mail @param {{ from: string, messageId?: string }} options
 * @returns {Promise<Buffer>}
 */
export function composeEml(mail, { from: activeUser, messageId }) {
  const from = mail.from || activeUser;
  const composer = new MailComposer({
    // MailApp sends from the script's effective user; `name` only changes the display name [GAS-MAIL].
    from: mail.name ? { name: mail.name, address: from } : from,
    to: mail.to,
    cc: mail.cc || undefined,
    bcc: mail.bcc || undefined,
    replyTo: mail.replyTo || undefined,
    subject: mail.subject ?? '',
    text: mail.body ?? '',
    html: mail.htmlBody || undefined,
    date: mail.sentAt ? new Date(mail.sentAt) : new Date(),
    messageId,
    attachments: (mail.attachments ?? []).map((a) => ({ filename: a.name, contentType: a.contentType, content: a.data, encoding: 'base64' })),
    headers: {
      ...(mail.executionId ? { 'X-Formqueue-Execution': mail.executionId } : {}),
      ...(mail.via ? { 'X-Formqueue-Via': mail.via } : {}),
    },
  });
  const compiled = composer.compile();
  // Bcc is dropped from real headers; a local outbox keeps it so a reader can see who was copied.
  compiled.keepBcc = true;
  return new Promise((resolve, reject) => compiled.build((err, message) => (err ? reject(err) : resolve(message))));
}

/** A short file-name slug of a subject. @param {string} subject */
export function slugify(subject) {
  const slug = String(subject ?? '').normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48).replace(/-+$/, '');
  return slug || 'no-subject';
}

/**
 * Writes outbox mails as .eml files, numbered after the highest NNNN already in the folder so restarts keep counting.
 * @param {{ dataDir: string, from: string }} options
 */
export function createEmlWriter({ dataDir, from }) {
  const dir = join(dataDir, 'outbox');
  mkdirSync(dir, { recursive: true });
  let next = 1 + Math.max(0, ...readdirSync(dir).map((f) => Number(/^(\d{4,})-/.exec(f)?.[1] ?? 0)));
  /** @type {Promise<unknown>} */
  let queue = Promise.resolve();
  return {
    dir,
    /**
     * Queues one mail; writes happen one at a time so numbers follow the outbox order.
     * @param {OutboxMail} mail @returns {Promise<string>} the file written
     */
    write(mail) {
      const n = next++;
      const file = join(dir, `${String(n).padStart(4, '0')}-${slugify(mail.subject)}.eml`);
      const done = queue.then(async () => {
        const eml = await composeEml(mail, { from, messageId: `<formqueue-${n}-${mail.executionId ?? 'local'}@formqueue.local>` });
        writeFileSync(file, eml);
        return file;
      });
      queue = done.catch(() => undefined);
      return done;
    },
    /** Resolves when every queued mail is on disk. */
    flush() { return queue; },
  };
}

/**
 * Writes every mail the host sends from now on; a failed write is reported, never thrown into the host.
 * @param {any} host @param {{ dataDir: string, from: string, onError?: (err: Error) => void }} options
 */
export function attachEmlWriter(host, { dataDir, from, onError = (err) => console.error(`[eml] ${err.message}`) }) {
  const writer = createEmlWriter({ dataDir, from });
  host.on('mail', (/** @type {OutboxMail} */ mail) => { writer.write(mail).catch(onError); });
  return writer;
}
