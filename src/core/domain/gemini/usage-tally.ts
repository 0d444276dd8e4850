// Tokens and estimated cost added up per form and model: a run's own, and the day's and month's kept in Script Properties.
import { totalTokens, type TokenUsage } from './token-usage';

/** Script Property with today's, yesterday's, this month's and last month's totals (written with the run's other marks). */
export const USAGE_PROPERTY = 'FQ_TOKENS';

/** Totals of one form and model. `cost` in US dollars counts priced calls only; `unpriced` says how many calls had no price. */
export interface UsageTotals {
  replies: number;
  calls: number;
  prompt: number;
  output: number;
  thinking: number;
  cost: number;
  unpriced: number;
}

/** By `<form id>|<model>`. */
export type UsageTally = Record<string, UsageTotals>;

export interface StoredUsage {
  /** Calendar day and month (script time zone) of `day` and `month`. */
  dayKey: string;
  day: UsageTally;
  /** The day before dayKey that had any use, kept for the daily summary sent at the next day's first run. */
  previousDayKey: string;
  previousDay: UsageTally;
  monthKey: string;
  month: UsageTally;
  previousMonthKey: string;
  previousMonth: UsageTally;
}

/** At most this many form × model entries are kept per period; the rest are added to "(other)" (a property holds 9 KB). */
const MAX_ENTRIES = 40;

function blank(): UsageTotals {
  return { replies: 0, calls: 0, prompt: 0, output: 0, thinking: 0, cost: 0, unpriced: 0 };
}

export function tallyKey(formId: string, model: string): string {
  return `${formId.replace(/\|/g, '/')}|${model}`;
}

/** One generateContent answer: for which form, asked of which model, what it spent, and whether it was a usable reply. */
export interface SpentCall {
  formId: string;
  model: string;
  usage: TokenUsage;
  cost: number | null;
  reply: boolean;
}

/** Adds one call's spending to the tally. */
export function addCall(tally: UsageTally, call: SpentCall): void {
  const { usage, cost } = call;
  const totals = (tally[tallyKey(call.formId, call.model)] ??= blank());
  totals.calls++;
  if (call.reply) totals.replies++;
  totals.prompt += usage.prompt;
  totals.output += usage.output;
  totals.thinking += usage.thinking;
  if (cost === null) totals.unpriced++;
  else totals.cost += cost;
}

export function tallyTokens(tally: UsageTally): number {
  return Object.values(tally).reduce((sum, totals) => sum + totalTokens(totals), 0);
}

function addInto(target: UsageTotals, totals: UsageTotals): void {
  target.replies += totals.replies;
  target.calls += totals.calls;
  target.prompt += totals.prompt;
  target.output += totals.output;
  target.thinking += totals.thinking;
  target.cost += totals.cost;
  target.unpriced += totals.unpriced;
}

