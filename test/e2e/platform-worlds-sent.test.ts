// The Sent check (RECONCILE_SENT_MAIL, with RECONCILE_RESEND) in every reading of the `sentCopy` world: MailApp's copy
// in Sent at once, found by search only later, or never kept (emulator/worlds.mjs). Google documents none of them
// (https://developers.google.com/apps-script/reference/mail/mail-app says nothing of a copy in Sent). In each, a run
// that dies at the send never ends with the reply mailed twice, and never with a submission nobody is told of: it is
// SENT with one mail, or waits for a person in NEEDS_REVIEW with the reason.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestFor } from '../../scripts/manifest.mjs';
import { BUNDLE_DIR, runtimePerFile, submission, type QueueObject, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const DIRTY = 'FQ_DIRTY';
const MINUTE = 60_000;

let bundleDir: string;
beforeAll(() => {
  // The same Code.js with the manifest `node scripts/build.mjs --reconcile-sent-mail` writes (the Gmail advanced service).
  bundleDir = mkdtempSync(join(tmpdir(), 'fq-sent-world-'));
  cpSync(join(BUNDLE_DIR, 'Code.js'), join(bundleDir, 'Code.js'));
  const manifest = manifestFor(JSON.parse(readFileSync(join(BUNDLE_DIR, 'appsscript.json'), 'utf8')), { reconcileSentMail: true });
  writeFileSync(join(bundleDir, 'appsscript.json'), JSON.stringify(manifest));
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

let rt: Runtime;

const delivery = (n: number) => submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; });
const row = (eventId: string): QueueObject => rt.queue().find((r) => r.event_id === eventId) as QueueObject;
const mailsTo = (n: number): unknown[] => rt.host.outbox.filter((mail: { to: string }) => mail.to === `r${n}@example.com`);
const tick = async () => {
  rt.host.properties.set(DIRTY, String(rt.host.now()));
  const exec = await rt.run('processQueue');
  expect(exec.status, JSON.stringify(exec.error)).toBe('ok');
};

/** Submission n's run dies at its send (`fault`); the other submissions keep coming and are answered every few minutes. */
async function crashThenTraffic(sentCopy: string, n: number, fault: Record<string, unknown>): Promise<string> {
  rt = await freshRuntime({ props: { STALE_SENDING_MINUTES: '7', RECONCILE_SENT_MAIL: 'true', RECONCILE_RESEND: 'true' }, host: { bundleDir }, worlds: { sentCopy } });
  const body = delivery(n);
  await rt.deliver(body);
  rt.host.faults.add({ target: 'mail', ...fault });
  rt.host.properties.set(DIRTY, String(rt.host.now()));
  expect((await rt.run('processQueue')).status).toBe('crash');
  const id = JSON.parse(body).event_id as string;
  expect(row(id).status).toBe('SENDING');
  // Seventy-two minutes of traffic: a reply sent every 8 minutes, and every look the check makes in between.
  for (let i = 1; i <= 9; i++) {
    rt.host.advanceClock(8 * MINUTE);
    await rt.deliver(delivery(n * 100 + i));
    await tick();
  }
  for (let i = 1; i <= 9; i++) expect(mailsTo(n * 100 + i)).toHaveLength(1);
  return id;
}

/** Where a submission whose run died at the send may end: SENT with exactly one mail, or with a person and nothing resent. */
function expectNeverTwiceNeverSilent(id: string, n: number, { went }: { went: boolean }) {
  const end = row(id);
  if (end.status === 'SENT') {
    expect(mailsTo(n)).toHaveLength(1);
  } else {
    expect(end.status).toBe('NEEDS_REVIEW');
    expect(String(end.error)).toMatch(/^SENT_CHECK: /);
    expect(mailsTo(n)).toHaveLength(went ? 1 : 0);
  }
}

describe.each([
  // [reading, the outcome after a crash right after the send (the mail went), after a crash right before it (it did not)]
  ['at-once', 'SENT', 'SENT'],
  ['late:30', 'SENT', 'SENT'],
  ['late', 'NEEDS_REVIEW', 'NEEDS_REVIEW'],
  ['absent', 'NEEDS_REVIEW', 'NEEDS_REVIEW'],
])('sentCopy=%s', (sentCopy, afterSend, beforeSend) => {
  it(`a run that died right after the send: the reply is never mailed again (ends ${afterSend})`, async () => {
    const id = await crashThenTraffic(sentCopy, 7, { crashAfterSend: 1 });
    expect(row(id).status).toBe(afterSend);
    expectNeverTwiceNeverSilent(id, 7, { went: true });
    if (afterSend === 'NEEDS_REVIEW') expect(String(row(id).error)).toMatch(/^SENT_CHECK: no proof in Sent either way/);
  });

  it(`a run that died right before the send: the reply goes at most once (ends ${beforeSend})`, async () => {
    const id = await crashThenTraffic(sentCopy, 8, { crashBeforeSend: 1 });
    expect(row(id).status).toBe(beforeSend);
    expectNeverTwiceNeverSilent(id, 8, { went: false });
    if (beforeSend === 'SENT') expect(mailsTo(8)).toHaveLength(1);
  });
});
