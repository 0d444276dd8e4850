import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/** Pure tests: in-memory ports and small fakes, no runtime, no module state worth a fresh realm per file. */
const UNIT = ['test/core/**/*.test.ts', 'test/gas/**/*.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    projects: [
      // One module realm for all of them: re-importing the core for each of ~150 files cost most of their time
      // (270 s against 26 s on the loaded 2-core machine, `npx vitest run test/core test/gas [--no-isolate]`).
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false } },
      // The runtime tests share one module realm per worker too: a fresh one per file re-imported the emulator and
      // harness and, worse, emptied the warm execution threads (emulator/worker-pool.mjs), so every file paid again for
      // threads whose start costs more than most executions (test/emulator, 32 files: 61 s of CPU isolated, 29 s not,
      // `/usr/bin/time npx vitest run test/emulator [--no-isolate]`, loaded 2-core machine). Nothing a file leaves
      // behind reaches the next: each e2e file closes its one runtime (test/e2e/runtime.ts runtimePerFile) and resets
      // it before each test (test/emulator/runtime-reset.test.ts), and every execution gets a fresh realm anyway.
      { extends: true, test: { name: 'runtime', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...UNIT], isolate: false } },
    ],
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine, so `npm test` ran its files one
    // after another (about 320 s). Most of the time goes to end-to-end files that wait: on their runtime's worker
    // threads, on HTTP, on Chromium, on the modeled latency of the few tests that need executions to overlap. Two files
    // at once left a third of two cores idle; three fill them (four cost more in start-up than they fill). No test is
    // timed, and each file starts its own runtime on its own port and temporary directory, so files do not meet.
    // A clean clone's `npm test` (scripts/test.mjs: lint beside vitest), idle 2-core machine, 2026-12-02: 2 workers
    // 239 s, 3 workers 205 s, 4 workers 217 s (docs/quality.md).
    maxWorkers: Math.max(3, availableParallelism() + 1),
    testTimeout: 30000,
    hookTimeout: 30000,
  },
});
