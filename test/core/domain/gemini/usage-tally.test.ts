// Per-form, per-model token and cost totals: what one call adds, how FQ_TOKENS is read, rolled, capped and written, and the lines staff see.
import { describe, expect, it } from 'vitest';
import {
  addCall,
  emptyUsage,
  readUsage,
  rollTo,
  tokensOn,
  tallyKey,
  usageLines,
  usageSections,
  usageToWrite,
  type SpentCall,
  type StoredUsage,
  type UsageTally,
  type UsageTotals,
} from '../../../../src/core/domain/gemini/usage-tally';

const totals = (over: Partial<UsageTotals>): UsageTotals => ({ replies: 0, calls: 0, prompt: 0, output: 0, thinking: 0, cost: 0, unpriced: 0, ...over });

/** Every field written out, so a test never leans on emptyUsage() to say what "nothing" is. */
const NONE: StoredUsage = { dayKey: '', day: {}, previousDayKey: '', previousDay: {}, monthKey: '', month: {}, previousMonthKey: '', previousMonth: {} };
const usage = (over: Partial<StoredUsage>): StoredUsage => ({ ...NONE, ...over });

const call = (formId: string, prompt: number, over: Partial<SpentCall> = {}): SpentCall => ({
  formId,
  model: 'm',
  usage: { prompt, output: 0, thinking: 0 },
  cost: 0.5,
  reply: true,
  ...over,
});
const tallyOf = (...calls: SpentCall[]): UsageTally => {
  const tally: UsageTally = {};
  for (const one of calls) addCall(tally, one);
  return tally;
};
const written = (value: string | null): StoredUsage => JSON.parse(value as string) as StoredUsage;

const A = totals({ replies: 1, calls: 1, prompt: 100 });
const B = totals({ replies: 2, calls: 2, prompt: 200 });

describe('tallyKey', () => {
  it.each([
    ['f1', 'gemini-3.5-flash', 'f1|gemini-3.5-flash'],
    ['a|b', 'm', 'a/b|m'],
  ])('form %j and model %j are kept under %j (a "|" in a form id cannot split the key)', (formId, model, key) => {
    expect(tallyKey(formId, model)).toBe(key);
  });
});

describe('addCall', () => {
  it('a call adds its tokens and cost to its form and model; an unpriced call is counted apart and costs nothing', () => {
    const tally = tallyOf(
      { formId: 'f1', model: 'gemini-3.5-flash', usage: { prompt: 100, output: 50, thinking: 20 }, cost: 0.25, reply: true },
      { formId: 'f1', model: 'gemini-3.5-flash', usage: { prompt: 10, output: 5, thinking: 2 }, cost: null, reply: false },
      { formId: 'f2', model: 'my-model', usage: { prompt: 7, output: 3, thinking: 0 }, cost: null, reply: true },
    );
    expect(tally).toEqual({
      'f1|gemini-3.5-flash': { replies: 1, calls: 2, prompt: 110, output: 55, thinking: 22, cost: 0.25, unpriced: 1 },
      'f2|my-model': { replies: 1, calls: 1, prompt: 7, output: 3, thinking: 0, cost: 0, unpriced: 1 },
    });
  });
});

describe('readUsage', () => {
  it('nothing stored reads as no totals and no dates', () => {
    expect(readUsage(undefined)).toEqual({ dayKey: '', day: {}, previousDayKey: '', previousDay: {}, monthKey: '', month: {}, previousMonthKey: '', previousMonth: {} });
    expect(emptyUsage()).toEqual(NONE);
  });

  it.each([
    ['an empty value', ''],
    ['text that is not JSON', '{not json'],
    ['JSON null', 'null'],
    ['a number', '5'],
    ['an array', '[1, 2]'],
    ['an object without the fields', '{}'],
  ])('%s reads as no totals', (_name, stored) => {
    expect(readUsage(stored)).toEqual(NONE);
  });

  it('a field of the wrong kind reads as none while the readable ones are kept', () => {
    const stored = JSON.stringify({
      dayKey: 20261202,
      day: 'lots',
      previousDayKey: '2026-12-01',
      previousDay: [A],
      monthKey: null,
      month: null,
      previousMonthKey: '2026-11',
      previousMonth: { 'f1|m': A },
    });
    expect(readUsage(stored)).toEqual(usage({ previousDayKey: '2026-12-01', previousMonthKey: '2026-11', previousMonth: { 'f1|m': A } }));
  });
});

