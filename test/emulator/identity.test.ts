// Contract tests for who runs what: effective and active users, per-user triggers, user locks and user properties.
import { afterEach, describe, expect, it } from 'vitest';
import { makeHost } from './helpers';

let host: any;
afterEach(async () => { await host?.dispose(); });
const OWNER = 'owner@example.com';
const STAFF = 'staff@example.com'; // same Workspace domain as the owner
const OUTSIDER = 'ana@example.org'; // another domain
const ok = async (fn: string, opts: object = {}, args: unknown[] = []) => {
  const e = await host.run(fn, args, opts);
  if (e.status !== 'ok') throw new Error(`${fn}: ${e.status} ${e.error?.message}`);
  return e.value;
};

describe('who an execution runs as', () => {
  // https://developers.google.com/apps-script/guides/services/authorization#permissions_and_types_of_scripts: a web app
  // runs as the script owner ("Execute as: me"); Session.getActiveUser is blank in a web app deployed to execute as
  // the developer (https://developers.google.com/apps-script/reference/base/user#getemail).
  it('the web app runs as the deployer and sees no active user for an anonymous caller', async () => {
    host = makeHost('identity', { ownerEmail: 'deployer@example.com' });
    const run = await host.run('whoAmI', [], { kind: 'webapp' });
    expect(run.value).toEqual({ effective: 'deployer@example.com', active: '' });
    expect([run.effectiveUser, run.user]).toEqual(['deployer@example.com', '']);
  });

  // Menu items, dialogs and the script editor run as "the user at the keyboard" (same authorization guide).
  it('a menu or API run executes as the person acting, by default the owner', async () => {
    host = makeHost('identity');
    expect(await ok('whoAmI', { kind: 'menu', user: STAFF })).toEqual({ effective: STAFF, active: STAFF });
    expect(await ok('whoAmI', { kind: 'api' })).toEqual({ effective: OWNER, active: OWNER });
  });

  // https://developers.google.com/apps-script/guides/triggers/installable#restrictions: "Installable triggers always run
  // under the account of the person who created them"; Session.getEffectiveUser returns "the account of the user who
  // created the trigger" (https://developers.google.com/apps-script/reference/base/session#geteffectiveuser).
  it('a clock trigger runs as the person whose execution created it, with that person\'s user lock and properties', async () => {
    host = makeHost('identity');
    await ok('installClock', { kind: 'menu', user: STAFF });
    await ok('remember', { kind: 'menu', user: STAFF }, ['staff value']);
    await ok('remember', { kind: 'menu', user: OWNER }, ['owner value']);
    expect(host.triggers.map((t: any) => t.owner)).toEqual([STAFF]);
    host.faults.add({ target: 'gemini', pause: true });
    const ownerHolds = host.run('holdUserLock', [], { kind: 'menu', user: OWNER });
    await host.faults.waitForPausedFetches(1);
    const [fired] = await host.tick();
    expect(fired.value).toEqual({ effective: STAFF, active: STAFF, userLock: true, mine: 'staff value' });
    expect(fired.effectiveUser).toBe(STAFF);
    host.faults.clear();
    expect((await ownerHolds).value).toBe(true);
  });

  // LockService.getUserLock: "A code section guarded by a user lock can be executed simultaneously by different users,
  // but by no more than one execution for any given user" (https://developers.google.com/apps-script/reference/lock/lock-service#getuserlock).
  it('the user lock is per effective user: the web app shares the deployer\'s, a staff run has its own', async () => {
    host = makeHost('identity');
    host.faults.add({ target: 'gemini', pause: true });
    const holder = host.run('holdUserLock', [], { kind: 'menu', user: OWNER });
    await host.faults.waitForPausedFetches(1);
    expect(await ok('tryUserLock', { kind: 'webapp' })).toBe(false);
    expect(await ok('tryUserLock', { kind: 'menu', user: STAFF })).toBe(true);
    host.faults.clear();
    await holder;
  });

  // PropertiesService.getUserProperties: "a property store that only the current user can access, and only within
  // this script" (https://developers.google.com/apps-script/reference/properties/properties-service#getuserproperties).
  it('user properties belong to the effective user', async () => {
    host = makeHost('identity');
    await ok('remember', { kind: 'menu', user: STAFF }, ['mine']);
    expect(await ok('recall', { kind: 'menu', user: STAFF })).toBe('mine');
    expect(await ok('recall', { kind: 'menu', user: OWNER })).toBe(null);
    expect(await ok('recall', { kind: 'webapp' })).toBe(null);
  });

  // "the email is always sent from your account" for a trigger you created (installable triggers guide, restrictions).
  it('mail goes out from the effective user', async () => {
    host = makeHost('identity');
    await ok('mail', { kind: 'menu', user: STAFF });
    await ok('mail', { kind: 'webapp' });
    expect(host.outbox.map((m: any) => m.from)).toEqual([STAFF, OWNER]);
  });

  // Quotas are per user: "Email recipients per day" is counted against the account the script runs as
  // (https://developers.google.com/apps-script/guides/services/quotas); getRemainingDailyQuota answers for "you"
  // (https://developers.google.com/apps-script/reference/mail/mail-app#getremainingdailyquota).
  it('the mail quota is the effective user\'s: a staff member\'s run spends theirs, not the deployer\'s', async () => {
    host = makeHost('identity', { mailDailyQuota: 1 });
    await ok('mail', { kind: 'menu', user: STAFF });
    expect(await ok('quotaLeft', { kind: 'menu', user: STAFF })).toBe(0);
    expect(await ok('quotaLeft', { kind: 'webapp' })).toBe(1);
    const refused = await host.run('mail', [], { kind: 'menu', user: STAFF });
    expect(refused.error?.message).toBe('Service invoked too many times for one day: email.');
    await ok('mail', { kind: 'webapp' });
    expect([host.remainingMailQuota(), host.remainingMailQuota(STAFF)]).toEqual([0, 0]);
  });
});

