// Contract tests for the mail fault deadAddress: the mail goes, and Gmail's delivery-failure notice reaches the sender's
// inbox in Gmail's format, with as much of the original as the bounceOriginal world says.
import { afterEach, describe, expect, it } from 'vitest';
import { WORLD_SWITCHES } from '../../emulator/worlds.mjs';
import { disposeHost, makeHost } from './helpers';

let host: any;
afterEach(() => disposeHost(host));

const run = async (fn: string, args: unknown[] = [], opts: Record<string, unknown> = { kind: 'trigger' }) => {
  const e = await host.run(fn, args, opts);
  if (e.status !== 'ok') throw new Error(`${fn}: ${e.status} ${e.error?.message}`);
  return e.value;
};
const decode = (data: string) => Buffer.from(data.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
const MINUTE = 60_000;

describe('mail fault deadAddress', () => {
  it('the mail goes, and the sender\'s inbox gets "Delivery Status Notification (Failure)" from mailer-daemon@googlemail.com: found by from:, not by in:sent', async () => {
    host = makeHost('gmail-api');
    host.faults.add({ target: 'mail', deadAddress: 'Gone@Example.com' });
    await run('send', ['gone@example.com', 'Reply FQ-AAAAAA', 'Hello\nReference: FQ-AAAAAA']);
    await run('send', ['alive@example.com', 'Reply FQ-BBBBBB', 'Hello']);
    expect(host.outbox).toHaveLength(2);
    expect(host.inbox).toHaveLength(1);
    const listed = (await run('list', ['from:mailer-daemon'])).ok;
    expect(listed.messages).toHaveLength(1);
    expect((await run('list', ['in:sent from:mailer-daemon'])).ok).toEqual({ resultSizeEstimate: 0 });
    expect((await run('list', ['in:inbox subject:"Delivery Status Notification"'])).ok.messages).toHaveLength(1);
    const notice = (await run('get', [listed.messages[0].id, 'full'])).ok;
    const header = (name: string) => notice.payload.headers.find((h: any) => h.name === name)?.value;
    expect(header('From')).toBe('Mail Delivery Subsystem <mailer-daemon@googlemail.com>');
    expect(header('Subject')).toBe('Delivery Status Notification (Failure)');
    expect(header('X-Failed-Recipients')).toBe('gone@example.com');
    expect(notice.labelIds).toEqual(['INBOX']);
    expect(notice.payload.mimeType).toBe('multipart/report');
    const [human, status, original] = notice.payload.parts;
    expect(decode(human.body.data)).toContain("Your message wasn't delivered to gone@example.com because the address couldn't be found");
    expect(status.mimeType).toBe('message/delivery-status');
    expect(decode(status.body.data)).toMatch(/Final-Recipient: rfc822; gone@example.com\nAction: failed\nStatus: 5\.1\.1\nDiagnostic-Code: smtp; 550 5\.1\.1/);
    // bounceOriginal=inline (the default): the original's text is readable, its Reference with it.
    expect(original.mimeType).toBe('message/rfc822');
    expect(decode(original.parts[0].body.data)).toContain('Reference: FQ-AAAAAA');
  });

  it('bounceOriginal=attachment: the original is an attachment id only, nothing of its text', async () => {
    expect(WORLD_SWITCHES.find((s) => s.key === 'bounceOriginal')!.readings.map((r) => r.value)).toEqual(['inline', 'attachment']);
    host = makeHost('gmail-api', { worlds: { bounceOriginal: 'attachment' } });
    host.faults.add({ target: 'mail', deadAddress: 'gone@example.com' });
    await run('send', ['gone@example.com', 'Reply', 'Reference: FQ-AAAAAA']);
    const id = (await run('list', ['from:mailer-daemon'])).ok.messages[0].id;
    const original = (await run('get', [id, 'full'])).ok.payload.parts[2];
    expect(original.body.attachmentId).toBeTruthy();
    expect(original.parts).toBeUndefined();
    expect(JSON.stringify(original)).not.toContain('FQ-AAAAAA');
  });

  it('delayMs: the notice arrives that long after the send, not before', async () => {
    host = makeHost('gmail-api');
    host.faults.add({ target: 'mail', deadAddress: 'gone@example.com', delayMs: 5 * MINUTE, diagnostic: '552 5.2.2 The recipient\'s inbox is out of storage space.' });
    await run('send', ['gone@example.com', 'Reply', 'x']);
    expect((await run('list', ['from:mailer-daemon'])).ok).toEqual({ resultSizeEstimate: 0 });
    host.advanceClock(5 * MINUTE);
    const id = (await run('list', ['from:mailer-daemon'])).ok.messages[0].id;
    const status = (await run('get', [id, 'full'])).ok.payload.parts[1];
    expect(decode(status.body.data)).toContain('Status: 5.2.2');
  });
});
