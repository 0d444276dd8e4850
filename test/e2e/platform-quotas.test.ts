// Apps Script's daily quotas end to end (emulator/daily-quotas.mjs): the triggers' total runtime used up, the URL Fetch
// calls used up, the mail quota's 24-hour window. In each, nothing is lost, nothing is mailed twice, and staff see it.
// Figures and reset rule: https://developers.google.com/apps-script/guides/services/quotas ("Quotas are per user and
// reset 24 hours after the first request"; Triggers total runtime 90 min / day on a consumer account).
import { describe, expect, it } from 'vitest';
import { getHealth, runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const STAFF = 'staff@example.com';
interface Mail { to: string; subject: string; body: string }

let rt: Runtime;

const delivery = (n: number): string => submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; });
const eventIdOf = (body: string): string => JSON.parse(body).event_id;
const rowOf = (eventId: string) => rt.queue().find((r) => r.event_id === eventId)!;
const respondentMails = (): Mail[] => rt.host.outbox.filter((m: Mail) => m.to !== STAFF);
const triageMails = (): Mail[] => rt.host.outbox.filter((m: Mail) => m.to === STAFF && m.subject.startsWith('[formqueue]'));
/** processQueue as its clock trigger runs it (kind 'trigger': it counts toward the triggers' total runtime). */
const tick = () => rt.run('processQueue');

describe('the triggers\' total runtime for the day is used up', () => {
  it('trigger runs are refused with Google\'s text, doPost keeps recording, doGet says ok:false and why; once the quota resets the first run answers everyone and one mail says runs were refused for hours', async () => {
    rt = await freshRuntime();
    const first = delivery(401);
    await rt.deliver(first);
    expect((await tick()).status).toBe('ok');
    expect(rowOf(eventIdOf(first)).status).toBe('SENT');

    // As if the day's earlier trigger runs had taken the consumer account's 90 minutes (opens the 24-hour window now).
    rt.host.useTriggerRuntime(90 * MINUTE);
    const refused = await tick();
    expect([refused.status, refused.error?.message, refused.serviceCalls]).toEqual(['refused', 'Service using too much computer time for one day', 0]);

    // A web-app call is no trigger run: the delivery is recorded, and answered ok.
    const waiting = [delivery(402), delivery(403)];
    for (const body of waiting) expect(await rt.deliver(body)).toMatchObject({ ok: true });
    rt.host.advanceClock(3 * HOUR);
    expect((await tick()).status).toBe('refused');
    for (const body of waiting) expect(rowOf(eventIdOf(body)).status).toBe('PENDING');

    const health = await getHealth(rt);
    expect(health.ok).toBe(false);
    expect(health.runsOverdue.minutes).toBeGreaterThanOrEqual(180);
    expect(health.runsOverdue.reason).toContain('Service using too much computer time for one day');
    expect(triageMails()).toEqual([]); // nothing can mail staff while no run happens

    // The window opened with the first request of the day: 24 hours later the quota is back, not at midnight.
    rt.host.advanceClock(21 * HOUR);
    const resumed = await tick();
    expect(resumed.status, JSON.stringify(resumed.error)).toBe('ok');
    for (const body of waiting) expect(rowOf(eventIdOf(body)).status).toBe('SENT');
    expect(respondentMails().map((m) => m.to).sort()).toEqual(['r401@example.com', 'r402@example.com', 'r403@example.com']);
    const missed = triageMails().filter((m) => m.subject.includes('Queue runs did not happen'));
    expect(missed).toHaveLength(1);
    expect(missed[0].body).toMatch(/processQueue did not run from \S+ to \S+ \(24 h \d+ min\) while deliveries waited/);

    // Runs go on: no second mail about it, nothing mailed twice, and the health is good again.
    await rt.deliver(delivery(404));
    expect((await tick()).status).toBe('ok');
    expect((await tick()).status).toBe('ok');
    expect(triageMails().filter((m) => m.subject.includes('Queue runs did not happen'))).toHaveLength(1);
    expect(respondentMails()).toHaveLength(4);
    expect(await getHealth(rt)).toMatchObject({ ok: true, runsOverdue: null, openIncidents: [] });
  });

  it('an installable on-edit trigger counts and is refused too; a menu run (Process now) is no trigger and still runs', async () => {
    rt = await freshRuntime();
    rt.host.useTriggerRuntime(90 * MINUTE);
    const body = delivery(411);
    await rt.deliver(body);
    const [guard] = await rt.host.edit({ sheet: 'Queue', a1: 'A2', value: 'PENDING', user: 'ana@example.org' });
    expect([guard.status, guard.error?.message]).toEqual(['refused', 'Service using too much computer time for one day']);
    const menu = await rt.host.run('processQueue', [], { kind: 'menu', user: 'owner@example.com' });
    expect(menu.status, JSON.stringify(menu.error)).toBe('ok');
    expect(rowOf(eventIdOf(body)).status).toBe('SENT');
    expect(respondentMails()).toHaveLength(1);
  });
});

