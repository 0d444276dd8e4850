import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine, so `npm test` ran its files one
    // after another (about 320 s). Most of the time goes to end-to-end files whose runtime waits on its worker threads
    // and HTTP, so two files at once share two cores well. No test is timed, and each file starts its own runtime on
    // its own port and temporary directory, so files do not meet.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30000,
    hookTimeout: 30000,
  },
});
