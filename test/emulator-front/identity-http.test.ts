// Who runs what, over HTTP: POST /api/run's "user", the web app as the deployer, GET /api/triggers with each owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GasHost } from '../../emulator/host.mjs';
import { startServer } from '../../emulator/server.mjs';

const IDENTITY = new URL('../emulator/scripts/identity', import.meta.url).pathname;
const OWNER = 'deployer@example.com';
const STAFF = 'staff@example.com';
const post = async (url: string, body: unknown = {}): Promise<any> => (await fetch(url, { method: 'POST', body: JSON.stringify(body) })).json();

describe('identities over HTTP', () => {
  let host: any;
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    host = new GasHost({ bundleDir: IDENTITY, dataDir: null, ownerEmail: OWNER });
    server = await startServer({ host, port: 0 });
  });
  afterAll(async () => { await server?.close(); await host?.dispose(); });

  // Menu items and functions run from the editor execute as "the user at the keyboard"
  // (https://developers.google.com/apps-script/guides/services/authorization#permissions_and_types_of_scripts).
  it('POST /api/run runs as {"user"} and, without one, as the owner', async () => {
    expect(await post(`${server.url}/api/run/whoAmI`, { user: STAFF }))
      .toMatchObject({ ok: true, effectiveUser: STAFF, activeUser: STAFF, value: { effective: STAFF, active: STAFF } });
    expect(await post(`${server.url}/api/run/whoAmI`)).toMatchObject({ effectiveUser: OWNER, value: { effective: OWNER, active: OWNER } });
  });

  // A web app set to "Execute as: me" runs as the deployer; the anonymous caller is not revealed
  // (https://developers.google.com/apps-script/reference/base/user#getemail).
  it('POST /exec runs doPost as the deployer', async () => {
    const text = await (await fetch(`${server.url}/exec`, { method: 'POST', body: '{}' })).text();
    expect(JSON.parse(text)).toEqual({ effective: OWNER, active: '' });
  });

  // "Installable triggers always run under the account of the person who created them"
  // (https://developers.google.com/apps-script/guides/triggers/installable#restrictions).
  it('GET /api/triggers shows who created each trigger', async () => {
    await post(`${server.url}/api/run/installClock`, { user: STAFF });
    await post(`${server.url}/api/run/installClock`);
    const triggers: any = await (await fetch(`${server.url}/api/triggers`)).json();
    expect(triggers.map((t: any) => [t.handler, t.owner])).toEqual([['clockProbe', STAFF], ['clockProbe', OWNER]]);
    const executions: any = await (await fetch(`${server.url}/api/executions`)).json();
    expect(executions.at(-1)).toMatchObject({ functionName: 'installClock', effectiveUser: OWNER, activeUser: OWNER });
  });
});
