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
