// Contract tests for the world switches of the web app and the mailbox (emulator/worlds.mjs): in each reading of what
// Google does not document, the runtime does exactly what that reading says, and the reading cites its source.
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../emulator/server.mjs';
import { WORLD_SWITCHES } from '../../emulator/worlds.mjs';
import { makeHost } from './helpers';

const MINUTE = 60_000;
let host: any;
let server: { url: string; close(): Promise<void> } | undefined;
afterEach(async () => {
  host?.faults.clear();
  await server?.close();
  await host?.dispose();
  host = undefined;
  server = undefined;
});

const sourceOf = (key: string, value: string) => WORLD_SWITCHES.find((s) => s.key === key)!.readings.find((r) => r.value === value)!.source;
const value = async (fn: string, args: unknown[] = [], opts: Record<string, unknown> = { kind: 'api' }) => {
  const exec = await host.run(fn, args, opts);
  if (exec.status !== 'ok') throw new Error(`${fn}: ${exec.status} ${exec.error?.message}`);
  return exec.value;
};

describe('userLock: whose user lock an anonymous call of an "execute as me" web app takes', () => {
  // LockService.getUserLock(): "prevents the current user from concurrently running a section of code".
  /** A web-app call holding the user lock (parked in a paused fetch), and what other runs get from tryLock(0). */
  async function holdInWebApp(userLock: string, caller?: string) {
    host = makeHost('locks', { worlds: { userLock } });
    host.faults.add({ target: 'gemini', pause: true });
    const holder = host.run('holdLock', ['user'], { kind: 'webapp', user: caller });
    await host.faults.waitForPausedFetches(1);
    return { holder }; // wrapped: an async function returning the promise itself would wait for it
  }
  const tryUser = (opts: Record<string, unknown>) => value('tryLock', ['user'], opts);

  it('per-deployer: every web-app call and the deployer\'s triggers share one user lock (the web app runs as the deployer: guides/web#permissions)', async () => {
    expect(sourceOf('userLock', 'per-deployer')).toMatch(/guides\/web#permissions.*Execute as: me/);
    const { holder } = await holdInWebApp('per-deployer');
    expect(await tryUser({ kind: 'webapp' })).toBe(false);
    expect(await tryUser({ kind: 'trigger' })).toBe(false);
    host.faults.clear();
    expect((await holder).value).toBe(true);
  });

  it('per-caller: an anonymous call\'s lock is its own, shared with no other call and no trigger (lock-service: "the current user")', async () => {
    expect(sourceOf('userLock', 'per-caller')).toMatch(/lock-service#getUserLock.*"the current user"/);
    const { holder } = await holdInWebApp('per-caller');
    expect(await tryUser({ kind: 'webapp' })).toBe(true);
    expect(await tryUser({ kind: 'trigger' })).toBe(true);
    host.faults.clear();
    expect((await holder).value).toBe(true);
  });

  it('per-caller: a signed-in caller\'s is that person\'s own, across their calls', async () => {
    const { holder } = await holdInWebApp('per-caller', 'ana@example.com');
    expect(await tryUser({ kind: 'webapp', user: 'ana@example.com' })).toBe(false);
    expect(await tryUser({ kind: 'webapp', user: 'bo@example.com' })).toBe(true);
    host.faults.clear();
    await holder;
  });

  it('no reading changes the user lock outside web apps: a menu run takes the person\'s', async () => {
    host = makeHost('locks', { worlds: { userLock: 'per-caller' } });
    host.faults.add({ target: 'gemini', pause: true });
    const holder = host.run('holdLock', ['user'], { kind: 'menu', user: 'ana@example.com' });
    await host.faults.waitForPausedFetches(1);
    expect(await tryUser({ kind: 'menu', user: 'ana@example.com' })).toBe(false);
    host.faults.clear();
    await holder;
  });
});

describe('sentCopy: MailApp\'s copy of a sent mail in the sender\'s Sent folder (MailApp\'s reference says nothing of one)', () => {
  const sent = async (sentCopy: string) => {
    host = makeHost('worlds', { worlds: { sentCopy } });
    expect(await value('send', ['a@example.com', 'FQ-AAAAAA'])).toBe('sent');
    return host.outbox[0].id as string;
  };

  it('at-once: search (Gmail.Users.Messages.list and GmailApp.search) finds it as soon as the send returns', async () => {
    expect(sourceOf('sentCopy', 'at-once')).toMatch(/before the switch/);
    const id = await sent('at-once');
    expect(await value('found', ['"FQ-AAAAAA"'])).toEqual({ list: 1, search: 1 });
    expect(await value('getById', [id])).toBe('found');
  });

  it('late: in Sent at once (get by id finds it), found by search only 120 minutes after the send (no Google page on index freshness)', async () => {
    expect(sourceOf('sentCopy', 'late')).toMatch(/no Google page on how soon Gmail search indexes/);
    const id = await sent('late');
    expect(await value('found', ['"FQ-AAAAAA"'])).toEqual({ list: 0, search: 0 });
    expect(await value('getById', [id])).toBe('found');
    host.advanceClock(119 * MINUTE);
    expect(await value('found', ['"FQ-AAAAAA"'])).toEqual({ list: 0, search: 0 });
    host.advanceClock(MINUTE);
    expect(await value('found', ['"FQ-AAAAAA"'])).toEqual({ list: 1, search: 1 });
  });

  it('late:MINUTES sets the lag', async () => {
    await sent('late:30');
    host.advanceClock(29 * MINUTE);
    expect(await value('found', ['"FQ-AAAAAA"'])).toEqual({ list: 0, search: 0 });
    host.advanceClock(MINUTE);
    expect(await value('found', ['"FQ-AAAAAA"'])).toEqual({ list: 1, search: 1 });
  });

  it('absent: never in Sent, though it went (the outbox has it): neither search nor get finds it (MailApp promises no copy)', async () => {
    expect(sourceOf('sentCopy', 'absent')).toMatch(/promises no copy in Sent/);
    const id = await sent('absent');
    expect(host.outbox).toHaveLength(1);
    host.advanceClock(3 * 24 * 60 * MINUTE);
    expect(await value('found', ['"FQ-AAAAAA"'])).toEqual({ list: 0, search: 0 });
    expect(await value('getById', [id])).toBe('GoogleJsonResponseException: API call to gmail.users.messages.get failed with error: Requested entity was not found.');
  });
});

describe('overload: what a web-app caller gets when 30 executions of the user already run', () => {
  // "Simultaneous executions: 30 / user" (quotas page); tanaikech's table: 200, an HTML "Error" page, exec qps.
  const PAGE = 'Service invoked too many times in a short time: exec qps. Try Utilities.sleep(1000) between calls.';
  async function thirtyFirst(overload: string) {
    host = makeHost('limits', { worlds: { overload } });
    host.faults.add({ target: 'gemini', pause: true });
    const parked = Array.from({ length: 30 }, () => host.run('doPost', [{}], { kind: 'webapp' }));
    await host.faults.waitForPausedFetches(30);
    server = await startServer({ host, port: 0 });
    const res = await fetch(`${server.url}/exec`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' }, redirect: 'manual' });
    return { res, parked };
  }

  it('behind-302: the usual 302 to the one-time echo URL, whose GET answers 200 with the error page (tanaikech\'s table read with guides/content#redirects)', async () => {
    expect(sourceOf('overload', 'behind-302')).toMatch(/tanaikech.*guides\/content#redirects/);
    const { res, parked } = await thirtyFirst('behind-302');
    expect(res.status).toBe(302);
    const echo = await fetch(res.headers.get('location')!);
    expect([echo.status, echo.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(await echo.text()).toContain(PAGE);
    host.faults.clear();
    await Promise.all(parked);
  });

  it('html-200: no redirect, /exec itself answers 200 with the error page (tanaikech\'s status column does not say a redirect came first)', async () => {
    expect(sourceOf('overload', 'html-200')).toMatch(/does not say whether a redirect came first/);
    const { res, parked } = await thirtyFirst('html-200');
    expect([res.status, res.headers.get('location'), res.headers.get('content-type')]).toEqual([200, null, 'text/html; charset=utf-8']);
    const page = await res.text();
    expect(page).toContain('<title>Error</title>');
    expect(page).toContain(PAGE);
    expect(host.executions.at(-1)).toMatchObject({ functionName: 'doPost', status: 'refused', serviceCalls: 0 });
    host.faults.clear();
    await Promise.all(parked);
  });
});

describe('activeSpreadsheet: getActiveSpreadsheet() in a web-app call or a clock trigger of a bound script', () => {
  const kinds = [['webapp'], ['trigger'], ['menu'], ['edit'], ['api']].map(([kind]) => kind);

  it('container: the bound spreadsheet in every kind of execution (guides/bound: the parent file)', async () => {
    expect(sourceOf('activeSpreadsheet', 'container')).toMatch(/guides\/bound/);
    host = makeHost('worlds', { worlds: { activeSpreadsheet: 'container' } });
    for (const kind of kinds) expect(await value('activeId', [], { kind })).toBe('local-spreadsheet');
  });

  it('none-outside-ui: null in web-app calls and clock triggers, the container in menus, edit triggers and editor runs (getActive(): "or null if there is none")', async () => {
    expect(sourceOf('activeSpreadsheet', 'none-outside-ui')).toMatch(/or null if there is none/);
    host = makeHost('worlds', { worlds: { activeSpreadsheet: 'none-outside-ui' } });
    const seen = [];
    for (const kind of kinds) seen.push([kind, await value('activeId', [], { kind })]);
    expect(seen).toEqual([['webapp', null], ['trigger', null], ['menu', 'local-spreadsheet'], ['edit', 'local-spreadsheet'], ['api', 'local-spreadsheet']]);
  });
});
