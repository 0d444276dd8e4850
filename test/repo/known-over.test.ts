// The lint size allowances (KNOWN_OVER in eslint.config.mjs) stay close to what their files need, and go once not needed.
import { existsSync } from 'node:fs';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { KNOWN_OVER, LIMITS } from '../../eslint.config.mjs';

type Metric = 'lines' | 'complexity' | 'depth' | 'params';
/** How far above its file's largest function an allowance may stand: a fifth, and at least this much. */
const SLACK: Record<Metric, number> = { lines: 10, complexity: 3, depth: 1, params: 1 };
const RULE_OF: Record<string, Metric> = { 'max-lines-per-function': 'lines', complexity: 'complexity', 'max-depth': 'depth', 'max-params': 'params' };

/** The largest value of each metric over the file's functions, measured by linting it at 1 (every function reports). */
async function largest(file: string): Promise<Partial<Record<Metric, number>>> {
  const eslint = new ESLint({
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
      {
        files: ['**/*.{ts,mjs}'],
        languageOptions: { ecmaVersion: 2024, sourceType: 'module' },
        rules: { 'max-lines-per-function': ['error', { max: 1, skipBlankLines: true, skipComments: true, IIFEs: true }], complexity: ['error', 1], 'max-depth': ['error', 0], 'max-params': ['error', 0] },
      },
    ],
  });
  const [result] = await eslint.lintFiles([file]);
  const found: Partial<Record<Metric, number>> = {};
  for (const message of result.messages) {
    const metric = RULE_OF[message.ruleId ?? ''];
    const value = Number(/\((\d+)\)|complexity of (\d+)|depth of (\d+)|\((\d+)\)/.exec(message.message)?.slice(1).find((v) => v !== undefined));
    if (metric && Number.isFinite(value)) found[metric] = Math.max(found[metric] ?? 0, value);
  }
  return found;
}

describe('KNOWN_OVER, the size allowances of eslint.config.mjs', () => {
  it.each(Object.entries(KNOWN_OVER))('%s: each allowance is needed and within a fifth (or the slack) of its largest function', async (file, over) => {
    expect(existsSync(file), `${file} is gone: delete its entry`).toBe(true);
    const measured = await largest(file);
    for (const [metric, allowed] of Object.entries(over as Record<Metric, number>) as [Metric, number][]) {
      const actual = measured[metric] ?? 0;
      expect(actual, `${file} ${metric}: its largest function is ${actual}, within the default ${LIMITS[metric]}: delete the allowance`).toBeGreaterThan(LIMITS[metric]);
      expect(allowed, `${file} ${metric}: allowed ${allowed}, its largest function is ${actual}: lower it`).toBeLessThanOrEqual(Math.max(Math.ceil(actual * 1.2), actual + SLACK[metric]));
    }
  });
});
