// The lint guards can fail: each is run, with the project's own config, on a small tree that breaks its rule.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const TREE = mkdtempSync(join(tmpdir(), 'formqueue-guards-'));
afterAll(() => rmSync(TREE, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(TREE, path)), { recursive: true });
    writeFileSync(join(TREE, path), text);
  }
}

/** Runs a tool's CLI in the probe tree; returns its output whether it passed or failed. */
function run(bin: string, args: string[]): { failed: boolean; output: string } {
  try {
    return { failed: false, output: execFileSync(process.execPath, [join(ROOT, 'node_modules', bin), ...args], { cwd: TREE, encoding: 'utf8' }) };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { failed: true, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const LONG_BODY = Array.from({ length: 81 }, (_, i) => `  total += ${i};`).join('\n');
const BRANCHES = Array.from({ length: 21 }, (_, i) => `  if (n === ${i}) return ${i};`).join('\n');
const CODE_LINES = (count: number) => Array.from({ length: count }, (_, i) => `export const c${i} = ${i};`).join('\n');
const COMMENT_LINES = Array.from({ length: 100 }, (_, i) => `// why ${i}`).join('\n');
const LINT_PROBES: Record<string, string> = {
  'src/core/unused.ts': 'export function f(): number { const left = 1; return 2; }\n',
  'src/core/long.ts': `export function f(): number {\n  let total = 0;\n${LONG_BODY}\n  return total;\n}\n`,
  'src/core/branchy.ts': `export function f(n: number): number {\n${BRANCHES}\n  return -1;\n}\n`,
  'src/core/big.ts': `${CODE_LINES(301)}\n`,
  'src/core/explained.ts': `${COMMENT_LINES}\n\n${CODE_LINES(300)}\n`,
  'src/core/needless-disable.ts': '// eslint-disable-next-line no-debugger\nexport const quiet = 1;\n',
};

write({
  ...LINT_PROBES,
  'package.json': JSON.stringify({ name: 'probe', private: true, type: 'module' }),
  'emulator/floating.mjs': "async function later() { return 1; }\nexport function start() { later(); }\n",
  'test/misused.test.ts': "async function later(): Promise<number> { return 1; }\nexport function start(): number { return later() ? 1 : 2; }\n",
  'tsconfig.json': JSON.stringify({ compilerOptions: { allowJs: true, noEmit: true, lib: ['ES2020'], types: [], moduleResolution: 'bundler', module: 'ESNext' }, include: ['src', 'emulator', 'test'] }),
  'src/entry/main.ts': "import { tick } from '../gas/runner';\nexport const main = tick;\n",
  'src/gas/runner.ts': "import { main } from '../entry/main';\nimport { decide } from '../core/decide';\nexport function tick(): unknown { return [main, decide()]; }\n",
  'src/core/decide.ts': "import { sheet } from '../gas/sheet';\nimport { readFileSync } from 'node:fs';\nimport { fixture } from '../../test/fixture';\nexport function decide(): unknown { return [sheet, readFileSync, fixture]; }\nexport const neverUsed = 1;\n",
  'src/gas/sheet.ts': "export const sheet = 1;\n",
  'src/core/orphan.ts': "export const orphan = 1;\n",
  'test/fixture.ts': "export const fixture = 1;\n",
  'emulator/host.mjs': "import { decide } from '../src/core/decide';\nimport { gone } from './deleted.mjs';\nasync function later() { return decide(); }\nexport function start() { later(); const unused = gone; }\n",
});

describe('dependency-cruiser rejects a broken layering', () => {
  const { failed, output } = run('dependency-cruiser/bin/dependency-cruise.mjs', ['--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'err', 'src', 'emulator', 'test']);

  it('fails the run', () => expect(failed).toBe(true));
  it.each([
    ['core-is-pure', 'src/core/decide.ts → src/gas/sheet.ts'],
    ['gas-below-entry', 'src/gas/runner.ts → src/entry/main.ts'],
    ['src-ships-alone', 'src/core/decide.ts → test/fixture.ts'],
    ['src-has-no-node', 'src/core/decide.ts → fs'],
    ['emulator-never-imports-src', 'emulator/host.mjs → src/core/decide.ts'],
    ['no-unresolvable', 'emulator/host.mjs → ./deleted.mjs'],
    ['no-circular-in-src', 'src/entry/main.ts → '],
  ])('%s: %s', (rule, edge) => expect(output).toContain(`${rule}: ${edge}`));
});

describe('knip reports dead code', () => {
  const { failed, output } = run('knip/bin/knip.js', ['--config', join(ROOT, 'knip.json'), '--no-config-hints', '--include', 'files,exports']);

  it('fails the run', () => expect(failed).toBe(true));
  it('names a file nothing imports', () => expect(output).toMatch(/src\/core\/orphan\.ts/));
  it('names an export nothing uses', () => expect(output).toMatch(/neverUsed\s+src\/core\/decide\.ts/));
});

// The lint's own config, where oxlint looks for it (its overrides' globs are relative to the config file); oxlint finds
// its type-aware half (oxlint-tsgolint) in node_modules, as it would in any project.
writeFileSync(join(TREE, '.oxlintrc.json'), readFileSync(join(ROOT, '.oxlintrc.json')));
symlinkSync(join(ROOT, 'node_modules'), join(TREE, 'node_modules'), 'dir');

describe('oxlint rejects what a reader would trip on', () => {
  const { failed, output } = run('oxlint/bin/oxlint', ['--type-aware', '--tsconfig', 'tsconfig.json', '--report-unused-disable-directives-severity=error', '--format', 'unix', 'src', 'emulator', 'test']);
  /** The rules reported for one file, in line order, as `plugin(rule)`. */
  const rulesOf = (path: string): string[] => output.split('\n').filter((line) => line.startsWith(`${path}:`)).map((line) => /\[Error\/([^\]]+)\]$/.exec(line)?.[1] ?? line);

  it('fails the run', () => expect(failed).toBe(true));
  it('a promise left floating in the runtime', () => expect(output).toMatch(/^emulator\/floating\.mjs:2:27: Promises must be awaited.*typescript\(no-floating-promises\)/m));
  it('a promise used as a condition in a test', () => expect(output).toMatch(/^test\/misused\.test\.ts:2:42: Expected non-Promise value in a boolean conditional.*typescript\(no-misused-promises\)/m));
  it('an unused variable', () => expect(rulesOf('src/core/unused.ts')).toEqual(['eslint(no-unused-vars)']));
  it('a function over 80 lines', () => expect(rulesOf('src/core/long.ts')).toEqual(['eslint(max-lines-per-function)']));
  it('a function with more than 20 branches', () => expect(rulesOf('src/core/branchy.ts')).toEqual(['eslint(complexity)']));
  it('a product file over 300 lines of code', () => expect(rulesOf('src/core/big.ts')).toEqual(['eslint(max-lines)']));
  it('but not a file whose comments and blank lines take it past 300', () => expect(rulesOf('src/core/explained.ts')).toEqual([]));
  it('a disable comment that disables nothing (the flag `npm run lint` passes)', () =>
    expect(rulesOf('src/core/needless-disable.ts')).toEqual(['src/core/needless-disable.ts:1:1: Unused eslint-disable directive (no problems were reported). [Error]']));
});
