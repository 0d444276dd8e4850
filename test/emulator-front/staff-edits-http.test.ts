// POST /api/edit's staff actions over HTTP through the real GasHost (test/emulator/scripts/edits installs probe triggers).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { load, type Served, type ServerModule } from './support';

const EDITS = new URL('../emulator/scripts/edits', import.meta.url).pathname;
interface RealHost { load(): Promise<void>; dispose(): Promise<void>; run(fn: string, args?: unknown[]): Promise<{ status: string }> }
interface HostModule { GasHost: new (o: Record<string, unknown>) => RealHost }

let host: RealHost;
let server: Served;
beforeEach(async () => {
  const { GasHost } = await load<HostModule>('emulator/host.mjs');
  host = new GasHost({ bundleDir: EDITS, dataDir: null });
  await host.load();
  expect((await host.run('install')).status).toBe('ok');
  expect((await host.run('decorate', ['Queue'])).status).toBe('ok');
  server = await (await load<ServerModule>('emulator/server.mjs')).startServer({ host, port: 0 });
});
afterEach(async () => { await server?.close(); await host?.dispose(); });

const edit = async (body: unknown) => {
  const res = await fetch(`${server.url}/api/edit`, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
};
const fired = (json: any) => json.executions.map((x: any) => [x.functionName, x.kind, x.status]);
const sheet = async () => (await (await fetch(`${server.url}/api/sheets/Queue`)).json()) as any;

describe('POST /api/edit staff actions', () => {
  // Event fields per action: developers.google.com/apps-script/guides/triggers/events (#edit, #change).
  it('paste, clear and sort fire on-edit and on-change; insertRows and deleteRows fire on-change only', async () => {
    expect(fired((await edit({ op: 'paste', sheet: 'Queue', a1: 'A2', values: [['READY']] })).json)).toEqual([['onEditProbe', 'edit', 'ok'], ['onChangeProbe', 'edit', 'ok']]);
    expect(fired((await edit({ op: 'clear', sheet: 'Queue', a1: 'C3' })).json)).toEqual([['onEditProbe', 'edit', 'ok'], ['onChangeProbe', 'edit', 'ok']]);
    expect(fired((await edit({ op: 'sort', sheet: 'Queue', column: 'id', ascending: false })).json)).toEqual([['onEditProbe', 'edit', 'ok'], ['onChangeProbe', 'edit', 'ok']]);
    expect((await sheet()).rows.map((r: unknown[]) => r[1])).toEqual(['e4', 'e3', 'e2', 'e1']);
    expect(fired((await edit({ op: 'insertRows', sheet: 'Queue', before: 2, count: 1 })).json)).toEqual([['onChangeProbe', 'edit', 'ok']]);
    expect(fired((await edit({ op: 'deleteRows', sheet: 'Queue', row: 2, count: 1 })).json)).toEqual([['onChangeProbe', 'edit', 'ok']]);
    expect((await sheet()).rows.map((r: unknown[]) => r[1])).toEqual(['e4', 'e3', 'e2', 'e1']);
  });

  // Sheets typing (Range.setValues "user-entered" rules) applies to what staff type and paste; the sheet JSON shows
  // what Sheets would display beside the raw values.
  it('GET /api/sheets/NAME shows display values for what staff typed', async () => {
    await edit({ op: 'paste', sheet: 'Queue', a1: 'C2', values: [['-x', '50%']] });
    const json = await sheet();
    expect([json.rows[0].slice(2), json.display[0].slice(2), json.formulas[0].slice(2)]).toEqual([['#NAME?', 0.5], ['#NAME?', '50%'], ['=-x', '']]);
  });

  it('refuses an unknown op, a paste without values and a value outside a rejecting dropdown with 400', async () => {
    expect(await edit({ op: 'fold', sheet: 'Queue' })).toMatchObject({ status: 400, json: { error: expect.stringMatching(/"op" must be one of set, paste/) } });
    expect(await edit({ op: 'paste', sheet: 'Queue', a1: 'A2' })).toMatchObject({ status: 400, json: { error: expect.stringMatching(/needs "values"/) } });
    expect(await edit({ op: 'paste', sheet: 'Queue', a1: 'A2', values: [['NOPE']] })).toMatchObject({ status: 400, json: { error: expect.stringMatching(/violates the data validation/) } });
    expect(await edit({ op: 'sort', sheet: 'Nope', column: 'id' })).toMatchObject({ status: 404 });
  });
});
