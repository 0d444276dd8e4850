// The manifest the build writes: no Gmail read access by default; --reconcile-sent-mail adds the advanced service and gmail.readonly.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkedTimeZone, GMAIL_ADVANCED_SERVICE, GMAIL_READONLY, manifestFor } from '../../scripts/manifest.mjs';
import { spawnSync } from 'node:child_process';

const committed = JSON.parse(readFileSync(new URL('../../appsscript.json', import.meta.url), 'utf8'));
const gmailRead = (scopes: string[]) => scopes.filter((scope) => /gmail|mail\.google\.com/.test(scope));

describe('the built manifest', () => {
  it('by default asks for no Gmail read scope and enables no advanced service', () => {
    const built = manifestFor(committed);
    expect(gmailRead(built.oauthScopes)).toEqual([]);
    expect(built.dependencies?.enabledAdvancedServices ?? []).toEqual([]);
    expect(built).toEqual(committed);
  });

  it('with RECONCILE_SENT_MAIL adds gmail.readonly and the Gmail advanced service, keeping every other scope', () => {
    const built = manifestFor(committed, { reconcileSentMail: true });
    expect(gmailRead(built.oauthScopes)).toEqual([GMAIL_READONLY]);
    expect(built.oauthScopes.slice(0, -1)).toEqual(committed.oauthScopes);
    expect(built.dependencies.enabledAdvancedServices).toEqual([GMAIL_ADVANCED_SERVICE]);
    expect(manifestFor(built, { reconcileSentMail: true })).toEqual(built);
  });

  it('with a time zone sets timeZone to it and changes nothing else; with none keeps the committed one', () => {
    expect(committed.timeZone).toBe('Etc/UTC');
    const built = manifestFor(committed, { timeZone: 'Europe/Berlin' });
    expect(built).toEqual({ ...committed, timeZone: 'Europe/Berlin' });
    expect(manifestFor(committed, { timeZone: '' })).toEqual(committed);
    expect(manifestFor(committed, { timeZone: 'America/New_York', reconcileSentMail: true })).toMatchObject({ timeZone: 'America/New_York', oauthScopes: expect.arrayContaining([GMAIL_READONLY]) });
  });

  it.each(['Berlin', 'Europe/Berlinn', '+02:00', 'CET+1', ' '])('refuses "%s" as a time zone id, naming ones that work', (zone) => {
    expect(() => checkedTimeZone(zone)).toThrow(/is not a time zone id: use one like Europe\/Berlin, America\/New_York or Etc\/UTC/);
  });

  it('the build stops on a wrong FORMQUEUE_TIME_ZONE with that message and exit code 2, before dist/ changes', () => {
    const build = new URL('../../scripts/build.mjs', import.meta.url).pathname;
    const root = new URL('../..', import.meta.url).pathname;
    const run = spawnSync(process.execPath, [build, '--quiet'], { cwd: root, encoding: 'utf8', env: { ...process.env, FORMQUEUE_TIME_ZONE: 'Mars/Olympus' } });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('build: "Mars/Olympus" is not a time zone id');
  });
});
