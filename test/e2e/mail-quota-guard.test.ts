// Outsiders cannot burn the mail quota, end to end: a day of junk deliveries, and the replies' reserve of the daily mail quota.
import { afterEach, describe, expect, it } from 'vitest';
import { getHealth, startRuntime, submission, type Runtime } from './runtime';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const STAFF = 'staff@example.com';

interface Mail {
  to: string;
  subject: string;
}

function triageMails(rt: Runtime): Mail[] {
  return rt.host.outbox.filter((mail: Mail) => mail.to === STAFF && mail.subject.startsWith('[formqueue]'));
}

/** Moves the runtime's clock (every execution's Date.now() and the mail-quota day) through its HTTP API. */
async function advanceClock(rt: Runtime, ms: number): Promise<string> {
  const response = await fetch(`${rt.url}/api/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceMs: ms }) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { now: string }).now;
}

async function clockNow(rt: Runtime): Promise<number> {
  const answer = (await (await fetch(`${rt.url}/api/clock`)).json()) as { now: string };
  return Date.parse(answer.now);
}

async function tick(rt: Runtime): Promise<void> {
  const execution = await rt.run('processQueue');
  expect(execution.status, JSON.stringify(execution.error)).toBe('ok');
}

describe('outsiders cannot burn the mail quota (local runtime)', () => {
  let rt: Runtime | undefined;
  afterEach(async () => {
    await rt?.close();
    rt = undefined;
  });

  it('ten junk requests an hour for 24 hours of one day (no token): one "Deliveries rejected" mail that day and no "Resolved" mail', { timeout: 240_000 }, async () => {
    rt = await startRuntime();
    // Start just after the next midnight of the script's time zone (Etc/UTC in appsscript.json): a full run at :00 and
    // :30 of every hour (each one the safety sweep), the last at 23:30, all in that one calendar day.
    const now = await clockNow(rt);
    const nextMidnight = Math.ceil(now / (24 * HOUR)) * 24 * HOUR;
    await advanceClock(rt, nextMidnight + 30_000 - now);
    for (let hour = 0; hour < 24; hour++) {
      for (let n = 0; n < 10; n++) expect(await rt.deliver(`{"junk":${hour * 10 + n}}`, null)).toEqual({ ok: false, error: 'unauthorized' });
      for (let half = 0; half < 2; half++) {
        await tick(rt);
        await advanceClock(rt, 30 * MINUTE);
      }
    }
    const subjects = triageMails(rt).map((mail) => mail.subject);
    expect(subjects.filter((subject) => subject.includes('Deliveries rejected'))).toHaveLength(1);
    expect(subjects.filter((subject) => subject.includes('Resolved'))).toEqual([]);
    expect(subjects).toEqual(['[formqueue] Deliveries rejected — 0 waiting, no user impact']);
    // Every one of the 240 was counted.
    const count = JSON.parse(rt.host.properties.get('FQ_REJECTED_DAY'));
    expect(count.kept + count.dropped).toBe(240);
  });

  it('with 20 recipients of mail quota left (the reserve) a triage mail waits; doGet shows the incident; replies still get the quota; the mail goes when the quota returns', async () => {
    rt = await startRuntime();
    // 80 of the day's 100 recipients already went on replies: 20 are left, exactly the reserve.
    const usedUp = rt.host.faults.add({ target: 'mail', quota: 20 });
    const badKey = rt.host.faults.add({ target: 'gemini', status: 400 });
    for (let n = 1; n <= 3; n++) await rt.deliver(submission(n));
    for (let minute = 0; minute < 5; minute++) {
      await tick(rt);
      await advanceClock(rt, MINUTE);
    }
    expect(triageMails(rt)).toEqual([]);
    expect(JSON.parse(rt.host.properties.get('FQ_INCIDENT_GEMINI_KEY_INVALID'))).toMatchObject({ state: 'open', mailsSent: 0 });
    expect(await getHealth(rt)).toMatchObject({ ok: false, openIncidents: [expect.objectContaining({ code: 'GEMINI_KEY_INVALID' })] });

    // The key works again: the three replies take the quota the triage mail left them.
    rt.host.faults.remove(badKey.id);
    for (let minute = 0; minute < 8; minute++) {
      await tick(rt);
      await advanceClock(rt, MINUTE);
    }
    expect(rt.queue().map((row) => row.status)).toEqual(['SENT', 'SENT', 'SENT']);
    expect(triageMails(rt)).toEqual([]);

    // The next day the quota is back: staff hear of it once, as a recovery that says no mail went out meanwhile.
    rt.host.faults.remove(usedUp.id);
    await advanceClock(rt, 24 * HOUR);
    await tick(rt);
    await tick(rt);
    const mails = triageMails(rt);
    expect(mails.map((mail) => mail.subject)).toEqual([expect.stringMatching(/^\[formqueue\] Resolved: Gemini API key invalid/)]);
  });
});
