// The core's tests alone (pure, in-memory, no bundle, no runtime): what `npm run mutate` runs against each mutant.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/core/**/*.test.ts'],
    pool: 'forks',
    // Under Stryker's per-test coverage on a loaded 2-core machine the 2,000,000-byte rejection test overran vitest's
    // default 5 s in the initial run, which stops Stryker; a mutant that hangs is still caught by Stryker's own timeout.
    testTimeout: 60000,
    // One module realm for all the core's test files (as npm test's unit project has it), not a new thread and a
    // fresh import of the core per file: a mutant covered by ten files paid ten of those. The setup file keeps
    // Stryker's per-test coverage per file and gives each mutant freshly imported modules (see the file).
    isolate: false,
    setupFiles: ['test/mutation/shared-realm-setup.ts'],
  },
});
