// Contract tests for scopes: a call the manifest's oauthScopes do not grant fails with Google's permission text.
import { afterEach, describe, expect, it } from 'vitest';
import { SCOPE_TABLE, scopesFor } from '../../emulator/scopes.mjs';
import { bundleWithManifest, disposeHost, makeHost } from './helpers';
import { realmSurface } from './realm-surface';

let host: any;
afterEach(() => disposeHost(host));
const denied = (method: string, required: string) => ({ error: `Exception: You do not have permission to call ${method}. Required permissions: ${required}` });

describe('authorization scopes', () => {
  // Explicit oauthScopes replace detection (https://developers.google.com/apps-script/concepts/scopes#setting_explicit_scopes);
  // each reference page lists the scopes a method needs under "Authorization"; Google's refusal reads "You do not have
  // permission to call Session.getActiveUser. Required permissions: https://www.googleapis.com/auth/userinfo.email"
  // (as reported in github.com/hijonathan/google-scripts/issues/14).
  it('a call outside the manifest\'s oauthScopes fails with Google\'s text; granted and scope-free calls work', async () => {
    host = makeHost('scopes');
    const r = (await host.run('probe', [], { kind: 'menu' })).value;
    expect(r.sheet).toEqual({ ok: 1 });
    expect(r.openById).toEqual(denied('SpreadsheetApp.openById', 'https://www.googleapis.com/auth/spreadsheets'));
    expect(r.fetch).toEqual(denied('UrlFetchApp.fetch', 'https://www.googleapis.com/auth/script.external_request'));
    expect(r.mail).toEqual(denied('MailApp.sendEmail', 'https://www.googleapis.com/auth/script.send_mail'));
    expect(r.user).toEqual(denied('Session.getActiveUser', 'https://www.googleapis.com/auth/userinfo.email'));
    expect(r.trigger).toEqual(denied('ScriptApp.newTrigger', 'https://www.googleapis.com/auth/script.scriptapp'));
    expect(r.timeZone).toEqual({ ok: 'Etc/UTC' });
    expect(r.sidebar).toEqual({ ok: 'shown' });
    expect(r.lock).toEqual({ ok: true });
    expect(host.outbox).toHaveLength(0);
  });

  it('alternatives are written as Google writes them: (a || b)', async () => {
    const bundleDir = bundleWithManifest('scopes', { oauthScopes: ['https://www.googleapis.com/auth/script.container.ui'] });
    host = makeHost('scopes', { bundleDir });
    const r = (await host.run('probe', [], { kind: 'menu' })).value;
    expect(r.sheet).toEqual(denied('SpreadsheetApp.getActiveSpreadsheet',
      '(https://www.googleapis.com/auth/spreadsheets.currentonly || https://www.googleapis.com/auth/spreadsheets)'));
    expect(r.sidebar).toEqual(denied('SpreadsheetApp.getUi',
      '(https://www.googleapis.com/auth/spreadsheets.currentonly || https://www.googleapis.com/auth/spreadsheets)'));
  });

  // Without oauthScopes Apps Script grants what the code uses (scopes guide): nothing is refused.
  it('a manifest without oauthScopes (or none at all) grants every call', async () => {
    host = makeHost('identity');
    const run = await host.run('mail', [], { kind: 'menu' });
    expect(run.status).toBe('ok');
  });

  it('the table names the scopes of every method the realm exposes', () => {
    expect(realmSurface().methods.filter((m) => scopesFor(m) === undefined)).toEqual([]);
    expect(SCOPE_TABLE.every(([, , source]) => /^https:\/\//.test(source))).toBe(true);
  });

  // formqueue's appsscript.json: everything it calls is granted; only GmailApp (which it never calls) is refused.
  it('the product\'s manifest leaves only GmailApp denied', async () => {
    host = makeHost('scopes', { bundleDir: 'dist' });
    expect(Object.entries(host.deniedCalls).filter(([, required]) => required !== null).map(([pattern]) => pattern).sort())
      .toEqual(['GmailApp.*', 'GmailMessage.*', 'GmailThread.*']);
  });
});
