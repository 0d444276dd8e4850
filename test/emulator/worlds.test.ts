// Contract tests for the world switches (emulator/worlds.mjs): in each reading of what Google does not document, the
// runtime fires exactly the triggers and event shape that reading says, and each reading's source is the one cited.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { WORLD_SWITCHES, resolveWorlds, worldReading } from '../../emulator/worlds.mjs';
import { makeHost } from './helpers';

const ANA = 'ana@example.com';
let host: any;
afterEach(async () => { await host?.dispose(); host = undefined; });

/** A host in the given worlds over the purpose-written edits bundle, its probes installed on sheet Q. */
async function hostIn(worlds: Record<string, string>) {
  host = makeHost('edits', { worlds });
  expect((await host.run('install')).status).toBe('ok');
  expect((await host.run('decorate', ['Q'])).status).toBe('ok');
  return host;
}
/** What each trigger run was told (the probes return their event), on-edit runs first. */
async function events(edit: Record<string, unknown>) {
  const runs = await host.edit({ sheet: 'Q', user: ANA, ...edit });
  for (const r of runs) if (r.status !== 'ok') throw new Error(`${r.functionName}: ${r.error?.message}`);
  return runs.map((r: any) => r.value);
}
const sourceOf = (key: string, value: string) => WORLD_SWITCHES.find((s) => s.key === key)!.readings.find((r) => r.value === value)!.source;

describe('the world table', () => {
  it('every switch has a default among its readings, and every reading says what happens and who says so', () => {
    for (const world of WORLD_SWITCHES) {
      expect(world.readings.map((r) => r.value)).toContain(world.defaultReading);
      for (const reading of world.readings) expect([reading.says.length > 0, reading.source.length > 0]).toEqual([true, true]);
    }
    expect(resolveWorlds()).toEqual({ paste: 'none', sort: 'edit-other', userLock: 'per-deployer', sentCopy: 'at-once', overload: 'behind-302', activeSpreadsheet: 'container', bounceOriginal: 'inline', typeformRedirect: 'follow' });
  });

  it('a switch or reading the table does not list is refused, so a typo never runs the default world', () => {
    expect(() => makeHost('edits', { worlds: { pasta: 'none' } })).toThrow('no world switch "pasta"; switches: paste, sort, userLock, sentCopy, overload, activeSpreadsheet, bounceOriginal, typeformRedirect');
    expect(() => makeHost('edits', { worlds: { paste: 'old-only' } })).toThrow('world switch paste has no reading "old-only"; readings: none, value-only');
  });

  it('a reading that takes a number takes a whole one: late, late:30; not late:x, late:30:1, or a number on a reading that takes none', () => {
    expect(resolveWorlds({ sentCopy: 'late' }).sentCopy).toBe('late');
    expect(resolveWorlds({ sentCopy: 'late:30' }).sentCopy).toBe('late:30');
    expect(worldReading('sentCopy', 'late')).toEqual({ reading: 'late', arg: 120 });
    expect(worldReading('sentCopy', 'late:30')).toEqual({ reading: 'late', arg: 30 });
    expect(worldReading('sentCopy', 'absent')).toEqual({ reading: 'absent', arg: null });
    for (const bad of ['late:x', 'late:30:1', 'absent:5', 'late:']) {
      expect(() => resolveWorlds({ sentCopy: bad })).toThrow(`world switch sentCopy has no reading "${bad}"; readings: at-once, late[:MINUTES], absent`);
    }
  });

  it('docs/runtime.md lists every switch and reading with its source', () => {
    const docs = readFileSync(new URL('../../docs/runtime.md', import.meta.url), 'utf8');
    for (const world of WORLD_SWITCHES) {
      for (const reading of world.readings) expect(docs).toContain(`\`${world.key}=${reading.value}\``);
    }
    expect(docs).toContain('https://github.com/tanaikech/GetEditType');
    expect(docs).toContain('theappsscriptlab.com');
    expect(docs).toContain('https://developers.google.com/apps-script/reference/lock/lock-service#getUserLock()');
    expect(docs).toContain('https://github.com/tanaikech/taking-advantage-of-Web-Apps-with-google-apps-script');
    expect(docs).toContain('https://developers.google.com/apps-script/reference/mail/mail-app');
    expect(docs).toContain('https://developers.google.com/apps-script/guides/bound');
  });
});

const EDIT = { fn: 'edit', sheet: 'Q', user: ANA, authMode: 'FULL', uid: 'string', source: 'local-spreadsheet', hasChangeType: false };
const CHANGE = (changeType: string) => ({ fn: 'change', changeType, hasRange: false, user: ANA, authMode: 'FULL', uid: 'string', source: 'local-spreadsheet' });

