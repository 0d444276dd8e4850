// Every reconciliation counts what it found: none means act, one means it is there, more means a person decides.
import { describe, expect, it } from 'vitest';
import { evidenceOf } from '../../../src/core/reconcile/evidence';

describe('evidenceOf', () => {
  it.each([
    [0, 'none'],
    [-1, 'none'],
    [1, 'one'],
    [2, 'many'],
    [17, 'many'],
  ])('%i matches: %s', (matches, evidence) => {
    expect(evidenceOf(matches)).toBe(evidence);
  });
});
