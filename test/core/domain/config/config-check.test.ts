// Config cells judged one by one: yes/no columns, addresses, and model ids — one, or a list in order of preference.
import { describe, expect, it } from 'vitest';
import { configCellProblem, readYesNo } from '../../../../src/core/domain/config/config-check';

describe('configCellProblem', () => {
  it.each<[string, unknown, string | null]>([
    ['model', '', null],
    ['model', 'gemini-2.5-flash', null],
    ['model', 'models/gemini-3.5-flash-lite', null],
    ['model', 'gemini-3.5-flash, gemini-2.5-flash', null],
    ['model', 'gemini-3.5-flash,, gemma-3-27b-it', null],
    ['model', 'gpt-4o', 'model "gpt-4o" is not a Gemini model id (like gemini-2.5-flash; several are separated by commas); leave it empty for GEMINI_MODEL'],
    ['model', 'gemini-3.5-flash, gpt-4o', 'model "gpt-4o" is not a Gemini model id (like gemini-2.5-flash; several are separated by commas); leave it empty for GEMINI_MODEL'],
    ['enabled', 'yes please', 'enabled "yes please" is neither yes nor no: tick the checkbox for yes, leave it empty for no'],
    ['enabled', true, null],
  ])('%s %j → %j', (column, value, problem) => {
    expect(configCellProblem(column, value)).toBe(problem);
  });

  it('reads yes and no the safe way: anything else is neither', () => {
    expect([readYesNo(true), readYesNo('no'), readYesNo(''), readYesNo('maybe')]).toEqual([true, false, false, null]);
  });
});

describe('configCellProblem: send windows', () => {
  it.each<[string, unknown, string | null]>([
    ['send_hours', '', null],
    ['send_hours', '08:00-20:00', null],
    ['send_hours', '9 to 5', 'send_hours "9 to 5" is not a window: write the hours replies may go out as HH:MM-HH:MM (e.g. 08:00-20:00), or leave it empty for any time'],
    ['time_zone', '', null],
    ['time_zone', 'Europe/Berlin', null],
    ['Time_Zone ', 'America/New_York', null],
    ['time_zone', 'Mars/Olympus_Mons', 'time_zone "Mars/Olympus_Mons" is not a time zone name: write an IANA name such as Europe/Berlin or America/New_York, or leave it empty for the script\'s time zone'],
    ['time_zone', '+02:00', 'time_zone "+02:00" is not a time zone name: write an IANA name such as Europe/Berlin or America/New_York, or leave it empty for the script\'s time zone'],
  ])('%s %j → %j', (column, value, problem) => {
    expect(configCellProblem(column, value)).toBe(problem);
  });
});
