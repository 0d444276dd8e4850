// Set up as data: a colleague installs no trigger (getProjectTriggers lists only the caller's), and unused grid columns go.
import { describe, expect, it } from 'vitest';
import { columnsToTrim, planForeignTriggers, triggerOwnership } from '../../../src/core/staff/setup-plan';

describe('triggerOwnership', () => {
  it.each([
    ['the first Set up records its account', undefined, 'owner@example.com', { mayInstall: true, record: 'owner@example.com' }],
    ['the deployer repairs its own triggers', 'owner@example.com', 'owner@example.com', { mayInstall: true }],
    ['the comparison ignores case', 'Owner@Example.com', 'owner@example.com', { mayInstall: true }],
    ['an account Google does not name records nothing', '', '', { mayInstall: true }],
  ])('%s', (_name, recorded, current, expected) => {
    expect(triggerOwnership(recorded, current)).toEqual(expected);
  });

  it('refuses a colleague, naming the deployer and why', () => {
    const ownership = triggerOwnership('owner@example.com', 'colleague@example.com');
    expect(ownership.mayInstall).toBe(false);
    expect(ownership.record).toBeUndefined();
    expect(ownership.line).toMatch(/belong to owner@example\.com/);
    expect(ownership.line).toMatch(/you are colleague@example\.com/);
    expect(ownership.line).toMatch(/second pair/);
  });

  it('refuses an account Google does not name once a deployer is recorded', () => {
    expect(triggerOwnership('owner@example.com', '').mayInstall).toBe(false);
  });
});

describe('planForeignTriggers', () => {
  it("removes only formqueue's triggers that the colleague installed, never another handler", () => {
    const existing = [
      { id: 'a', handler: 'processQueue', kind: 'clock' as const },
      { id: 'b', handler: 'onEditInstallable', kind: 'edit' as const },
      { id: 'c', handler: 'myOwnReport', kind: 'clock' as const },
    ];
    expect(planForeignTriggers(existing)).toEqual({ remove: ['a', 'b'] });
  });
});

describe('columnsToTrim', () => {
  it.each([
    ['a new sheet of 26 columns under a 16-column header', 26, 16, 16, { start: 17, count: 10 }],
    ['staff notes in column 20 are kept', 26, 20, 16, { start: 21, count: 6 }],
    ['nothing beyond the header', 16, 16, 16, null],
    ['an empty sheet keeps one column', 26, 0, 0, { start: 2, count: 25 }],
  ])('%s', (_name, maxColumns, lastColumn, header, expected) => {
    expect(columnsToTrim(maxColumns, lastColumn, header)).toEqual(expected);
  });
});
