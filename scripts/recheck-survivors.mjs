// `node scripts/recheck-survivors.mjs <stryker json> [file regex]`: every mutant a Stryker run left, applied by hand.
//
// Each survivor and mutant without coverage is written into its source file, one at a time, and the core test files of
// its module are run against it; the file is put back after each. A mutant these tests kill although Stryker reported it
// alive shows a test Stryker could not see (code run once per module realm, like a cached instance: Stryker records
// only the first test that ran it as covering it). One JSON line per mutant on stdout, progress on stderr.
// It edits src/core, so it refuses to start on uncommitted changes there: run it in a worktree.
import { readFileSync, writeFileSync, readdirSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The source with the mutant applied. Stryker's columns are 1-based, and it mutates the syntax tree: an expression
 *  replaced inside a larger one keeps its own precedence, so it is bracketed here. A block or a switch case is not, nor
 *  a link of an optional chain: `(a?.[1].trim)()` throws where `a?.[1].trim()` stops at a missing `a`. */
export function applyMutant(source, mutant) {
  const lines = source.split('\n');
  const offset = (loc) => lines.slice(0, loc.line - 1).reduce((n, l) => n + l.length + 1, 0) + loc.column - 1;
  const start = offset(mutant.location.start);
  const end = offset(mutant.location.end);
  const original = source.slice(start, end);
  const statement =
    mutant.mutatorName === 'BlockStatement' || /:\s*$/.test(mutant.replacement) || /^\s*(case|default)\b/.test(original);
  const chainLink = mutant.mutatorName === 'OptionalChaining';
  const replacement = statement || chainLink ? mutant.replacement : `(${mutant.replacement})`;
  return { original, mutated: source.slice(0, start) + replacement + source.slice(end) };
}

/** The core test files of a module: test/core's mirror of its path and its `-<topic>` siblings; failing those, the
 *  core test files that import it. */
export function moduleTestFiles(root, file) {
  const rel = file.replace(/^src\/core\//, '').replace(/\.ts$/, '');
  const dir = path.join('test/core', path.dirname(rel));
  const base = path.basename(rel);
  const named = existsSync(path.join(root, dir))
    ? readdirSync(path.join(root, dir))
        .filter((n) => n === `${base}.test.ts` || (n.startsWith(`${base}-`) && n.endsWith('.test.ts')))
        .map((n) => path.join(dir, n))
    : [];
  if (named.length) return named;
  try {
    const found = execFileSync('grep', ['-rlE', `from '[^']*/${base}'`, 'test/core'], { cwd: root, encoding: 'utf8' });
    return found.trim().split('\n').filter(Boolean);
  } catch {
    return []; // grep exits 1 when nothing imports it
  }
}

function main() {
  const [reportPath, filter] = process.argv.slice(2);
  if (!reportPath) {
    console.error('Usage: node scripts/recheck-survivors.mjs <stryker json report> [regex of files]');
    process.exit(2);
  }
  const root = process.cwd();
  const dirty = execFileSync('git', ['status', '--porcelain', 'src/core'], { cwd: root, encoding: 'utf8' }).trim();
  if (dirty) {
    console.error(`src/core has uncommitted changes, and this script writes mutants into it:\n${dirty}\n` +
      'Commit or stash them, or run it in a worktree (git worktree add ../recheck main).');
    process.exit(2);
  }
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  const todo = Object.entries(report.files)
    .filter(([file]) => !filter || new RegExp(filter).test(file))
    .flatMap(([file, f]) => f.mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage').map((m) => [file, m]));
  let current = null;
  const putBack = () => { if (current) writeFileSync(current.path, current.source); };
  process.on('SIGINT', () => { putBack(); process.exit(130); });
  const tally = {};
  todo.forEach(([file, mutant], i) => {
    const tests = moduleTestFiles(root, file);
    current = { path: path.join(root, file), source: readFileSync(path.join(root, file), 'utf8') };
    const { original, mutated } = applyMutant(current.source, mutant);
    let result = 'no-test';
    if (tests.length) {
      writeFileSync(current.path, mutated);
      try {
        execFileSync('npx', ['vitest', 'run', '--config', 'vitest.core.config.ts', '--bail', '1', ...tests], { cwd: root, stdio: 'pipe', timeout: 180_000 });
        result = 'survived';
      } catch (error) {
        result = /\bfailed\b/.test(String(error.stdout)) ? 'killed' : 'error';
      } finally {
        putBack();
      }
    }
    current = null;
    tally[result] = (tally[result] ?? 0) + 1;
    const { line, column } = mutant.location.start;
    console.log(JSON.stringify({ file, line, column, mutator: mutant.mutatorName, stryker: mutant.status, original, replacement: mutant.replacement, tests, result }));
    console.error(`${i + 1}/${todo.length} ${file}:${line} ${result}`);
  });
  console.error(JSON.stringify(tally));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