function merge(into: UsageTally, add: UsageTally): UsageTally {
  const merged: UsageTally = {};
  for (const [key, totals] of Object.entries(into)) merged[key] = { ...totals };
  for (const [key, totals] of Object.entries(add)) addInto((merged[key] ??= blank()), totals);
  const keys = Object.keys(merged).sort((a, b) => totalTokens(merged[b]) - totalTokens(merged[a]));
  if (keys.length <= MAX_ENTRIES) return merged;
  const kept: UsageTally = {};
  for (const key of keys.slice(0, MAX_ENTRIES - 1)) kept[key] = merged[key];
  const other = (kept['(other)|(other)'] ??= blank());
  for (const key of keys.slice(MAX_ENTRIES - 1)) addInto(other, merged[key]);
  return kept;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A count as stored: the property can be edited by hand in the project's settings, so a field that is not a finite,
 *  non-negative number reads as 0 (a text "5" would otherwise join the daily budget's sum as text, not add to it). */
function storedCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** A stored tally with every field read as a count; an entry that is not an object is dropped. */
function readTally(value: Record<string, unknown>): UsageTally {
  const tally: UsageTally = {};
  for (const [key, entry] of Object.entries(value)) {
    if (!isRecord(entry)) continue;
    const totals = blank();
    for (const field of Object.keys(totals) as (keyof UsageTotals)[]) totals[field] = storedCount(entry[field]);
    tally[key] = totals;
  }
  return tally;
}

export function emptyUsage(): StoredUsage {
  return { dayKey: '', day: {}, previousDayKey: '', previousDay: {}, monthKey: '', month: {}, previousMonthKey: '', previousMonth: {} };
}

/** The stored totals; anything unreadable reads as none (they are estimates, never a reason to stop a run). */
export function readUsage(stored: string | undefined): StoredUsage {
  if (!stored) return emptyUsage();
  try {
    const parsed = JSON.parse(stored) as Partial<StoredUsage>;
    const usage = emptyUsage();
    for (const key of ['dayKey', 'previousDayKey', 'monthKey', 'previousMonthKey'] as const) if (typeof parsed[key] === 'string') usage[key] = parsed[key];
    for (const key of ['day', 'previousDay', 'month', 'previousMonth'] as const) {
      const tally: unknown = parsed[key];
      if (isRecord(tally)) usage[key] = readTally(tally);
    }
    return usage;
  } catch {
    return emptyUsage();
  }
}

type Period = 'day' | 'month';
const PERIOD_FIELDS = {
  day: { key: 'dayKey', tally: 'day', previousKey: 'previousDayKey', previous: 'previousDay' },
  month: { key: 'monthKey', tally: 'month', previousKey: 'previousMonthKey', previous: 'previousMonth' },
} as const;

/** A new period starts empty; the one it replaces is kept as "previous" only if it had any use. */
function rollPeriod(usage: StoredUsage, period: Period, key: string): void {
  const fields = PERIOD_FIELDS[period];
  if (usage[fields.key] === key) return;
  if (usage[fields.key] !== '' && Object.keys(usage[fields.tally]).length > 0) {
    usage[fields.previousKey] = usage[fields.key];
    usage[fields.previous] = usage[fields.tally];
  }
  usage[fields.key] = key;
  usage[fields.tally] = {};
}

/** The totals as of `dayKey` ("2026-12-02"): a new day or month starts at zero, the one before kept as "previous". */
export function rollTo(stored: StoredUsage, dayKey: string): StoredUsage {
  const usage = { ...stored };
  rollPeriod(usage, 'day', dayKey);
  rollPeriod(usage, 'month', dayKey.slice(0, 7));
  return usage;
}

/** Tokens already spent on `dayKey` (what the daily budget counts against). */
export function tokensOn(stored: StoredUsage, dayKey: string): number {
  return stored.dayKey === dayKey ? tallyTokens(stored.day) : 0;
}

/** The value to store after a run spent `run`, or null when nothing changed. */
export function usageToWrite(stored: string | undefined, run: UsageTally, dayKey: string): string | null {
  const before = readUsage(stored);
  const rolled = rollTo(before, dayKey);
  if (Object.keys(run).length === 0 && rolled.dayKey === before.dayKey && rolled.monthKey === before.monthKey) return null;
  rolled.day = merge(rolled.day, run);
  rolled.month = merge(rolled.month, run);
  return JSON.stringify(rolled);
}

/**
 * One line per form and model, most tokens first: "form abc, gemini-3.5-flash: 12 replies (13 calls), tokens prompt 9,800,
 * output 3,700, thinking 6,100; est. $0.0999".
 */
export function usageLines(tally: UsageTally): string[] {
  const keys = Object.keys(tally).sort((a, b) => totalTokens(tally[b]) - totalTokens(tally[a]));
  return keys.map((key) => {
    const [formId, model] = key.split('|');
    const t = tally[key];
    const n = (value: number) => value.toLocaleString('en-US');
    const unpriced = t.unpriced > 0 ? ` (${t.unpriced} call(s) of a model with no price not counted)` : '';
    return `form ${formId}, ${model}: ${n(t.replies)} replies (${n(t.calls)} calls), tokens prompt ${n(t.prompt)}, output ${n(t.output)}, thinking ${n(t.thinking)}; est. $${t.cost.toFixed(4)}${unpriced}`;
  });
}

/** A titled block of usage lines, for the daily summary and the Queue health dialog. */
export interface UsageSection {
  title: string;
  lines: string[];
}

/**
 * What staff are shown on `dayKey`: today so far, the last earlier day with any use (yesterday, when the daily summary
 * goes at the day's first run), this month so far, and last month. Periods without use are left out.
 */
export function usageSections(stored: StoredUsage, dayKey: string): UsageSection[] {
  const usage = rollTo(stored, dayKey);
  const sections: UsageSection[] = [];
  const add = (title: string, tally: UsageTally) => {
    const lines = usageLines(tally);
    if (lines.length > 0) sections.push({ title, lines });
  };
  add(`Today so far (${usage.dayKey})`, usage.day);
  if (usage.previousDayKey !== '') add(`Day ${usage.previousDayKey}`, usage.previousDay);
  add(`This month so far (${usage.monthKey})`, usage.month);
  if (usage.previousMonthKey !== '') add(`Month ${usage.previousMonthKey}`, usage.previousMonth);
  return sections;
}