describe('installable edit triggers', () => {
  // The trigger runs as its creator; e.user and Session.getActiveUser name the editor only where Google would reveal
  // them: "these restrictions generally do not apply if the developer runs the script themselves or belongs to the same
  // Google Workspace domain as the user" (https://developers.google.com/apps-script/reference/base/user#getemail;
  // e.user "if available", https://developers.google.com/apps-script/guides/triggers/events#edit).
  it('runs as the trigger\'s creator; the editor is visible only from the creator\'s own Workspace domain', async () => {
    host = makeHost('identity');
    await ok('installEdit', { kind: 'menu', user: OWNER });
    host.loadSheet('Queue', ['status'], [['PENDING']]);
    const [same] = await host.edit({ sheet: 'Queue', a1: 'A2', value: 'SKIPPED', user: STAFF });
    expect(same.value).toEqual({ effective: OWNER, active: STAFF, eventUser: STAFF });
    const [other] = await host.edit({ sheet: 'Queue', a1: 'A2', value: 'PENDING', user: OUTSIDER });
    expect(other.value).toEqual({ effective: OWNER, active: '', eventUser: '' });
    const [self] = await host.edit({ sheet: 'Queue', a1: 'A2', value: 'SKIPPED', user: OWNER });
    expect(self.value).toEqual({ effective: OWNER, active: OWNER, eventUser: OWNER });
  });

  it('two consumer (gmail.com) accounts never see each other', async () => {
    host = makeHost('identity', { ownerEmail: 'owner@gmail.com' });
    await ok('installEdit', { kind: 'menu' });
    host.loadSheet('Queue', ['status'], [['PENDING']]);
    const [run] = await host.edit({ sheet: 'Queue', a1: 'A2', value: 'SKIPPED', user: 'helper@gmail.com' });
    expect(run.value).toEqual({ effective: 'owner@gmail.com', active: '', eventUser: '' });
  });
});

describe('triggers belong to their creator', () => {
  // ScriptApp.getProjectTriggers: "Gets all installable triggers associated with the current project and current
  // user" (https://developers.google.com/apps-script/reference/script/script-app#getprojecttriggers); "A given account
  // cannot see triggers installed from a second account" (installable triggers guide, restrictions).
  it('getProjectTriggers returns only the caller\'s triggers, so a second person installs a second set', async () => {
    host = makeHost('identity');
    expect(await ok('installClock', { kind: 'menu', user: OWNER })).toEqual(['clockProbe']);
    expect(await ok('myTriggers', { kind: 'menu', user: STAFF })).toEqual([]);
    expect(await ok('installClock', { kind: 'menu', user: STAFF })).toEqual(['clockProbe']);
    expect(host.triggers.map((t: any) => t.owner)).toEqual([OWNER, STAFF]);
    expect(await ok('deleteAllMine', { kind: 'menu', user: STAFF })).toBe(0);
    expect(await ok('myTriggers', { kind: 'menu', user: OWNER })).toEqual(['clockProbe']);
  });

  // "Triggers: 20 / user / script" (https://developers.google.com/apps-script/guides/services/quotas#current_limitations),
  // refused with Google's text.
  it('the 21st trigger of one user is refused with Google\'s text; another user still has 20 of their own', async () => {
    host = makeHost('identity');
    expect(await ok('fillTriggers', { kind: 'menu', user: OWNER }))
      .toEqual([20, 'Exception: This script has too many triggers. Triggers must be deleted from the script before more can be added.']);
    expect((await ok('fillTriggers', { kind: 'menu', user: STAFF }))[0]).toBe(20);
    expect(host.triggers.length).toBe(40);
  });

  it('a trigger saved before owners were recorded belongs to the deployer', async () => {
    host = makeHost('identity');
    host.triggers.push({ id: 'old-1', handler: 'clockProbe', type: 'CLOCK', source: 'CLOCK', everyMinutes: 1 });
    expect(await ok('myTriggers', { kind: 'menu', user: OWNER })).toEqual(['clockProbe']);
    const [fired] = await host.tick();
    expect(fired.effectiveUser).toBe(OWNER);
  });
});
