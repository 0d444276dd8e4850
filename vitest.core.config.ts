// The core's tests alone (pure, in-memory, no bundle, no runtime): what `npm run mutate` runs against each mutant.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/core/**/*.test.ts'],
    pool: 'forks',
    // Under Stryker's per-test coverage on a loaded 2-core machine the 2,000,000-byte rejection test overran vitest's
    // default 5 s in the initial run, which stops Stryker; a mutant that hangs is still caught by Stryker's own timeout.
    testTimeout: 60000,
  },
});
