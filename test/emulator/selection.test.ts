// Contract tests for the selection a menu action sees: one range or several (Ctrl/Cmd-click), through getActiveRangeList.
import { afterEach, describe, expect, it } from 'vitest';
import { makeHost } from './helpers';

let host: any;
afterEach(async () => { await host?.dispose(); });

describe('the active selection', () => {
  // Spreadsheet.getActiveRangeList: "Returns the list of active ranges in the active sheet or null if there are no
  // active ranges"; getActiveRange: "If multiple ranges are selected this method returns only the last selected range"
  // (https://developers.google.com/apps-script/reference/spreadsheet/spreadsheet#getactiverangelist,
  // https://developers.google.com/apps-script/reference/spreadsheet/selection#getactiverange).
  it('several selected ranges come back in order; the active range is the last one', async () => {
    host = makeHost('selection');
    host.loadSheet('Queue', ['status'], [['a'], ['b'], ['c']]);
    const run = await host.run('selection', [], { kind: 'menu', activeRange: { sheet: 'Queue', a1: 'A2:A3,C5' } });
    expect(run.value).toEqual({ list: ['A2:A3', 'C5'], fromApp: 2, active: 'C5', sheet: 'Queue' });
    const listed = await host.run('selection', [], { kind: 'menu', activeRange: { sheet: 'Queue', a1: ['B2', 'B4'] } });
    expect(listed.value.list).toEqual(['B2', 'B4']);
  });

  it('no selection is null, one range is a list of one, and activate() replaces the selection', async () => {
    host = makeHost('selection');
    host.loadSheet('Queue', ['status'], [['a']]);
    expect((await host.run('selection', [], { kind: 'menu' })).value).toMatchObject({ list: null, fromApp: null, active: null });
    expect((await host.run('selection', [], { kind: 'menu', activeRange: { sheet: 'Queue', a1: 'A2' } })).value.list).toEqual(['A2']);
    expect((await host.run('activateThenList', [], { kind: 'menu', activeRange: { sheet: 'Queue', a1: 'A2,A3' } })).value).toEqual(['D7']);
  });
});
