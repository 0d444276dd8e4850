// Contract tests for Apps Script's daily quotas in the runtime (emulator/daily-quotas.mjs). Figures and reset rule from
// https://developers.google.com/apps-script/guides/services/quotas: "Quotas are per user and reset 24 hours after the
// first request"; Email recipients per day 100 / 1,500, Triggers total runtime 90 min / 6 hr, URL Fetch calls
// 20,000 / 100,000 (consumer / Workspace). Error texts as real executions report them (the quotas page lists none):
// "Service using too much computer time for one day" (webdigi/GmailScheduler#31, btoews/OctoGAS#16: Google's failure
// mails for time-based runs), "Service invoked too many times for one day: urlfetch." (bumbleshoot/automate-habitica#10).
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ACCOUNT_LIMITS, TRIGGER_RUNTIME_EXCEEDED, URLFETCH_QUOTA_EXCEEDED } from '../../emulator/daily-quotas.mjs';
import { makeHost } from './helpers';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const OWNER = 'owner@example.com';

let host: any;
const dirs: string[] = [];
afterEach(async () => {
  await host?.dispose();
  host = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const run = async (fn: string, args: unknown[] = [], opts: Record<string, unknown> = { kind: 'api' }) => host.run(fn, args, opts);
const value = async (fn: string, args: unknown[] = [], opts: Record<string, unknown> = { kind: 'api' }) => {
  const exec = await run(fn, args, opts);
  if (exec.status !== 'ok') throw new Error(`${fn}: ${exec.status} ${exec.error?.message}`);
  return exec.value;
};
/** Moves host time to `minutesBefore` minutes before the next UTC midnight. */
const toBeforeMidnight = (minutesBefore: number) => {
  const now = host.now();
  const target = Math.ceil(now / DAY) * DAY - minutesBefore * MINUTE;
  host.advanceClock(target > now ? target - now : target + DAY - now);
};

describe('the account kind sets each daily quota (the quotas page\'s two columns)', () => {
  it.each([
    ['consumer', 100, 90 * MINUTE, 20000],
    ['workspace', 1500, 6 * HOUR, 100000],
  ])('%s: %i recipients, %i ms of trigger runtime, %i URL Fetch calls', (account, mail, runtime, fetches) => {
    host = makeHost('quotas', { account });
    expect([host.remainingMailQuota(), host.remainingTriggerRuntimeMs(), host.remainingUrlFetches()]).toEqual([mail, runtime, fetches]);
    expect(ACCOUNT_LIMITS[account as 'consumer']).toEqual({ mailRecipients: mail, triggerRuntimeMs: runtime, urlFetchCalls: fetches });
  });

  it('an account kind the quotas page does not know is refused', () => {
    expect(() => makeHost('quotas', { account: 'enterprise' })).toThrow('account must be one of consumer, workspace, got "enterprise"');
  });
});

describe('Triggers total runtime', () => {
  it('a trigger run adds what it took; once the day\'s runtime is used up a trigger run is refused before any script runs, with Google\'s text', async () => {
    host = makeHost('quotas');
    const first = await run('quick', [], { kind: 'trigger' });
    expect(first.status).toBe('ok');
    expect(host.dailyQuotas().triggerRuntimeMs.used).toBe(first.durationMs);
    host.useTriggerRuntime(90 * MINUTE);
    const refused = await run('quick', [], { kind: 'trigger' });
    expect(refused).toMatchObject({ status: 'refused', error: { name: 'Exception', message: TRIGGER_RUNTIME_EXCEEDED }, serviceCalls: 0, value: undefined });
    expect(TRIGGER_RUNTIME_EXCEEDED).toBe('Service using too much computer time for one day');
    expect(host.quotaRefusals).toBe(1);
    expect(host.refusals).toBe(0); // not the simultaneous-executions limit
  });

  it('only trigger runs count and are refused: a web-app call, a menu run and /api/run still run; so do another user\'s triggers', async () => {
    host = makeHost('quotas');
    host.useTriggerRuntime(90 * MINUTE);
    for (const kind of ['webapp', 'menu', 'api']) expect((await run('quick', [], { kind })).status).toBe('ok');
    expect((await run('quick', [], { kind: 'trigger', user: 'ana@example.com' })).status).toBe('ok');
    expect(host.dailyQuotas().triggerRuntimeMs.used).toBe(90 * MINUTE);
  });

  it('resets 24 hours after the window\'s first request, not at midnight', async () => {
    host = makeHost('quotas');
    toBeforeMidnight(10);
    host.useTriggerRuntime(90 * MINUTE);
    host.advanceClock(HOUR); // past midnight
    expect((await run('quick', [], { kind: 'trigger' })).status).toBe('refused');
    host.advanceClock(23 * HOUR - MINUTE);
    expect((await run('quick', [], { kind: 'trigger' })).status).toBe('refused');
    host.advanceClock(MINUTE);
    expect((await run('quick', [], { kind: 'trigger' })).status).toBe('ok');
  });
});

describe('URL Fetch calls per day', () => {
  it('each fetch counts; past the quota fetch throws Google\'s text without reaching the network, per user, until 24 hours after the first call', async () => {
    host = makeHost('quotas', { urlFetchDailyQuota: 2 });
    expect(await value('fetchOnce')).toBe('Exception: Address unavailable: http://127.0.0.1:9/'); // let through (nothing listens there)
    expect(await value('fetchOnce')).toMatch(/^Exception: Address unavailable/);
    expect(await value('fetchOnce')).toBe(`Exception: ${URLFETCH_QUOTA_EXCEEDED}`);
    expect(URLFETCH_QUOTA_EXCEEDED).toBe('Service invoked too many times for one day: urlfetch.');
    expect(await value('fetchOnce', [], { kind: 'menu', user: 'ana@example.com' })).toMatch(/^Exception: Address unavailable/);
    host.advanceClock(DAY);
    expect(await value('fetchOnce')).toMatch(/^Exception: Address unavailable/);
  });

  it('fetchAll counts every request, and a batch the quota cannot cover is refused whole', async () => {
    host = makeHost('quotas', { urlFetchDailyQuota: 3 });
    expect(await value('fetchMany', [2])).toMatch(/^Exception: Address unavailable/);
    expect(host.remainingUrlFetches()).toBe(1);
    expect(await value('fetchMany', [2])).toBe(`Exception: ${URLFETCH_QUOTA_EXCEEDED}`);
    expect(host.remainingUrlFetches()).toBe(1);
  });
});

describe('Email recipients per day', () => {
  it('resets 24 hours after the window\'s first send, not at midnight; getRemainingDailyQuota follows', async () => {
    host = makeHost('quotas', { mailDailyQuota: 1 });
    toBeforeMidnight(10);
    expect(await value('mailOne', ['a@example.com'])).toBe('sent');
    host.advanceClock(HOUR);
    expect(await value('remainingMail')).toBe(0);
    expect(await value('mailOne', ['b@example.com'])).toBe('Exception: Service invoked too many times for one day: email.');
    host.advanceClock(23 * HOUR);
    expect(await value('remainingMail')).toBe(1);
    expect(await value('mailOne', ['b@example.com'])).toBe('sent');
  });
});

describe('quota windows in the data folder', () => {
  it('survive a restart, and a mail day saved before windows existed reads as a window opened at that day\'s UTC midnight', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fq-quotas-'));
    dirs.push(dataDir);
    host = makeHost('quotas', { dataDir });
    await host.load();
    host.useTriggerRuntime(30 * MINUTE);
    host.useUrlFetches(5);
    await host.dispose();
    expect(readdirSync(dataDir)).toContain('daily-quotas.json');
    host = makeHost('quotas', { dataDir });
    await host.load();
    expect([host.remainingTriggerRuntimeMs(), host.remainingUrlFetches()]).toEqual([60 * MINUTE, 19995]);
    await host.dispose();

    const today = new Date(Date.now()).toISOString().slice(0, 10);
    writeFileSync(join(dataDir, 'mail-quota.json'), JSON.stringify({ day: today, used: 40 }));
    host = makeHost('quotas', { dataDir });
    await host.load();
    expect(host.remainingMailQuota(OWNER)).toBe(60);
    expect(host.dailyQuotas().mail.resetsAt).toBe(new Date(Date.parse(`${today}T00:00:00Z`) + DAY).toISOString());
  });
});
