// The lint size allowances (KNOWN_OVER in .oxlintrc.json) stay close to what their files need, and go once not needed.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

type Metric = 'lines' | 'complexity' | 'depth' | 'params';
const RULE_OF: Record<string, Metric> = { 'max-lines-per-function': 'lines', complexity: 'complexity', 'max-depth': 'depth', 'max-params': 'params' };
/** How far above its file's largest function an allowance may stand: a fifth, and at least this much. */
const SLACK: Record<Metric, number> = { lines: 10, complexity: 3, depth: 1, params: 1 };

type RuleSetting = string | [string, { max: number }];
interface Override { files: string[]; rules: Record<string, RuleSetting> }

/** .oxlintrc.json as JSON: its comments sit on lines of their own (the file says so), so dropping those lines is enough. */
const CONFIG = JSON.parse(readFileSync(join(ROOT, '.oxlintrc.json'), 'utf8').split('\n').filter((line) => !line.trim().startsWith('//')).join('\n')) as {
  rules: Record<string, RuleSetting>;
  overrides: Override[];
};

const maxOf = (setting: RuleSetting | undefined): number | undefined => (Array.isArray(setting) ? setting[1].max : undefined);

/** The project's limits for one function, from the root rules. */
const LIMITS = Object.fromEntries(Object.entries(RULE_OF).map(([rule, metric]) => [metric, maxOf(CONFIG.rules[rule])])) as Record<Metric, number>;

/** KNOWN_OVER: the overrides naming one file (no glob) and setting size rules only. */
const KNOWN_OVER = CONFIG.overrides
  .filter((o) => o.files.length === 1 && !/[*?{]/.test(o.files[0]) && Object.keys(o.rules).every((rule) => rule in RULE_OF))
  .map((o) => [o.files[0], Object.fromEntries(Object.entries(o.rules).map(([rule, setting]) => [RULE_OF[rule], maxOf(setting)]))] as [string, Partial<Record<Metric, number>>]);

const PROBE = mkdtempSync(join(tmpdir(), 'formqueue-known-over-'));
afterAll(() => rmSync(PROBE, { recursive: true, force: true }));

/**
 * The largest value of each metric over each file's functions, measured by linting them all at once with every limit
 * at its lowest (so each function reports its size), with the project's own counting options.
 */
function largestOfEach(files: string[]): Map<string, Partial<Record<Metric, number>>> {
  const config = join(PROBE, 'at-one.json');
  writeFileSync(config, JSON.stringify({
    plugins: ['eslint'],
    categories: { correctness: 'off' },
    rules: {
      'max-lines-per-function': ['error', { ...(CONFIG.rules['max-lines-per-function'] as [string, object])[1], max: 1 }],
      complexity: ['error', { max: 1 }],
      'max-depth': ['error', { max: 0 }],
      'max-params': ['error', { max: 0 }],
    },
  }));
  let output: string;
  try {
    output = execFileSync(process.execPath, [join(ROOT, 'node_modules', 'oxlint', 'bin', 'oxlint'), '-c', config, '--disable-nested-config', '-f', 'json', ...files], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    output = (error as { stdout: string }).stdout; // oxlint exits 1 when it reports, as it will here
  }
  const found = new Map<string, Partial<Record<Metric, number>>>(files.map((file) => [file, {}]));
  for (const d of (JSON.parse(output) as { diagnostics: { code: string; message: string; filename: string }[] }).diagnostics) {
    const metric = RULE_OF[/^eslint\((.+)\)$/.exec(d.code)?.[1] ?? ''];
    const value = Number(/\((\d+)\)|complexity of (\d+)/.exec(d.message)?.slice(1).find((v) => v !== undefined));
    const sizes = found.get(d.filename);
    if (metric && sizes && Number.isFinite(value)) sizes[metric] = Math.max(sizes[metric] ?? 0, value);
  }
  return found;
}

describe('KNOWN_OVER, the size allowances of .oxlintrc.json', () => {
  it('the limits and allowances are read from the config', () => {
    expect(LIMITS).toEqual({ lines: 80, complexity: 20, depth: 4, params: 5 });
    expect(KNOWN_OVER.length).toBeGreaterThan(0);
  });

  const present = KNOWN_OVER.filter(([file]) => existsSync(join(ROOT, file))).map(([file]) => file);
  const measured = largestOfEach(present);

  it.each(KNOWN_OVER)('%s: each allowance is needed and within a fifth (or the slack) of its largest function', (file, over) => {
    expect(existsSync(join(ROOT, file)), `${file} is gone: delete its entry`).toBe(true);
    for (const [metric, allowed] of Object.entries(over) as [Metric, number][]) {
      const actual = measured.get(file)?.[metric] ?? 0;
      expect(actual, `${file} ${metric}: its largest function is ${actual}, within the default ${LIMITS[metric]}: delete the allowance`).toBeGreaterThan(LIMITS[metric]);
      expect(allowed, `${file} ${metric}: allowed ${allowed}, its largest function is ${actual}: lower it`).toBeLessThanOrEqual(Math.max(Math.ceil(actual * 1.2), actual + SLACK[metric]));
    }
  });
});
