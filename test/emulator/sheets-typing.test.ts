// Contract tests for Sheets typing: strings written by setValues/appendRow/setValue or typed by a person, read as en_US Sheets reads them.
import { afterEach, describe, expect, it } from 'vitest';
import { makeHost } from './helpers';

let host: any;
afterEach(async () => { await host?.dispose(); });
const typed = async (inputs: string[], how = 'setValues') => {
  const e = await host.run('typed', [`T${Math.random()}`, inputs, how]);
  if (e.status !== 'ok') throw new Error(`${e.status} ${e.error?.message}`);
  return e.value as { input: string; type: string; value: unknown; formula: string; display: string; format: string }[];
};
const pick = (cells: Awaited<ReturnType<typeof typed>>, ...keys: string[]) => cells.map((c: any) => keys.map((k) => c[k]));

describe('Sheets typing (en_US)', () => {
  // Range.setValues: values are entered as if typed (developers.google.com/apps-script/reference/spreadsheet/range#setvaluesvalues);
  // number formats Sheets applies to typed 1,234 / 50% / $5 (support.google.com/docs/answer/56470).
  it('numbers, grouped numbers, percents, currency and booleans become values with the format Sheets gives them', async () => {
    host = makeHost('sheets', { timeZone: 'Etc/UTC' });
    const cells = await typed(['42', ' 7 ', '1,234', '1,234.5', '50%', '12.5%', '$5', '-$1,234.50', 'TRUE', 'false', '1,23', '1e3', '007']);
    expect(pick(cells, 'value', 'display', 'format')).toEqual([
      [42, '42', 'General'], [7, '7', 'General'], [1234, '1,234', '#,##0'], [1234.5, '1,234.50', '#,##0.00'],
      [0.5, '50%', '0%'], [0.125, '12.50%', '0.00%'], [5, '$5.00', '"$"#,##0.00'], [-1234.5, '-$1,234.50', '"$"#,##0.00'],
      [true, 'TRUE', 'General'], [false, 'FALSE', 'General'], ['1,23', '1,23', 'General'], [1000, '1000', 'General'], [7, '7', 'General'],
    ]);
  });

  // en_US reads dates month first (support.google.com/docs/answer/58515: the locale decides how dates are read);
  // a date without a year is in the current year; a time alone is a time of day on 12/30/1899 (Sheets' day zero).
  it('dates and times become Date values in the spreadsheet time zone; 1/2 is January 2 of the current year', async () => {
    host = makeHost('sheets', { timeZone: 'America/New_York' });
    host.advanceClock(Date.UTC(2031, 5, 1) - Date.now()); // "current year" is the runtime's clock year
    const cells = await typed(['1/2', '12/25/2026', '1/2/27', '2026-12-01', '2026-12-01 06:01:24', '12:30', '1:05 PM', 'Jan 5', 'March 3, 2026', '2/30/2026']);
    expect(pick(cells, 'type', 'value', 'display')).toEqual([
      ['date', '2031-01-02T05:00:00.000Z', '1/2/2031'],
      ['date', '2026-12-25T05:00:00.000Z', '12/25/2026'],
      ['date', '2027-01-02T05:00:00.000Z', '1/2/2027'],
      ['date', '2026-12-01T05:00:00.000Z', '2026-12-01'],
      ['date', '2026-12-01T11:01:24.000Z', '2026-12-01 6:01:24'],
      ['date', '1899-12-30T17:30:00.000Z', '12:30'],
      ['date', '1899-12-30T18:05:00.000Z', '1:05 PM'],
      ['date', '2031-01-05T05:00:00.000Z', '1/5/2031'],
      ['date', '2026-03-03T05:00:00.000Z', '3/3/2026'],
      ['string', '2/30/2026', '2/30/2026'], // no such day: stays text
    ]);
  });

  // No Google page says how an ISO timestamp with T and Z is read; community answers convert such strings with
  // DATEVALUE/TIMEVALUE formulas, i.e. Sheets keeps them as text. This runtime does the same (documented as unverified).
  it('an ISO timestamp with T and Z stays text', async () => {
    host = makeHost('sheets');
    expect(pick(await typed(['2026-12-01T06:01:24Z', '2026-12-01T06:01:24.123Z']), 'type', 'value')).toEqual([['string', '2026-12-01T06:01:24Z'], ['string', '2026-12-01T06:01:24.123Z']]);
  });

  // A leading + or - that is not a number starts a formula: "+44 20 7946 0958" is a "Formula parse error" (#ERROR!) and
  // "-x" names an unknown range (#NAME?); the fix Google's help forum gives is a leading apostrophe or plain-text format.
  it("a leading + or - makes a formula: '+44 20 7946 0958' and '- item' are #ERROR!, '-x' is #NAME?", async () => {
    host = makeHost('sheets');
    const cells = await typed(['+44 20 7946 0958', '-x', '- buy milk', '+40700022222', '-5', '-', "'+44 20 7946 0958"]);
    expect(pick(cells, 'value', 'formula', 'display')).toEqual([
      ['#ERROR!', '=+44 20 7946 0958', '#ERROR!'], ['#NAME?', '=-x', '#NAME?'], ['#ERROR!', '=- buy milk', '#ERROR!'],
      [40700022222, '', '40700022222'], [-5, '', '-5'], ['-', '', '-'], ['+44 20 7946 0958', '', '+44 20 7946 0958'],
    ]);
  });

  // The same rules hold for appendRow and setValue (both "user-entered"), and a plain-text '@' format keeps every string.
  it('appendRow and setValue parse the same way; a plain-text column keeps the text', async () => {
    host = makeHost('sheets');
    const inputs = ['50%', '1/2/2026', '-x', '1,234'];
    expect(pick(await typed(inputs, 'appendRow'), 'value')).toEqual([[0.5], ['2026-01-02T00:00:00.000Z'], ['#NAME?'], [1234]]);
    expect(pick(await typed(inputs, 'setValue'), 'value')).toEqual([[0.5], ['2026-01-02T00:00:00.000Z'], ['#NAME?'], [1234]]);
    expect(pick(await typed(inputs, 'plain'), 'value', 'formula', 'format')).toEqual(inputs.map((s) => [s, '', '@']));
  });

  // GET /api/sheets/NAME's source: the host's JSON carries what Sheets shows beside the raw values.
  it('sheetJson shows display values beside raw values', async () => {
    host = makeHost('sheets');
    await host.run('writeCells', ['J', 'A1:B2', [['h1', 'h2'], ['50%', '-x']]]);
    const json = host.sheetJson('J');
    expect([json.rows, json.display, json.formulas]).toEqual([[[0.5, '#NAME?']], [['50%', '#NAME?']], [['', '=-x']]]);
  });
});
