// Contract tests for Google's limits, each with the error text Google gives: cache, properties, cell size, the
// 10,000,000-cell grid and 30 simultaneous executions per user.
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../emulator/server.mjs';
import { makeHost } from './helpers';

let host: any;
let server: { url: string; close(): Promise<void> } | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  host?.faults.clear();
  await host?.dispose();
});

const run = async (fn: string, args: unknown[] = []) => (await host.run(fn, args, { kind: 'api' })).value;

describe('storage limits', () => {
  // https://developers.google.com/apps-script/reference/cache/cache: keys up to 250 characters, values up to 100 KB;
  // past them put and get throw "Argument too large: key" / "Argument too large: value".
  it('a cache key of 251 characters is refused with "Argument too large: key"; 250 characters and 100 KB values are kept', async () => {
    host = makeHost('limits');
    expect(await run('cacheLimits')).toEqual({
      key250: { ok: 'v' },
      key251: { error: 'Exception: Argument too large: key' },
      getKey251: { error: 'Exception: Argument too large: key' },
      value100k: { ok: 'stored' },
      valueOver: { error: 'Exception: Argument too large: value' },
    });
  });

  // https://developers.google.com/apps-script/guides/services/quotas: 9 KB per property value, 500 KB per store;
  // the store refusal is quoted in https://justin.poehnelt.com/posts/apps-script-key-value-stores.
  it('a property value over 9 KB and a store over 500 KB are refused with Google\'s messages, and a refused write stores nothing', async () => {
    host = makeHost('limits');
    const r = await run('propertyLimits');
    expect(r.value9k).toEqual({ ok: 'stored' });
    expect(r.valueOver).toEqual({ error: 'Exception: Argument too large: value' });
    expect(r.store).toEqual({ error: 'Exception: You have exceeded the property storage quota. Please remove some properties and try again.' });
    const total = Object.entries(host.properties.getAll() as Record<string, string>).reduce((n, [k, v]) => n + k.length + v.length, 0);
    expect(total).toBeLessThanOrEqual(500 * 1024);
    expect(r.kept).toBeGreaterThan(50);
  });

  // https://support.google.com/drive/answer/37603: 50,000 characters per cell.
  it('a cell of 50,001 characters is refused with Sheets\' message; 50,000 are kept', async () => {
    host = makeHost('limits');
    expect(await run('cellLimit', [50000])).toEqual({ ok: 50000 });
    expect(await run('cellLimit', [50001])).toEqual({ error: 'Exception: Your input contains more than the maximum of 50000 characters in a single cell.' });
  });
});

describe('10,000,000 cells per spreadsheet, empty grid cells included', () => {
  // https://support.google.com/drive/answer/37603 (10 million cells); the refusal's wording is Google's, as Apps Script
  // and the Sheets API report it ("This action would increase the number of cells in the workbook above the limit of
  // 10000000 cells."). A new sheet is 1000 rows × 26 columns whether or not anything is written in it.
  const REFUSAL = 'Exception: This action would increase the number of cells in the workbook above the limit of 10000000 cells.';

  it('insertSheet adds 1000 × 26 grid cells until the 385th sheet would pass the limit', async () => {
    host = makeHost('limits');
    const r = await run('fillWithSheets');
    expect(r).toEqual({ added: 383, refusal: REFUSAL, cells: 384 * 26000, size: [1000, 26] });
    expect(host.ss.sheets.length).toBe(384);
  });

  it('inserting rows and appendRow past the grid grow it, and are refused once the grid would pass the limit; deleting a sheet frees its cells', async () => {
    host = makeHost('limits');
    await run('fillWithSheets'); // 9,984,000 cells: room for 16,000 more, i.e. 615 rows of 26 columns
    expect(await run('insertRows', ['S0', 615])).toEqual({ ok: 1615 });
    expect(await run('gridCells')).toBe(9_999_990);
    expect(await run('insertRows', ['S0', 1])).toEqual({ error: REFUSAL });
    expect(await run('appendPastGrid', ['S1'])).toEqual({ error: REFUSAL });
    expect(await run('gridCells')).toBe(9_999_990);
    expect(await run('deleteSheet', ['S2'])).toBe(9_999_990 - 26000);
    expect(await run('appendPastGrid', ['S1'])).toEqual({ ok: 1001 });
  });
});

describe('30 simultaneous executions per user', () => {
  // https://developers.google.com/apps-script/guides/services/quotas: "Simultaneous executions 30 / user". The surplus
  // web-app call is answered 200 with an HTML "Error" page saying "Service invoked too many times in a short time:
  // exec qps. …" (tanaikech/taking-advantage-of-Web-Apps-with-google-apps-script, README error table); other runs
  // fail with "There are too many scripts running simultaneously for this Google user account." (quotas page).
  it('the 31st web-app call while 30 run as the deployer does not run doPost: its caller gets 200 with Google\'s HTML error page, and /api/health counts it', async () => {
    host = makeHost('limits');
    host.faults.add({ target: 'gemini', pause: true });
    const parked = Array.from({ length: 30 }, () => host.run('doPost', [{}], { kind: 'webapp' }));
    await host.faults.waitForPausedFetches(30);
    server = await startServer({ host, port: 0 });

    const res = await fetch(`${server.url}/exec`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('<title>Error</title>');
    expect(page).toContain('Service invoked too many times in a short time: exec qps. Try Utilities.sleep(1000) between calls.');
    const refused = host.executions.at(-1);
    expect(refused).toMatchObject({ functionName: 'doPost', kind: 'webapp', status: 'refused', serviceCalls: 0 });
    expect(host.faults.paused.length).toBe(30); // doPost never ran: no 31st fetch was started

    const health = (await (await fetch(`${server.url}/api/health`)).json()) as { refusedExecutions: number };
    expect(health.refusedExecutions).toBe(1);

    host.faults.clear();
    expect((await Promise.all(parked)).map((e: any) => e.status)).toEqual(Array(30).fill('ok'));
    expect((await host.run('doPost', [{}], { kind: 'webapp' })).status).toBe('ok');
  });

  it('a surplus trigger run is recorded as refused with the quota page\'s error, while another user\'s run still starts', async () => {
    host = makeHost('limits');
    host.faults.add({ target: 'gemini', pause: true });
    const parked = Array.from({ length: 30 }, () => host.run('park', [], { kind: 'trigger' }));
    await host.faults.waitForPausedFetches(30);

    const refused = await host.run('quick', [], { kind: 'trigger' });
    expect(refused.status).toBe('refused');
    expect(refused.error).toEqual({ name: 'Exception', message: 'There are too many scripts running simultaneously for this Google user account.' });
    expect(refused.value).toBeUndefined();
    expect(host.refusals).toBe(1);

    const other = await host.run('quick', [], { kind: 'api', user: 'staff@example.com' });
    expect(other).toMatchObject({ status: 'ok', value: 'ran' });

    host.faults.clear();
    await Promise.all(parked);
  });
});
