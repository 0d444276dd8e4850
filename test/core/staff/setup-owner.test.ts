// Set up run by someone other than the deployer: it says so and installs no trigger (getProjectTriggers lists only the caller's).
import { describe, expect, it } from 'vitest';
import { planForeignTriggers, triggerOwnership } from '../../../src/core/staff/setup-plan';

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
