// docs/states.md prints the outcome table as the code has it: a changed target, charge, counter, incident or wait shows in the doc's review.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { outcomesTable } from '../../../../scripts/docs/states-doc';
import { OUTCOME_CLASSES } from '../../../../src/core/domain/queue/outcomes';

const doc = readFileSync(new URL('../../../../docs/states.md', import.meta.url), 'utf8');
const block = /<!-- BEGIN generated: outcomes-table[^>]*-->\n([\s\S]*?)\n<!-- END generated: outcomes-table -->/.exec(doc)?.[1] ?? '';

describe("docs/states.md's outcome table", () => {
  it('has a line per outcome class', () => {
    expect(block.split('\n')).toHaveLength(OUTCOME_CLASSES.length + 2);
  });

  // Rendered inside the test, not at load: a table read at load is the table before a mutation tester's change.
  it.each(OUTCOME_CLASSES.map((outcome, i) => [outcome, i] as const))('%s reads in the doc as the table has it', (_outcome, i) => {
    expect(block.split('\n')).toContain(outcomesTable().split('\n')[i + 2]);
  });
});
