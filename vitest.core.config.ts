// The core's tests alone (pure, in-memory, no bundle, no runtime): what `npm run mutate` runs against each mutant.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/core/**/*.test.ts'],
    pool: 'forks',
  },
});
