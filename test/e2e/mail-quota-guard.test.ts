// Outsiders cannot burn the mail quota, end to end: a day of junk deliveries, and the replies' reserve of the daily mail quota.
import { describe, expect, it } from 'vitest';
import { getHealth, runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

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

  it('ten junk requests an hour for 24 hours of one day (no token): one "Deliveries rejected" mail that day and no "Resolved" mail', { timeout: 240_000 }, async () => {
    rt = await freshRuntime();
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
    expect(subjects).toEqual(['[formqueue] Deliveries rejected — 0 waiting, a respondent may be affected']);
    // Every one of the 240 was counted (the last run, at 23:30, folded the Tally into the day's totals).
    expect(JSON.parse(rt.host.properties.get('FQ_REJECTED_DAY'))).toMatchObject({ count: 240 });
  });

  it('40 concurrent oversized junk deliveries: the bodies kept stay within the day\'s room exactly, and the count is exactly the number rejected', { timeout: 240_000 }, async () => {
    rt = await freshRuntime();
    // 150,000 characters each, 6,000,000 in all: three times the day's 2,000,000 bytes. No token, so all are outsiders.
    const bodies = Array.from({ length: 40 }, (_, n) => `{"junk":${n},"pad":"${'x'.repeat(150_000)}"}`);
    const answers = await Promise.all(bodies.map((body) => rt!.deliver(body, null)));
    const rejected = answers.filter((answer) => answer.error === 'unauthorized').length;
    // Google refuses calls past 30 at once before the script runs; whatever formqueue ran, it answered.
    expect(rejected).toBeGreaterThan(0);
    expect(answers.every((answer) => answer.error === 'unauthorized' || answer.unparsed !== undefined)).toBe(true);

    const sheet = rt.sheet('Rejected');
    const payloads = rt.sheet('Payloads');
    const bodyAt = sheet.header.indexOf('body');
    const keptBytes = sheet.rows.reduce((sum, row) => {
      const body = String(row[bodyAt]);
      const pointer = /^\(in Payloads under (rejected-\d+-[0-9a-f]{8}): \d+ parts\)$/.exec(body);
      if (!pointer) return sum + Buffer.byteLength(body);
      const parts = payloads.rows.filter((part) => part[0] === pointer[1]).map((part) => String(part[3]));
      return sum + Buffer.byteLength(parts.join(''));
    }, 0);
    expect(sheet.rows.length).toBeGreaterThan(0);
    expect(sheet.rows.length).toBeLessThan(rejected);
    expect(keptBytes).toBeLessThanOrEqual(2_000_000);

    await tick(rt);
    expect(JSON.parse(rt.host.properties.get('FQ_REJECTED_DAY'))).toMatchObject({ count: rejected, dropped: rejected - sheet.rows.length });
    expect(JSON.parse(rt.host.properties.get('FQ_INCIDENT_REJECTED_DELIVERIES')).detail).toBe(
      `${rejected} deliveries were rejected today (${rejected - sheet.rows.length} without their body): missing or wrong token ${rejected}; see the Rejected sheet`,
    );
  });

  it('with 20 recipients of mail quota left (the reserve) a triage mail waits; doGet shows the incident; replies still get the quota; the mail goes when the quota returns', async () => {
    rt = await freshRuntime();
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
