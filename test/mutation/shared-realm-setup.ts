// Under Stryker only: the core's test files share one module realm per mutant (vitest.core.config.ts, isolate: false).
import { afterAll, inject, vi } from 'vitest';

type Coverage = { static: Record<string, number>; perTest: Record<string, unknown> };
/** Stryker's namespace in the realm: its instrumented code and its own setup file use the same global. */
type StrykerNamespace = { mutantCoverage?: Coverage; formqueueLastFile?: { meta: Record<string, unknown> }; formqueueModulesOf?: unknown };

// Stryker's vitest runner provides these (node_modules/@stryker-mutator/vitest-runner/dist/src/stryker-setup.js); a
// plain `vitest run -c vitest.core.config.ts` has none, and this file does nothing. A setup file runs before each test
// file, ahead of that file's own imports, so what it does here holds for the whole file.
const provided = inject as unknown as (key: string) => unknown;
const namespace = provided('globalNamespace');
const mode = provided('mode');

if (typeof namespace === 'string') {
  const ns = ((globalThis as Record<string, unknown>)[namespace] ??= {}) as StrykerNamespace;
  if (mode === 'dry-run') {
    // Per-test coverage. Stryker's setup hands the realm's coverage object to each file's report when the file ends,
    // and every instrumented module keeps writing into that one object. With a realm per file it held one file's
    // tests; in one realm it held every file's so far, each report carried all the ones before it, and the initial
    // run grew past 6 GB. So each file starts with an empty per-test record, and the file before keeps its own (it
    // may be sent after this point). The static record (what ran at import, outside any test) is the realm's: kept.
    const coverage = ns.mutantCoverage;
    if (coverage) {
      if (ns.formqueueLastFile) ns.formqueueLastFile.meta.mutantCoverage = { static: { ...coverage.static }, perTest: coverage.perTest };
      coverage.perTest = {};
    }
    // Stryker's vitest runner uses the same hook signature (the file's suite is the second argument since vitest 4.1).
    // eslint-disable-next-line no-empty-pattern
    afterAll(({}, suite) => {
      ns.formqueueLastFile = suite as unknown as { meta: Record<string, unknown> };
    });
  } else if (mode === 'mutant') {
    // Each mutant gets freshly imported modules, so nothing a module keeps (a cache, a table built on first use)
    // carries one mutant's doing into the next one's tests; the files of one mutant share them, as npm test's do.
    // Vitest 4 starts a new thread for each of Stryker's runs (seen: one thread id per mutant), so the registry is
    // empty here already and this costs nothing; it keeps the rule true if a later vitest reuses a thread.
    const active = provided('activeMutant');
    if (ns.formqueueModulesOf !== active) {
      vi.resetModules();
      ns.formqueueModulesOf = active;
    }
  }
}
