// `npm test`: the build, then the static checks (type-check, lint) beside vitest, failing if either fails.
//
// Why beside and not before: the checks are one process on one core (type-check ~10 s, ESLint's type-aware rules
// ~45–75 s cold, dependency-cruiser, knip), and vitest leaves much of the second core idle while its runtime tests
// wait on worker threads and HTTP (a clean clone's `npm test` used 1.1 cores on average, docs/quality.md). One after
// the other they cost the sum; side by side the checks fill the idle core. The checks' output is held until they
// finish so vitest's report stays readable; each part prints what it ran and how it ended.
import { spawn } from 'node:child_process';

/** Runs `command` through the shell; `quiet` holds its output until it ends. Resolves with its exit code. */
function run(label, command, { quiet }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, { shell: true, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
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
  });
}

// The bundle first: the runtime tests load dist/Code.js, and a bundle that does not build fails fast with its error.
const built = await run('build', 'node scripts/build.mjs --quiet', { quiet: false });
if (built !== 0) process.exit(built);

const [checks, tests] = await Promise.all([
  run('type-check and lint', 'npm run --silent typecheck && npm run --silent lint', { quiet: true }),
  run('vitest', 'npx vitest run', { quiet: false }),
]);
if (checks !== 0 || tests !== 0) {
  process.stdout.write(`npm test failed: ${[checks !== 0 && 'type-check or lint', tests !== 0 && 'vitest'].filter(Boolean).join(' and ')} (see above)\n`);
  process.exit(1);
}
