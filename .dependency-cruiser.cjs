// The layers, checked on every `npm run lint`: entry → gas → core, core pure, the runtime apart from the product.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment: 'src/core holds every decision and imports nothing from the Apps Script wiring (gas) or the entry points.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(gas|entry)/' },
    },
    {
      name: 'gas-below-entry',
      comment: 'src/gas is wiring that the entry points call; it never calls back up into them.',
      severity: 'error',
      from: { path: '^src/gas/' },
      to: { path: '^src/entry/' },
    },
    {
      name: 'src-ships-alone',
      comment: 'The bundle is src only: it never imports the runtime, its harness, the benches, the scripts or the tests.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(emulator|bench|harness|scripts|test)/' },
    },
    {
      name: 'src-has-no-node',
      comment: 'Apps Script has no Node built-ins: an import of one would break the bundle at run time.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'emulator-never-imports-src',
      comment: 'The runtime runs the built dist/Code.js like Apps Script does; importing src would let it cheat.',
      severity: 'error',
      from: { path: '^emulator/' },
      to: { path: '^src/' },
    },
    {
      name: 'domain-below-use-cases',
      comment: 'src/core/domain is the shared language and rules (statuses, transitions, rows, the mail guard, settings, failures): it knows no use case and no run.',
      severity: 'error',
      from: { path: '^src/core/domain/' },
      to: { path: '^src/core/(?!domain/)' },
    },
    {
      name: 'use-cases-apart',
      comment: 'A use case (intake, processing, staff, triage, reconcile, self-test) imports the domain and itself, never another use case: what two need is domain.',
      severity: 'error',
      from: { path: '^src/core/(intake|processing|staff|triage|reconcile|self-test)/' },
      to: { path: '^src/core/(?!domain/|$1/)' },
    },
    {
      name: 'runs-on-top',
      comment: 'src/core/runs composes use cases into one execution (processQueue\'s tick); nothing in core imports a run.',
      severity: 'error',
      from: { path: '^src/core/(?!runs/)' },
      to: { path: '^src/core/runs/' },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import that resolves to nothing is a typo or a deleted file.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-circular-in-src',
      comment: 'A cycle in the product makes the bundle order-dependent and the layers meaningless.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js', '.json'], conditionNames: ['import', 'require', 'node', 'default'], exportsFields: ['exports'] },
  },
};
