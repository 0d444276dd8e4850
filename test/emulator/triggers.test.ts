// Contract tests for ScriptApp triggers, the trigger clock and installable on-edit events.
import { afterEach, describe, expect, it } from 'vitest';
import { makeHost } from './helpers';

let host: any;
afterEach(async () => { await host?.dispose(); });
const ok = async (fn: string, args: unknown[] = [], opts: object = {}) => {
  const e = await host.run(fn, args, opts);
  if (e.status !== 'ok') throw new Error(`${fn}: ${e.status} ${e.error?.message}`);
  return e.value;
};

describe('ScriptApp triggers', () => {
  // [GAS-TRIG] everyMinutes accepts 1, 5, 10, 15 or 30; getEventType returns ScriptApp.EventType values.
  it('installs clock and spreadsheet triggers and refuses an invalid everyMinutes', async () => {
    host = makeHost('triggers');
    expect(await ok('install')).toEqual({
      invalid: 'Exception: The value you passed to everyMinutes was invalid. It must be one of 1, 5, 10, 15 or 30.',
      triggers: [['tick', 'CLOCK', 'CLOCK'], ['tock', 'CLOCK', 'CLOCK'], ['onEditInstallable', 'ON_EDIT', 'SPREADSHEETS']],
    });
    expect(host.triggers.map((t: any) => [t.handler, t.type, t.everyMinutes])).toEqual([['tick', 'CLOCK', 1], ['tock', 'CLOCK', 5], ['onEditInstallable', 'ON_EDIT', undefined]]);
    expect(await ok('removeFirst')).toBe(2);
  });

  // [GAS-QUOTA] 20 triggers per user per script.
  it('a 21st trigger is refused with "This script has too many triggers."', async () => {
    host = makeHost('triggers');
    expect(await ok('fill')).toEqual([20, 'Exception: This script has too many triggers. Triggers must be deleted from the script before more can be added.']);
  });

  // [GAS-TRIG] each firing is its own execution with a time-driven event object.
  it('a clock tick fires every installed clock trigger as a separate execution', async () => {
    host = makeHost('triggers');
    await ok('install');
    const runs = await host.tick();
    expect(runs.map((r: any) => [r.kind, r.status, r.value.fn, r.value.minute])).toEqual([['trigger', 'ok', 'tick', 'number'], ['trigger', 'ok', 'tock', 'number']]);
    expect(new Set(runs.map((r: any) => r.id)).size).toBe(2);
    expect(runs.map((r: any) => r.value.uid)).toEqual(host.triggers.slice(0, 2).map((t: any) => t.id));
  });

  // [GAS-TRIG] installable on-edit: e.range, e.value, e.oldValue (absent for an empty cell), e.user, e.source.
  it('an edit applies the value and fires the on-edit trigger with Sheets\' event fields', async () => {
    host = makeHost('triggers');
    await ok('install');
    host.loadSheet('Queue', ['status', 'note'], [['AWAITING_APPROVAL', '']]);
    const [changed] = await host.edit({ sheet: 'Queue', a1: 'A2', value: 'APPROVED', user: 'staff@example.com' });
    expect(changed.kind).toBe('edit');
    expect(changed.value).toEqual({
      a1: 'A2', sheet: 'Queue', value: 'APPROVED', oldValue: 'AWAITING_APPROVAL', hasOld: true, user: 'staff@example.com', source: 'local-spreadsheet', cell: 'APPROVED', authMode: 'FULL', uid: 'string',
    });
    const [fresh] = await host.edit({ sheet: 'Queue', a1: 'B2', value: '12', user: 'staff@example.com' });
    expect([fresh.value.value, fresh.value.hasOld, fresh.value.cell]).toEqual(['12', false, 12]);
  });
});
