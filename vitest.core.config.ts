// The core's tests alone (pure, in-memory, no bundle, no runtime): what `npm run mutate` runs against each mutant.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/core/**/*.test.ts'],
    pool: 'forks',
    // Under Stryker's per-test coverage on a loaded 2-core machine the 2,000,000-byte rejection test overran vitest's
    // default 5 s in the initial run, which stops Stryker; a mutant that hangs is still caught by Stryker's own timeout.
    testTimeout: 60000,
    // A module realm per test file, as vitest's default. One realm for all of them (isolate: false) ran faster, but a
    // check showed it losing per-test coverage: a mutant covered by twelve tests was run against one (docs/quality.md).
  },
});