describe('paste: the on-edit event of one pasted cell', () => {
  // Google: value and oldValue exist "only if the edited range is a single cell" and nothing on pastes
  // (developers.google.com/apps-script/guides/triggers/events#edit).
  it('paste=none: neither e.value nor e.oldValue (tanaikech/GetEditType, GetEditType.js: "OTHER", a value pasted to a cell)', async () => {
    expect(sourceOf('paste', 'none')).toMatch(/tanaikech\/GetEditType.*OTHER/);
    await hostIn({ paste: 'none' });
    expect(await events({ op: 'paste', a1: 'A2', values: [['READY']] })).toEqual([{ ...EDIT, a1: 'A2', hasValue: false, hasOld: false }, CHANGE('EDIT')]);
  });

  it('paste=value-only: e.value is what was pasted and e.oldValue is absent though the cell held PENDING (GetEditType.js: "PUT_VALUE")', async () => {
    expect(sourceOf('paste', 'value-only')).toMatch(/tanaikech\/GetEditType.*PUT_VALUE/);
    await hostIn({ paste: 'value-only' });
    expect(await events({ op: 'paste', a1: 'A2', values: [['READY']] })).toEqual([{ ...EDIT, a1: 'A2', hasValue: true, value: 'READY', hasOld: false }, CHANGE('EDIT')]);
    // The value told is the cell as stored, as for a typed value: pasted text is read as typed.
    expect((await events({ op: 'paste', a1: 'D2', values: [['50%']] }))[0]).toMatchObject({ hasValue: true, value: '0.5', hasOld: false });
  });

  it('paste=value-only: an empty pasted cell tells no value (GetEditType\'s REMOVE_VALUE), and a pasted block has neither (single cells only)', async () => {
    await hostIn({ paste: 'value-only' });
    expect((await events({ op: 'paste', a1: 'C2', values: [['']] }))[0]).toMatchObject({ a1: 'C2', hasValue: false, hasOld: false });
    expect((await events({ op: 'paste', a1: 'A2', values: [['READY'], ['SENT']] }))[0]).toMatchObject({ a1: 'A2:A3', hasValue: false, hasOld: false });
  });

  it('typing and clearing are documented, so no paste world changes them', async () => {
    await hostIn({ paste: 'value-only' });
    expect((await events({ a1: 'A2', value: 'READY' }))[0]).toMatchObject({ hasValue: true, value: 'READY', hasOld: true, oldValue: 'PENDING' });
    expect((await events({ op: 'clear', a1: 'A3' }))[0]).toMatchObject({ hasValue: false, hasOld: true, oldValue: 'SENT' });
  });
});

describe('sort: the triggers a sort fires (no Google page covers sorting)', () => {
  it('sort=edit-other: on-edit with the sorted rows and no value, and on-change OTHER (theappsscriptlab.com: "Move a column or row with data" fires both)', async () => {
    expect(sourceOf('sort', 'edit-other')).toMatch(/theappsscriptlab\.com.*with data/);
    await hostIn({ sort: 'edit-other' });
    expect(await events({ op: 'sort', column: 'id', ascending: false })).toEqual([{ ...EDIT, a1: 'A2:D5', hasValue: false, hasOld: false }, CHANGE('OTHER')]);
  });

  it('sort=change-only: on-change OTHER and no on-edit (theappsscriptlab.com: "Move a column or row without data" fires on-change only)', async () => {
    expect(sourceOf('sort', 'change-only')).toMatch(/theappsscriptlab\.com.*without data/);
    await hostIn({ sort: 'change-only' });
    expect(await events({ op: 'sort', column: 'id', ascending: false })).toEqual([CHANGE('OTHER')]);
    expect(host.sheetJson('Q').rows.map((r: unknown[]) => r[1])).toEqual(['e4', 'e3', 'e2', 'e1']); // the rows moved all the same
  });

  it('sort=none: no trigger fires (no report; on-edit fires when "a user changes a value", and a sort changes none)', async () => {
    expect(sourceOf('sort', 'none')).toMatch(/a user changes a value/);
    await hostIn({ sort: 'none' });
    expect(await events({ op: 'sort', column: 'id', ascending: false })).toEqual([]);
    expect(host.sheetJson('Q').rows.map((r: unknown[]) => r[1])).toEqual(['e4', 'e3', 'e2', 'e1']);
  });
});