describe('readUsage of a tally edited by hand (FQ_TOKENS can be edited in the project settings)', () => {
  it('a count that is text, negative or missing reads as 0; an entry that is no object is dropped', () => {
    const stored = JSON.stringify({
      dayKey: '2026-12-02',
      day: { 'f1|m': { replies: 1, calls: '2', prompt: '5', output: -3, thinking: null, cost: 0.25 }, 'f2|m': 'lots', 'f3|m': [1] },
    });
    expect(readUsage(stored)).toEqual(usage({ dayKey: '2026-12-02', day: { 'f1|m': totals({ replies: 1, cost: 0.25 }) } }));
  });

  it('a count too large to be a number (1e999, which JSON reads as Infinity) reads as 0', () => {
    const stored = `{"dayKey": "2026-12-02", "day": {"f1|m": {"replies": 1, "prompt": 1e999}}}`;
    expect(readUsage(stored)).toEqual(usage({ dayKey: '2026-12-02', day: { 'f1|m': totals({ replies: 1 }) } }));
  });

  it("today's tokens from a hand-edited tally are a sum, never text joined to a number", () => {
    const stored = JSON.stringify({ dayKey: '2026-12-02', day: { 'f1|m': { prompt: '5', output: 3 }, 'f2|m': { prompt: 10, output: null } } });
    expect(tokensOn(readUsage(stored), '2026-12-02')).toBe(13);
  });
});

describe('rollTo', () => {
  it.each<[string, StoredUsage, string, StoredUsage]>([
    [
      'the same day keeps everything as it is',
      usage({ dayKey: '2026-12-02', day: { 'f1|m': A }, monthKey: '2026-12', month: { 'f1|m': B } }),
      '2026-12-02',
      usage({ dayKey: '2026-12-02', day: { 'f1|m': A }, monthKey: '2026-12', month: { 'f1|m': B } }),
    ],
    [
      'a new day starts at zero and keeps the day before, which had use, as previous',
      usage({ dayKey: '2026-12-02', day: { 'f1|m': A }, previousDayKey: '2026-11-28', previousDay: { 'f2|m': B }, monthKey: '2026-12', month: { 'f1|m': B } }),
      '2026-12-03',
      usage({ dayKey: '2026-12-03', day: {}, previousDayKey: '2026-12-02', previousDay: { 'f1|m': A }, monthKey: '2026-12', month: { 'f1|m': B } }),
    ],
    [
      'a day without use does not replace the last day that had some',
      usage({ dayKey: '2026-12-02', day: {}, previousDayKey: '2026-11-28', previousDay: { 'f2|m': B }, monthKey: '2026-12', month: { 'f2|m': B } }),
      '2026-12-03',
      usage({ dayKey: '2026-12-03', day: {}, previousDayKey: '2026-11-28', previousDay: { 'f2|m': B }, monthKey: '2026-12', month: { 'f2|m': B } }),
    ],
    [
      'totals without a date (a stored value that lost it) are dropped, not kept as a previous day or month',
      usage({ day: { 'f1|m': A }, month: { 'f1|m': A } }),
      '2026-12-03',
      usage({ dayKey: '2026-12-03', monthKey: '2026-12' }),
    ],
    [
      'a new month starts at zero and keeps the month before as previous',
      usage({ dayKey: '2026-11-30', day: { 'f1|m': A }, monthKey: '2026-11', month: { 'f1|m': B }, previousMonthKey: '2026-10', previousMonth: { 'f2|m': A } }),
      '2026-12-01',
      usage({ dayKey: '2026-12-01', previousDayKey: '2026-11-30', previousDay: { 'f1|m': A }, monthKey: '2026-12', previousMonthKey: '2026-11', previousMonth: { 'f1|m': B } }),
    ],
  ])('%s', (_name, stored, dayKey, expected) => {
    expect(rollTo(stored, dayKey)).toEqual(expected);
  });
});

