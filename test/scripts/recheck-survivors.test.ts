// The survivor re-check writes each mutant into the source as Stryker meant it: 1-based columns, expressions bracketed.
import { describe, expect, it } from 'vitest';
import { applyMutant, moduleTestFiles } from '../../scripts/recheck-survivors.mjs';

const at = (line: number, column: number) => ({ line, column });
const mutant = (mutatorName: string, start: [number, number], end: [number, number], replacement: string) => ({
  mutatorName,
  replacement,
  location: { start: at(...start), end: at(...end) },
});

describe('applyMutant', () => {
  it('replaces exactly the columns the report names, which count from 1', () => {
    const source = 'const a = 1;\nconst ok = flag === true;\n';
    const { original, mutated } = applyMutant(source, mutant('BooleanLiteral', [2, 21], [2, 25], 'false'));
    expect(original).toBe('true');
    expect(mutated).toBe('const a = 1;\nconst ok = flag === (false);\n');
  });

  it('brackets an expression, so a changed operator inside a longer chain keeps the precedence Stryker gave it', () => {
    const source = 'while (i < a.length && i < b.length && a[i] === b[i]) i++;';
    const { original, mutated } = applyMutant(source, mutant('LogicalOperator', [1, 8], [1, 36], 'i < a.length || i < b.length'));
    expect(original).toBe('i < a.length && i < b.length');
    expect(mutated).toBe('while ((i < a.length || i < b.length) && a[i] === b[i]) i++;');
  });

  it('leaves an emptied block and a switch case unbracketed', () => {
    const block = 'if (x) {\n  y();\n}';
    expect(applyMutant(block, mutant('BlockStatement', [1, 8], [3, 2], '{}')).mutated).toBe('if (x) {}');
    const cases = 'switch (k) {\n  default:\n    break;\n}';
    const { original, mutated } = applyMutant(cases, mutant('ConditionalExpression', [2, 3], [3, 11], 'default:'));
    expect(original).toBe('default:\n    break;');
    expect(mutated).toBe('switch (k) {\n  default:\n}');
  });

  it('leaves a link of an optional chain unbracketed, so a missing value still stops the whole chain', () => {
    const source = 'const d = /x(.+)/.exec(text)?.[1]?.trim();';
    const { mutated } = applyMutant(source, mutant('OptionalChaining', [1, 11], [1, 40], '/x(.+)/.exec(text)?.[1].trim'));
    expect(mutated).toBe('const d = /x(.+)/.exec(text)?.[1].trim();');
  });
});

describe('moduleTestFiles', () => {
  const root = new URL('../..', import.meta.url).pathname;

  it('finds the mirror of the module in test/core and its topic siblings', () => {
    expect(moduleTestFiles(root, 'src/core/processing/reply-policy.ts')).toEqual(
      expect.arrayContaining(['test/core/processing/reply-policy.test.ts', 'test/core/processing/reply-policy-paths.test.ts']),
    );
  });

  it('falls back to the core test files that import a module with no mirror of its own', () => {
    const files = moduleTestFiles(root, 'src/core/domain/sheet-ports.ts');
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((file: string) => file.startsWith('test/core/'))).toBe(true);
  });
});
