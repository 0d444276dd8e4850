// Bounces and the suppression list end to end: a reply to an address the runtime marks dead gets Gmail's failure notice;
// the bounce check (RECONCILE_BOUNCES, the bundle built with Gmail read access) marks the row and suppresses the address,
// and the next submission from it is not mailed; a line staff add by hand holds the same way. In both readings of how
// much of the original a notice shows (the bounceOriginal world). A submission from a suppressed address costs no Gemini
// call, and doGet and Queue health count bounces, suppressed addresses and the rows they stopped.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestFor } from '../../scripts/manifest.mjs';
import { BUNDLE_DIR, getHealth, runtimePerFile, submission, type QueueObject, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const DIRTY = 'FQ_DIRTY';
const MINUTE = 60_000;
const DEAD = 'gone@example.com';

let bundleDir: string;
beforeAll(() => {
  // The same Code.js with the manifest `node scripts/build.mjs --reconcile-sent-mail` writes (gmail.readonly).
  bundleDir = mkdtempSync(join(tmpdir(), 'fq-bounces-'));
  cpSync(join(BUNDLE_DIR, 'Code.js'), join(bundleDir, 'Code.js'));
  const manifest = manifestFor(JSON.parse(readFileSync(join(BUNDLE_DIR, 'appsscript.json'), 'utf8')), { reconcileSentMail: true });
  writeFileSync(join(bundleDir, 'appsscript.json'), JSON.stringify(manifest));
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

describe('bounces and the suppression list in the local runtime', () => {
  let rt: Runtime;

  const from = (n: number, email: string) => submission(n, (body) => {
    body.form_response.answers[1].email = email;
  });
  const row = (eventId: string): QueueObject => rt.queue().find((r) => r.event_id === eventId) as QueueObject;
  const mailsTo = (address: string): any[] => rt.host.outbox.filter((mail: any) => mail.to === address);
  const tick = async () => {
    rt.host.properties.set(DIRTY, String(rt.host.now()));
    const exec = await rt.run('processQueue');
    expect(exec.status, JSON.stringify(exec.error)).toBe('ok');
    return exec;
  };
  const deliverAndTick = async (n: number, email: string) => {
    const body = from(n, email);
    await rt.deliver(body);
    await tick();
    return JSON.parse(body).event_id as string;
  };

  for (const bounceOriginal of ['inline', 'attachment']) {
    it(`bounceOriginal=${bounceOriginal}: the notice marks the row BOUNCED and suppresses the address; the next submission from it is not mailed; doGet counts the bounce for a day`, { timeout: 120_000 }, async () => {
      rt = await freshRuntime({ props: { RECONCILE_BOUNCES: 'true' }, host: { bundleDir }, worlds: { bounceOriginal } });
      expect(rt.sheet('Suppressed').header).toEqual(['address', 'reason', 'added_by', 'added_at']);
      rt.host.faults.add({ target: 'mail', deadAddress: DEAD });
      const first = await deliverAndTick(1, DEAD);
      const other = await deliverAndTick(2, 'alive@example.com');
      expect(row(first).status).toBe('SENT');
      expect(mailsTo(DEAD)).toHaveLength(1);
      expect(rt.host.inbox).toHaveLength(1);

      // The next check is due BOUNCE_CHECK_MINUTES (30) after the last: a run before then reads no notice.
      rt.host.advanceClock(10 * MINUTE);
      const early = await tick();
      expect(early.calls['GmailUsersMessages.list']).toBeUndefined();
      expect(String(row(first).error)).toBe('');
      rt.host.advanceClock(21 * MINUTE);
      const check = await tick();
      // The check's cost: one search and one read of the one new notice.
      expect([check.calls['GmailUsersMessages.list'], check.calls['GmailUsersMessages.get']]).toEqual([1, 1]);
      expect(row(first).status).toBe('SENT');
      expect(String(row(first).error)).toMatch(/^BOUNCED: gone@example.com: Address not found \(550 5\.1\.1 The email account that you tried to reach does not exist\./);
      expect(String(row(other).error)).toBe('');
      const suppressed = rt.sheet('Suppressed').rows;
      expect(suppressed.map((cells) => cells.slice(0, 3))).toEqual([[DEAD, expect.stringMatching(/^bounced: Address not found/), 'bounce']]);

      const asked = rt.gemini.requests.length;
      const next = await deliverAndTick(3, 'Gone+again@Example.com');
      expect(row(next).status).toBe('NEEDS_REVIEW');
      expect(rt.gemini.requests).toHaveLength(asked); // stopped before generation: no Gemini call for it
      expect(String(row(next).error)).toMatch(/^SUPPRESSED: Gone\+again@Example.com is on the Suppressed sheet \(added by bounce: bounced: Address not found/);
      expect(rt.host.outbox.filter((mail: any) => /gone/i.test(mail.to))).toHaveLength(1);

      // A later check reads the same notice no more and adds no second line.
      rt.host.advanceClock(31 * MINUTE);
      await tick();
      expect(rt.sheet('Suppressed').rows).toHaveLength(1);
      // The operator's health JSON counts them: one bounce in the last day, one address, one row it stopped.
      expect((await getHealth(rt)).bounces).toEqual({ last24h: 1, suppressedAddresses: 1, rowsSuppressed: 1 });
      // A day later the bounce has left the last 24 hours; the address and the row it stopped have not.
      rt.host.advanceClock(25 * 60 * MINUTE);
      expect((await getHealth(rt)).bounces).toEqual({ last24h: 0, suppressedAddresses: 1, rowsSuppressed: 1 });
    });
  }

  it('an address staff add to Suppressed by hand is never mailed: the row waits for a person with the reason they wrote; doGet and Queue health count it', async () => {
    rt = await freshRuntime();
    const sheet = rt.sheet('Suppressed');
    rt.host.loadSheet('Suppressed', sheet.header, [['Ann <ann@example.org>', 'asked us to stop by phone', 'desk@example.org', '2026-12-01']]);
    const id = await deliverAndTick(4, 'ann@example.org');
    expect(row(id).status).toBe('NEEDS_REVIEW');
    expect(String(row(id).error)).toBe(
      'SUPPRESSED: ann@example.org is on the Suppressed sheet (added by desk@example.org: asked us to stop by phone), so no reply is mailed to it. ' +
        'Leave the row (set SKIPPED), or remove the address from Suppressed and set PENDING for a new reply',
    );
    expect(mailsTo('ann@example.org')).toHaveLength(0);
    // With the bounce check off, the health JSON says bounces are not counted (null), not that there were none.
    expect((await getHealth(rt)).bounces).toEqual({ last24h: null, suppressedAddresses: 1, rowsSuppressed: 1 });
    // Staff see the same in Queue health.
    const menu = await rt.host.run('menuQueueHealth', [], { kind: 'menu', user: 'desk@example.org' });
    expect(menu.status, JSON.stringify(menu.error)).toBe('ok');
    expect(rt.host.ui.dialogs.at(-1).content).toContain(
      '<b>Bounces and suppression:</b> bounces not checked (RECONCILE_BOUNCES off); 1 address on the Suppressed sheet; 1 row stopped because its address is suppressed.',
    );
  });

  it('a submission from a suppressed address costs no Gemini call: it waits for a person unwritten, while the others in the same tick are answered', async () => {
    rt = await freshRuntime();
    const sheet = rt.sheet('Suppressed');
    rt.host.loadSheet('Suppressed', sheet.header, [['ann@example.org', 'asked us to stop', 'desk@example.org', '2026-12-01']]);
    const ids: string[] = [];
    for (const [n, email] of [[6, 'ann@example.org'], [7, 'bo@example.org'], [8, 'ANN+again@example.org']] as const) {
      const body = from(n, email);
      await rt.deliver(body);
      ids.push(JSON.parse(body).event_id);
    }
    await tick();
    expect(rt.gemini.requests).toHaveLength(1);
    expect([row(ids[0]).status, row(ids[1]).status, row(ids[2]).status]).toEqual(['NEEDS_REVIEW', 'SENT', 'NEEDS_REVIEW']);
    expect(String(row(ids[0]).error)).toMatch(/^SUPPRESSED: ann@example.org is on the Suppressed sheet \(added by desk@example.org: asked us to stop\)/);
    expect(String(row(ids[0]).result)).toBe('');
    expect(mailsTo('bo@example.org')).toHaveLength(1);
    expect(rt.host.outbox.filter((mail: any) => /ann/i.test(mail.to))).toHaveLength(0);
    // Nothing is asked of Gemini for them on later ticks either.
    rt.host.advanceClock(10 * MINUTE);
    await tick();
    expect(rt.gemini.requests).toHaveLength(1);
  });

  it('with RECONCILE_BOUNCES on, an idle tick still makes at most 2 service calls and asks Gmail nothing', async () => {
    rt = await freshRuntime({ props: { RECONCILE_BOUNCES: 'true' }, host: { bundleDir } });
    await deliverAndTick(5, 'alive@example.com');
    const idle = await rt.run('processQueue');
    expect(idle.value).toBe('Skipped: nothing new, no retry due.');
    expect(idle.serviceCalls).toBeLessThanOrEqual(2);
  });
});