describe('usageToWrite', () => {
  it("a second run on the same day adds to the day's and the month's totals, unpriced calls included", () => {
    const first = usageToWrite(undefined, tallyOf(call('f1', 100), call('f1', 10, { cost: null })), '2026-12-02');
    const second = usageToWrite(first ?? undefined, tallyOf(call('f1', 40, { cost: null, reply: false }), call('f2', 5)), '2026-12-02');
    const f1 = { replies: 2, calls: 3, prompt: 150, output: 0, thinking: 0, cost: 0.5, unpriced: 2 };
    const f2 = { replies: 1, calls: 1, prompt: 5, output: 0, thinking: 0, cost: 0.5, unpriced: 0 };
    expect(written(second)).toEqual(usage({ dayKey: '2026-12-02', day: { 'f1|m': f1, 'f2|m': f2 }, monthKey: '2026-12', month: { 'f1|m': f1, 'f2|m': f2 } }));
  });

  it('a run without calls writes nothing on the same day, but on a new day writes the day started at zero', () => {
    const stored = JSON.stringify(usage({ dayKey: '2026-12-01', day: { 'f1|m': A }, monthKey: '2026-12', month: { 'f1|m': A } }));
    expect(usageToWrite(stored, {}, '2026-12-01')).toBeNull();
    expect(written(usageToWrite(stored, {}, '2026-12-02'))).toEqual(
      usage({ dayKey: '2026-12-02', previousDayKey: '2026-12-01', previousDay: { 'f1|m': A }, monthKey: '2026-12', month: { 'f1|m': A } }),
    );
  });

  it('a run without calls still writes when only the month has to be started (a stored value that lost its month)', () => {
    const stored = JSON.stringify({ dayKey: '2026-12-01', day: { 'f1|m': A } });
    expect(written(usageToWrite(stored, {}, '2026-12-01'))).toEqual(usage({ dayKey: '2026-12-01', day: { 'f1|m': A }, monthKey: '2026-12' }));
  });

  const pad = (i: number) => `f${String(i).padStart(2, '0')}`;
  const one = (prompt: number, calls = 1): UsageTotals => totals({ replies: calls, calls, prompt, cost: 0.5 * calls });
  /** f01 … f41, fewest tokens first, so that keeping them in the order given would keep the wrong ones. */
  const fortyOne = () => tallyOf(...Array.from({ length: 41 }, (_, i) => call(pad(i + 1), 101 + i)));

  it('up to 40 forms and models are kept each on their own', () => {
    const run = tallyOf(...Array.from({ length: 40 }, (_, i) => call(pad(i + 1), 101 + i)));
    const expected = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`${pad(i + 1)}|m`, one(101 + i)]));
    expect(written(usageToWrite(undefined, run, '2026-12-02')).day).toEqual(expected);
  });

  it('past 40, the 39 with most tokens are kept and the rest are added up under "(other)"', () => {
    const expected = Object.fromEntries([
      ...Array.from({ length: 39 }, (_, i) => [`${pad(i + 3)}|m`, one(103 + i)]),
      ['(other)|(other)', one(101 + 102, 2)],
    ]);
    const stored = written(usageToWrite(undefined, fortyOne(), '2026-12-02'));
    expect(stored.day).toEqual(expected);
    expect(stored.month).toEqual(expected);
  });

  it('"(other)" keeps what it already holds and takes in what falls off the list next', () => {
    const first = usageToWrite(undefined, fortyOne(), '2026-12-02');
    const second = written(usageToWrite(first ?? undefined, tallyOf(call('f42', 50)), '2026-12-02'));
    // "(other)" (203 tokens) now leads; f03 (103) and the new f42 (50) are the two that fall off.
    const expected = Object.fromEntries([
      ...Array.from({ length: 38 }, (_, i) => [`${pad(i + 4)}|m`, one(104 + i)]),
      ['(other)|(other)', one(203 + 103 + 50, 4)],
    ]);
    expect(second.day).toEqual(expected);
  });
});

describe('usageLines', () => {
  it('one line per form and model, most tokens first, naming the calls that had no price', () => {
    const tally: UsageTally = {
      'f1|gemini-3.5-flash-lite': totals({ replies: 1, calls: 1, prompt: 120, output: 30, cost: 0.000111 }),
      'f2|gemini-3.5-flash': totals({ replies: 12, calls: 13, prompt: 9800, output: 3700, thinking: 6100, cost: 0.0999 }),
      'f3|my-model': totals({ replies: 2, calls: 2, prompt: 1500, output: 200, unpriced: 2 }),
    };
    expect(usageLines(tally)).toEqual([
      'form f2, gemini-3.5-flash: 12 replies (13 calls), tokens prompt 9,800, output 3,700, thinking 6,100; est. $0.0999',
      'form f3, my-model: 2 replies (2 calls), tokens prompt 1,500, output 200, thinking 0; est. $0.0000 (2 call(s) of a model with no price not counted)',
      'form f1, gemini-3.5-flash-lite: 1 replies (1 calls), tokens prompt 120, output 30, thinking 0; est. $0.0001',
    ]);
  });
});

describe('usageSections', () => {
  const line = (formId: string, prompt: number) => `form ${formId}, m: 1 replies (1 calls), tokens prompt ${prompt}, output 0, thinking 0; est. $0.0000`;
  const used = (formId: string, prompt: number): UsageTally => ({ [`${formId}|m`]: totals({ replies: 1, calls: 1, prompt }) });

  it('today, the last earlier day with use, this month and last month, each under its title', () => {
    const stored = usage({
      dayKey: '2026-12-02',
      day: used('f1', 1),
      previousDayKey: '2026-11-30',
      previousDay: used('f2', 2),
      monthKey: '2026-12',
      month: used('f3', 3),
      previousMonthKey: '2026-11',
      previousMonth: used('f4', 4),
    });
    expect(usageSections(stored, '2026-12-02')).toEqual([
      { title: 'Today so far (2026-12-02)', lines: [line('f1', 1)] },
      { title: 'Day 2026-11-30', lines: [line('f2', 2)] },
      { title: 'This month so far (2026-12)', lines: [line('f3', 3)] },
      { title: 'Month 2026-11', lines: [line('f4', 4)] },
    ]);
  });

  it("on a new month's first day, yesterday and last month are shown and today has nothing yet", () => {
    const stored = usage({ dayKey: '2026-11-30', day: used('f1', 1), monthKey: '2026-11', month: used('f1', 9) });
    expect(usageSections(stored, '2026-12-01')).toEqual([
      { title: 'Day 2026-11-30', lines: [line('f1', 1)] },
      { title: 'Month 2026-11', lines: [line('f1', 9)] },
    ]);
  });

  it('earlier totals without their date (a stored value that lost it) are not shown', () => {
    const stored = usage({ dayKey: '2026-12-02', monthKey: '2026-12', previousDay: used('f2', 2), previousMonth: used('f4', 4) });
    expect(usageSections(stored, '2026-12-02')).toEqual([]);
  });
});
