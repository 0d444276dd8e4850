// `npm test`: the build, then the static checks (type-check, lint) beside vitest, failing if either fails.
//
// Why beside and not before: the checks (type-check, oxlint, dependency-cruiser, knip: about 19 s of CPU) need
// no bundle and no runtime, and vitest's runtime tests leave CPU idle while they wait on worker threads, HTTP and
// Chromium. One after the other they cost the sum; side by side the checks fill those gaps. They run at the lowest
// priority (`nice`), so they take only what vitest leaves: at equal priority they took half the cores while the runtime
// tests that wait were starting, and the run ended on those tests with the cores a third idle (docs/quality.md). The
// checks' output is held until they finish so vitest's report stays readable; each part prints how it ended.
import { spawn } from 'node:child_process';

/** Runs `command` through the shell; `quiet` holds its output until it ends, `yielding` runs it niced. Resolves with its exit code. */
function run(label, command, { quiet, yielding = false }) {
  return new Promise((resolve) => {
    const started = Date.now();
    // `nice` (POSIX; not on Windows): the checks take the CPU vitest leaves, instead of half of it.
    const [file, args] = yielding && process.platform !== 'win32' ? ['nice', ['-n', '19', 'sh', '-c', command]] : [command, []];
    const child = spawn(file, args, { shell: file === command, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
    const held = [];
    if (quiet) {
      child.stdout.on('data', (chunk) => held.push(chunk));
      child.stderr.on('data', (chunk) => held.push(chunk));
    }
    child.on('close', (code, signal) => {
      const output = Buffer.concat(held).toString().trimEnd();
      const seconds = Math.round((Date.now() - started) / 1000);
      if (quiet && output !== '') process.stdout.write(`\n── ${label} ──\n${output}\n`);
      process.stdout.write(`── ${label}: ${code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`} in ${seconds} s ──\n`);
      resolve(code ?? 1);
    });
    // A program that cannot start (no `nice` on the PATH, say): its reason is printed and the run fails, where an
    // unhandled error event would crash npm test with a stack trace; `close` follows with a non-zero code.
    child.on('error', (error) => {
      process.stdout.write(`── ${label}: could not start ${file}: ${error.message} ──\n`);
      resolve(1);
    });
  });
}

// The bundle first: the runtime tests load dist/Code.js, and a bundle that does not build fails fast with its error.
const built = await run('build', 'node scripts/build.mjs --quiet', { quiet: false });
if (built !== 0) process.exit(built);

const [checks, tests] = await Promise.all([
  run('type-check and lint', 'npm run --silent typecheck && npm run --silent lint', { quiet: true, yielding: true }),
  run('vitest', 'npx vitest run', { quiet: false }),
]);
if (checks !== 0 || tests !== 0) {
  process.stdout.write(`npm test failed: ${[checks !== 0 && 'type-check or lint', tests !== 0 && 'vitest'].filter(Boolean).join(' and ')} (see above)\n`);
  process.exit(1);
}
