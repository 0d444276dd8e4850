// ESLint: rules that catch real problems (unused code, ESLint's recommended bug rules) and keep each function short
// and simple enough to read at once. The type-aware rules (floating and misused promises) are oxlint's
// (.oxlintrc.json). Style is left to the authors; there is no formatter on purpose.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** What one function may be, everywhere outside the tests. */
export const LIMITS = { lines: 80, complexity: 20, depth: 4, params: 5 };

/**
 * Files with a function already over a limit (measured 2026-12-01), each allowed a fifth more than its largest
 * function then, so work in flight can land but the function cannot keep growing. Lower or delete an entry when
 * the function is split; raising one needs a reason in the commit. test/repo/known-over.test.ts fails when an entry
 * allows far more than the file's largest function needs, or when the file needs no allowance at all.
 */
export const KNOWN_OVER = {
  'src/core/domain/typeform/answers.ts': { complexity: 35 }, // answerText: one case per Typeform answer type
  'src/core/triage/health.ts': { complexity: 27 },
  'src/core/intake/intake.ts': { params: 8 },
  'src/core/processing/record-verdicts.ts': { params: 8 }, // recordVerdict: the claim, its verdict, the form and the run's findings
  'src/core/processing/run-writes.ts': { params: 8 },
  'src/core/staff/edit-guard.ts': { params: 9 },
  'src/core/triage/triage-mail.ts': { params: 8 },
  'src/core/processing/reply-format.ts': { complexity: 32 },
  'emulator/server.mjs': { lines: 183, complexity: 58 }, // handleApi: one branch per /api route
  'emulator/format-date.mjs': { complexity: 48 }, // one case per date-pattern letter
  'emulator/cli.mjs': { complexity: 34 },
  'emulator/offline-gemini.mjs': { complexity: 40 },
  'emulator/console/routes.mjs': { complexity: 28 },
  'emulator/services/fetch.mjs': { complexity: 33 },
  'emulator/services/mail.mjs': { complexity: 27 },
  'emulator/sheets-typing.mjs': { complexity: 29 },
  'emulator/spreadsheet-model.mjs': { complexity: 34, params: 9 },
  'bench/bench.mjs': { lines: 104 },
  'bench/chaos-check.mjs': { complexity: 30 },
  'scripts/deploy.mjs': { complexity: 27 },
};

function sizeRules({ lines, complexity, depth, params }) {
  return {
    'max-lines-per-function': ['error', { max: lines, skipBlankLines: true, skipComments: true, IIFEs: true }],
    complexity: ['error', complexity],
    'max-depth': ['error', depth],
    'max-params': ['error', params],
  };
}

export default tseslint.config(
  // Code.js files are Apps Script projects (the bundle, test scripts): every top-level function is an entry point.
  { ignores: ['dist/**', '**/Code.js', '.stryker-tmp/**', 'reports/**', 'coverage/**'] },
  {
    files: ['**/*.{ts,mjs,js,cjs}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      ...sizeRules(LIMITS),
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      // Style, or deliberate here: `let x = fallback; try { x = … }`, control characters in sanitising regexes.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-useless-assignment': 'off',
      'no-control-regex': 'off',
      'prefer-rest-params': 'off',
      'prefer-spread': 'off',
      'prefer-const': 'off',
    },
  },
  {
    // One job per file: a product file past 300 lines of code usually holds two (issue #27). Comments and blank lines
    // are not counted, so a comment saying why never pushes a file over. The largest file had 246 such lines when this
    // was set (2026-12-02).
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }] },
  },
  {
    // In-realm facades are Apps Script's classes, one function each (stringified into the vm): their parameters
    // mirror Google's signatures even when the emulation ignores one, and an installer is a module, not a function.
    files: ['emulator/realm/**'],
    rules: { '@typescript-eslint/no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }], 'max-lines-per-function': 'off' },
  },
  ...Object.entries(KNOWN_OVER).map(([file, over]) => ({ files: [file], rules: sizeRules({ ...LIMITS, ...over }) })),
  {
    // Tests are tables and scenarios: a long describe() is a list of cases, not one function doing much.
    files: ['test/**'],
    rules: { 'max-lines-per-function': 'off', complexity: 'off', 'max-params': 'off' },
  },
);
