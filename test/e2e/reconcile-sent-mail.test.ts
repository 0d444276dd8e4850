// RECONCILE_SENT_MAIL end to end: the bundle built with --reconcile-sent-mail settles a SENDING row from the Sent folder
// (Gmail advanced service in the runtime): confirmed once, safe to resend, mailed twice, and Gmail's index lag; and a row
// parked in NEEDS_REVIEW by the stale sweep before the setting was on.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestFor } from '../../scripts/manifest.mjs';
import { BUNDLE_DIR, runtimePerFile, submission, type QueueObject, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const STAFF = 'staff@example.com';
const DIRTY = 'FQ_DIRTY';
const MINUTE = 60_000;

let bundleDir: string;
beforeAll(() => {
  // The same Code.js with the manifest `node scripts/build.mjs --reconcile-sent-mail` writes.
  bundleDir = mkdtempSync(join(tmpdir(), 'fq-reconcile-'));
  cpSync(join(BUNDLE_DIR, 'Code.js'), join(bundleDir, 'Code.js'));
  const manifest = manifestFor(JSON.parse(readFileSync(join(BUNDLE_DIR, 'appsscript.json'), 'utf8')), { reconcileSentMail: true });
  writeFileSync(join(bundleDir, 'appsscript.json'), JSON.stringify(manifest));
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

describe('RECONCILE_SENT_MAIL in the local runtime', () => {
  let rt: Runtime;

  const start = async (props: Record<string, string> = {}) => {
    rt = await freshRuntime({ props: { STALE_SENDING_MINUTES: '7', RECONCILE_SENT_MAIL: 'true', ...props }, host: { bundleDir } });
  };
  const delivery = (n: number) => submission(n, (body) => {
    body.form_response.answers[1].email = `r${n}@example.com`;
  });
  const respondentMails = (): any[] => rt.host.outbox.filter((mail: any) => mail.to !== STAFF);
  const row = (eventId: string): QueueObject => rt.queue().find((r) => r.event_id === eventId) as QueueObject;
  const logDetails = (eventId: string): string[] => rt.sheet('Log').rows.filter((cells) => cells[1] === eventId).map((cells) => String(cells[5]));
  const tick = async () => {
    rt.host.properties.set(DIRTY, String(rt.host.now()));
    const exec = await rt.run('processQueue');
    expect(exec.status, JSON.stringify(exec.error)).toBe('ok');
    return exec;
  };
  /** Delivers one submission and runs processQueue with a mail fault that kills the run at the send. */
  const crashAtSend = async (n: number, fault: Record<string, unknown>) => {
    const body = delivery(n);
    await rt.deliver(body);
    rt.host.faults.add({ target: 'mail', ...fault });
    rt.host.properties.set(DIRTY, String(rt.host.now()));
    const crashed = await rt.run('processQueue');
    expect(crashed.status).toBe('crash');
    const id = JSON.parse(body).event_id as string;
    expect(row(id)).toMatchObject({ status: 'SENDING', sent_at: '' });
    return id;
  };

  const mailsTo = (id: string): any[] => rt.host.outbox.filter((mail: any) => mail.to === row(id).recipient);
  /** The row is SENT with one mail to its respondent, and two hours of ticks later it still has just that one. */
  const expectSentOnceForGood = async (id: string) => {
    expect(row(id).status).toBe('SENT');
    expect(mailsTo(id)).toHaveLength(1);
    rt.host.advanceClock(120 * MINUTE);
    await tick();
    expect(row(id).status).toBe('SENT');
    expect(mailsTo(id)).toHaveLength(1);
  };
  /**
   * Another submission delivered and answered now, at least 7 minutes after the claim: its copy in Sent shows that
   * Sent holds mail sent after the claim, the proof a "no copy" needs (sent-check.ts laterReply). The tick makes any
   * look that is due as well.
   */
  const answerAnother = async (n: number) => {
    const body = delivery(n);
    await rt.deliver(body);
    await tick();
    expect(row(JSON.parse(body).event_id).status).toBe('SENT');
  };

  it('a crash after the send is confirmed SENT from Sent at the first look, sent_at from the message, with no second mail', async () => {
    await start();
    const id = await crashAtSend(5, { crashAfterSend: 1 });
    expect(respondentMails()).toHaveLength(1);
    await tick();
    expect(row(id).status).toBe('SENDING'); // not before STALE_SENDING_MINUTES
    rt.host.advanceClock(8 * MINUTE);
    await tick();
    expect(Date.parse(String(row(id).sent_at))).toBe(Date.parse(respondentMails()[0].sentAt));
    // The line is the send ledger's record of mail_ref and sent_at too (send-ledger.ts).
    expect(logDetails(id)).toContainEqual(expect.stringMatching(new RegExp(`^confirmed in Sent \\(message id ${respondentMails()[0].id}\\) \\[ledger: mail_ref=FQ-\\w+ sent_at=`)));
    await expectSentOnceForGood(id);
  });

  it('a staff member\'s Process now that dies right after the send is never called "safe to resend" from the owner\'s Sent folder: the row names the staff member\'s mailbox, and nothing is mailed twice', async () => {
    await start();
    const body = delivery(9);
    await rt.deliver(body);
    const id = JSON.parse(body).event_id as string;
    rt.host.faults.add({ target: 'mail', crashAfterSend: 1 });
    const crashed = await rt.host.run('menuProcessNow', [], { kind: 'menu', user: STAFF });
    expect(crashed.status).toBe('crash');
    expect(row(id)).toMatchObject({ status: 'SENDING', sent_at: '' });
    expect(rt.host.outbox.filter((mail: any) => mail.to === 'r9@example.com').map((mail: any) => mail.from)).toEqual([STAFF]);
    // The trigger (the owner's) comes back after the claim went stale, and after the second look would be due.
    for (const minutes of [8, 46, 46]) {
      rt.host.advanceClock(minutes * MINUTE);
      await tick();
    }
    expect(row(id).status).toBe('NEEDS_REVIEW');
    expect(String(row(id).error)).toContain(`in ${STAFF}'s Sent folder`);
    expect(String(row(id).error)).not.toContain('safe to resend');
    expect(rt.host.outbox.filter((mail: any) => mail.to === 'r9@example.com')).toHaveLength(1);
  });

  it('a crash before the send: no copy at either look ends "safe to resend" in NEEDS_REVIEW, and nothing is mailed', async () => {
    await start();
    const id = await crashAtSend(6, { crashBeforeSend: 1 });
    rt.host.advanceClock(8 * MINUTE);
    await answerAnother(106);
    expect(row(id).status).toBe('SENDING');
    expect(String(row(id).error)).toMatch(/^SENT_CHECK: no copy in Sent yet at /);
    rt.host.advanceClock(30 * MINUTE);
    await tick();
    expect(row(id).status).toBe('SENDING'); // the second look waits 45 minutes
    rt.host.advanceClock(16 * MINUTE);
    await tick();
    expect(row(id)).toMatchObject({ status: 'NEEDS_REVIEW', error: 'SENT_CHECK: no copy in Sent: safe to resend — set PENDING' });
    expect(mailsTo(id)).toHaveLength(0);
  });

  it('a crash before the send with no later reply in Sent ends with a person, "no proof in Sent", even with RECONCILE_RESEND', async () => {
    await start({ RECONCILE_RESEND: 'true' });
    const id = await crashAtSend(16, { crashBeforeSend: 1 });
    rt.host.advanceClock(8 * MINUTE);
    await tick();
    rt.host.advanceClock(46 * MINUTE);
    await tick();
    expect(row(id)).toMatchObject({ status: 'NEEDS_REVIEW', error: expect.stringMatching(/^SENT_CHECK: no proof in Sent either way/) });
    expect(mailsTo(id)).toHaveLength(0);
  });

  it('with RECONCILE_RESEND, a crash before the send ends with exactly one mail, and a second crash is never resent', async () => {
    await start({ RECONCILE_RESEND: 'true' });
    const id = await crashAtSend(7, { crashBeforeSend: 1 });
    rt.host.advanceClock(8 * MINUTE);
    await answerAnother(107);
    rt.host.advanceClock(46 * MINUTE);
    await tick();
    await expectSentOnceForGood(id);
  });

  it('the one resend is never repeated: a second crash before the send ends with a person', async () => {
    await start({ RECONCILE_RESEND: 'true' });
    const id = await crashAtSend(8, { crashBeforeSend: 1 });
    rt.host.advanceClock(8 * MINUTE);
    await answerAnother(108);
    rt.host.faults.add({ target: 'mail', crashBeforeSend: 1 });
    rt.host.advanceClock(46 * MINUTE);
    rt.host.properties.set(DIRTY, String(rt.host.now()));
    expect((await rt.run('processQueue')).status).toBe('crash'); // resent, and the resend dies too
    expect(row(id).status).toBe('SENDING');
    rt.host.advanceClock(8 * MINUTE);
    await answerAnother(118);
    rt.host.advanceClock(46 * MINUTE);
    await tick();
    expect(row(id)).toMatchObject({ status: 'NEEDS_REVIEW', error: 'SENT_CHECK: no copy in Sent: safe to resend — set PENDING' });
    expect(mailsTo(id)).toHaveLength(0);
  });

  it('two copies in Sent → NEEDS_REVIEW "mailed 2 times" with both ids', async () => {
    await start();
    const id = await crashAtSend(9, { crashAfterSend: 1 });
    const first = respondentMails()[0];
    // A second copy of the same mail in Sent (as if another execution had sent it as well).
    rt.host.outbox.push({ ...first, id: 'msg-copy' });
    rt.host.advanceClock(8 * MINUTE);
    await tick();
    expect(row(id).status).toBe('NEEDS_REVIEW');
    expect(String(row(id).error)).toBe(`SENT_CHECK: mailed 2 times (message ids msg-copy, ${first.id}); a person must look`);
  });

  it('index lag hides the copy at the first look but not at the second', async () => {
    await start();
    rt.host.faults.add({ target: 'gmail', lagMs: 30 * MINUTE });
    const id = await crashAtSend(10, { crashAfterSend: 1 });
    rt.host.advanceClock(8 * MINUTE);
    await tick();
    expect(row(id).status).toBe('SENDING');
    expect(String(row(id).error)).toMatch(/no copy in Sent yet/);
    rt.host.advanceClock(46 * MINUTE);
    await tick();
    await expectSentOnceForGood(id);
  });

  /** A crash at the send with the check off: the stale sweep parks the row in NEEDS_REVIEW; then the check is turned on. */
  const parkedThenOn = async (n: number, fault: Record<string, unknown>, on: Record<string, string> = {}) => {
    await start({ RECONCILE_SENT_MAIL: 'false' });
    const id = await crashAtSend(n, fault);
    rt.host.advanceClock(8 * MINUTE);
    await tick();
    expect(row(id)).toMatchObject({ status: 'NEEDS_REVIEW', sent_at: '' });
    expect(String(row(id).error)).toMatch(/^STALE_SENDING: /);
    rt.host.properties.set('RECONCILE_SENT_MAIL', 'true');
    for (const [key, value] of Object.entries(on)) rt.host.properties.set(key, value);
    return id;
  };

  it('a row the stale sweep parked before the check was on is confirmed SENT from Sent once it is on, with no second mail', async () => {
    const id = await parkedThenOn(12, { crashAfterSend: 1 });
    await tick();
    expect(logDetails(id)).toContainEqual(expect.stringMatching(new RegExp(`^confirmed in Sent \\(message id ${respondentMails()[0].id}\\) \\[ledger: `)));
    await expectSentOnceForGood(id);
  });

  it('a parked row with no copy at either look gets "safe to resend"; with RECONCILE_RESEND it is mailed exactly once', async () => {
    const id = await parkedThenOn(13, { crashBeforeSend: 1 }, { RECONCILE_RESEND: 'true' });
    await answerAnother(113);
    expect(row(id).status).toBe('NEEDS_REVIEW');
    expect(String(row(id).error)).toMatch(/^SENT_CHECK: no copy in Sent yet at /);
    rt.host.advanceClock(46 * MINUTE);
    await tick();
    await expectSentOnceForGood(id);
  });

  it('a parked row with no copy at either look, resend off, ends "safe to resend" and nothing is mailed', async () => {
    const id = await parkedThenOn(14, { crashBeforeSend: 1 });
    await answerAnother(114);
    rt.host.advanceClock(46 * MINUTE);
    await tick();
    expect(row(id)).toMatchObject({ status: 'NEEDS_REVIEW', error: 'SENT_CHECK: no copy in Sent: safe to resend — set PENDING' });
    expect(mailsTo(id)).toHaveLength(0);
  });

  it('a Gmail error changes nothing and raises SENT_CHECK_FAILED; the row is settled once Gmail answers', async () => {
    await start();
    const id = await crashAtSend(11, { crashAfterSend: 1 });
    rt.host.faults.add({ target: 'gmail', error: 'Backend Error', count: 1 });
    rt.host.advanceClock(8 * MINUTE);
    await tick();
    expect(row(id)).toMatchObject({ status: 'SENDING', error: '' });
    expect(rt.host.properties.get('FQ_INCIDENT_SENT_CHECK_FAILED')).not.toBeNull();
    await tick();
    expect(row(id).status).toBe('SENT');
  });
});
