// The order vitest starts test files in: the long, mostly-waiting ones first, then vitest's own order.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take longest on the clock while using a core for only part of it (Chromium, modeled latency, worker
 * threads waiting on each other), longest first: wall and CPU seconds of each file run alone, idle 2-core machine,
 * 2026-12-02 (`/usr/bin/time npx vitest run <file>`, both including about 2 s of vitest's own start). Vitest's own order
 * on a clean clone (no timings cached) is the larger file first, which started them late: `npm test` then spent its
 * last 30 s with the cores a third idle, waiting on them. Started first, their waits overlap the lint and the
 * CPU-bound files instead.
 */
export const SLOW_FIRST = [
  'test/console/console.browser.test.ts', // 49 s wall, 23 s CPU
  'test/e2e/chaos.test.ts', // 49 s, 19 s
  'test/e2e/typeform-outage.test.ts', // 20 s, 7 s
  'test/e2e/chaos-staff-actors.test.ts', // 19 s, 8 s
  'test/e2e/chaos-issue25-actors.test.ts', // 17 s, 6 s
  'test/e2e/reconcile-typeform.test.ts', // 16 s, 10 s
  'test/e2e/platform-worlds-webapp.test.ts', // 15 s, 12 s
  'test/scripts/bench-burst.test.ts', // 14 s, 9 s
];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = SLOW_FIRST.indexOf(relative(this.ctx.config.root, file.moduleId).split('\\').join('/'));
      return at < 0 ? SLOW_FIRST.length : at;
    };
    // Array.prototype.sort is stable: files not in the list keep vitest's order among themselves.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
