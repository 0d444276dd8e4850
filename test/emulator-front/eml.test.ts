// Outbox mails become .eml files that parse back: headers, and a plain + HTML multipart/alternative.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHost, load, type Mail } from './support';

interface Writer { dir: string; write(m: Mail): Promise<string>; flush(): Promise<unknown> }
interface EmlModule {
  createEmlWriter(o: { dataDir: string; from: string }): Writer;
  attachEmlWriter(host: unknown, o: { dataDir: string; from: string }): Writer;
  slugify(s: string): string;
}
const { createEmlWriter, attachEmlWriter, slugify } = await load<EmlModule>('emulator/eml.mjs');

interface Parsed { headers: Record<string, string>; body: string; parts: Parsed[] }

/** A small RFC 5322/2046 reader: enough to check what a mail client would show. */
function parseEml(raw: string): Parsed {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  const body = rest.join('\r\n\r\n');
  const boundary = /boundary="?([^";]+)"?/.exec(headers['content-type'] ?? '')?.[1];
  // The CRLF before a boundary belongs to the boundary, not to the part (RFC 2046 §5.1.1).
  const parts = boundary ? `\r\n${body}`.split(`\r\n--${boundary}`).slice(1, -1).map((p) => parseEml(p.replace(/^\r\n/, ''))) : [];
  return { headers, body, parts };
}
const decodeWord = (s: string) => s.replace(/=\?UTF-8\?Q\?([^?]*)\?=/gi, (_, q: string) =>
  Buffer.from(q.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8'));
const decodeQp = (s: string) => Buffer.from(s.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');

let dataDir: string;
beforeEach(() => { dataDir = mkdtempSync(join(tmpdir(), 'fq-eml-')); });
afterEach(() => { rmSync(dataDir, { recursive: true, force: true }); });

const mail: Mail = { to: 'mina@example.com', cc: 'tutor@example.com', bcc: 'audit@example.com', replyTo: 'staff@example.com',
  name: 'Writing Desk', subject: 'Your feedback — Café essay', body: 'Dear Mina,\nThanks! ünïcode', htmlBody: '<p>Dear <b>Mina</b></p>',
  sentAt: '2026-11-20T10:00:00.000Z', executionId: 'x42', via: 'MailApp' };

describe('.eml outbox files', () => {
  it('writes <dataDir>/outbox/NNNN-<slug>.eml with the headers a mail client shows', async () => {
    const file = await createEmlWriter({ dataDir, from: 'owner@example.com' }).write(mail);
    expect(file).toBe(join(dataDir, 'outbox', '0001-your-feedback-cafe-essay.eml'));
    const { headers } = parseEml(readFileSync(file, 'utf8'));
    expect(headers.from).toBe('Writing Desk <owner@example.com>');
    expect(headers.to).toBe('mina@example.com');
    expect(headers.cc).toBe('tutor@example.com');
    expect(headers.bcc).toBe('audit@example.com');
    expect(headers['reply-to']).toBe('staff@example.com');
    expect(decodeWord(headers.subject)).toBe('Your feedback — Café essay');
    expect(new Date(headers.date).toISOString()).toBe('2026-11-20T10:00:00.000Z');
    expect(headers['x-formqueue-execution']).toBe('x42');
    expect(headers['mime-version']).toBe('1.0');
  });

  it('carries the plain body and the HTML body as multipart/alternative', async () => {
    const eml = parseEml(readFileSync(await createEmlWriter({ dataDir, from: 'owner@example.com' }).write(mail), 'utf8'));
    expect(eml.headers['content-type']).toMatch(/^multipart\/alternative;/);
    expect(eml.parts.map((p) => p.headers['content-type'])).toEqual(['text/plain; charset=utf-8', 'text/html; charset=utf-8']);
    expect(decodeQp(eml.parts[0].body).replace(/\r\n/g, '\n')).toBe('Dear Mina,\nThanks! ünïcode');
    expect(eml.parts[1].body.trim()).toBe('<p>Dear <b>Mina</b></p>');
  });

  it('a mail without htmlBody is a single text/plain message', async () => {
    const file = await createEmlWriter({ dataDir, from: 'owner@example.com' }).write({ to: 'a@example.com', subject: 'Plain', body: 'just text', sentAt: mail.sentAt });
    const eml = parseEml(readFileSync(file, 'utf8'));
    expect(eml.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(eml.headers.from).toBe('owner@example.com');
    expect(eml.body.trim()).toBe('just text');
  });

  it('uses the mail\'s own from address and carries attachments', async () => {
    const file = await createEmlWriter({ dataDir, from: 'owner@example.com' }).write({ ...mail, name: '', from: 'deployer@example.com',
      attachments: [{ name: 'notes.txt', contentType: 'text/plain', data: Buffer.from('attached!').toString('base64') }] });
    const eml = parseEml(readFileSync(file, 'utf8'));
    expect(eml.headers.from).toBe('deployer@example.com');
    expect(eml.headers['content-type']).toMatch(/^multipart\/mixed;/);
    const attachment = eml.parts[1];
    expect(attachment.headers['content-disposition']).toBe('attachment; filename=notes.txt');
    expect(Buffer.from(attachment.body, 'base64').toString()).toBe('attached!');
  });

  it('numbers files in send order and keeps counting after a restart', async () => {
    mkdirSync(join(dataDir, 'outbox'));
    writeFileSync(join(dataDir, 'outbox', '0007-old.eml'), '');
    const writer = createEmlWriter({ dataDir, from: 'owner@example.com' });
    await Promise.all(['a', 'b', 'c'].map((s) => writer.write({ ...mail, subject: s })));
    expect(readdirSync(join(dataDir, 'outbox')).sort()).toEqual(['0007-old.eml', '0008-a.eml', '0009-b.eml', '0010-c.eml']);
  });

  it('follows the host\'s mail events', async () => {
    const host = new FakeHost();
    const writer = attachEmlWriter(host, { dataDir, from: 'owner@example.com' });
    host.sendMail(mail);
    host.sendMail({ ...mail, subject: 'Second' });
    await writer.flush();
    expect(readdirSync(writer.dir).sort()).toEqual(['0001-your-feedback-cafe-essay.eml', '0002-second.eml']);
  });

  it('slugs are short, ascii and never empty', () => {
    expect(slugify('Ünïcode: ¡Hola! / über   spaces')).toBe('unicode-hola-uber-spaces');
    expect(slugify('!!!')).toBe('no-subject');
    expect(slugify('x'.repeat(200)).length).toBeLessThanOrEqual(48);
  });
});