describe('the URL Fetch calls for the day are used up', () => {
  it('generation pauses with "URL Fetch daily quota used up" and rows keep their attempts; 24 hours later the replies go, each once', async () => {
    rt = await freshRuntime();
    const bodies = [delivery(421), delivery(422), delivery(423)];
    for (const body of bodies) await rt.deliver(body);
    // As if another script of the account had made the day's 20,000 calls (opens the 24-hour window now).
    rt.host.useUrlFetches(20000);
    expect((await tick()).status).toBe('ok');
    const rows = bodies.map((body) => rowOf(eventIdOf(body)));
    expect(rows.map((r) => [r.status, Number(r.attempts)])).toEqual([['PENDING', 0], ['PENDING', 0], ['PENDING', 0]]);
    expect(rows[0].error).toContain('URLFETCH_DAILY_QUOTA');
    expect(rows[0].error).toContain('Service invoked too many times for one day: urlfetch.');
    expect(triageMails().map((m) => m.subject).join('\n')).toContain('URL Fetch daily quota used up');
    expect(respondentMails()).toEqual([]);
    // Hours of runs while it lasts: no attempt is used, so no row ends FAILED.
    for (let i = 0; i < 6; i++) {
      rt.host.advanceClock(2 * HOUR);
      expect((await tick()).status).toBe('ok');
    }
    expect(bodies.map((body) => [rowOf(eventIdOf(body)).status, Number(rowOf(eventIdOf(body)).attempts)])).toEqual([['PENDING', 0], ['PENDING', 0], ['PENDING', 0]]);

    rt.host.advanceClock(12 * HOUR + MINUTE);
    for (let i = 0; i < 3 && bodies.some((body) => rowOf(eventIdOf(body)).status !== 'SENT'); i++) {
      expect((await tick()).status).toBe('ok');
      rt.host.advanceClock(10 * MINUTE);
    }
    expect(bodies.map((body) => rowOf(eventIdOf(body)).status)).toEqual(['SENT', 'SENT', 'SENT']);
    expect(respondentMails().map((m) => m.to).sort()).toEqual(['r421@example.com', 'r422@example.com', 'r423@example.com']);
  });
});

describe('the mail quota resets 24 hours after the first send of its window, not at midnight', () => {
  it('replies the quota refused wait in READY and go once the window is 24 hours old, each once', async () => {
    // 3 recipients a day: three replies (triage mail keeps a reserve of 20 for replies, so none goes).
    rt = await freshRuntime({ host: { mailDailyQuota: 3 } });
    // The first send of the window comes ten minutes before midnight UTC.
    const now = rt.host.now();
    const beforeMidnight = Math.ceil(now / (24 * HOUR)) * 24 * HOUR - 10 * MINUTE;
    if (beforeMidnight > now) rt.host.advanceClock(beforeMidnight - now);
    else rt.host.advanceClock(beforeMidnight + 24 * HOUR - now);
    const bodies = [1, 2, 3, 4, 5].map((i) => delivery(430 + i));
    for (const body of bodies) await rt.deliver(body);
    expect((await tick()).status).toBe('ok');
    expect(respondentMails()).toHaveLength(3);
    // Past midnight, inside the 24-hour window: still no quota (a calendar-day quota would send two more here).
    rt.host.advanceClock(HOUR);
    expect((await tick()).status).toBe('ok');
    rt.host.advanceClock(22 * HOUR);
    expect((await tick()).status).toBe('ok');
    expect(respondentMails()).toHaveLength(3);
    rt.host.advanceClock(HOUR + MINUTE);
    for (let i = 0; i < 3 && bodies.some((body) => rowOf(eventIdOf(body)).status !== 'SENT'); i++) {
      expect((await tick()).status).toBe('ok');
      rt.host.advanceClock(10 * MINUTE);
    }
    expect(bodies.map((body) => rowOf(eventIdOf(body)).status)).toEqual(['SENT', 'SENT', 'SENT', 'SENT', 'SENT']);
    expect(respondentMails().map((m) => m.to).sort()).toEqual(bodies.map((_, i) => `r${431 + i}@example.com`));
  });
});
