// The bench's deadline burst end to end at a small size: what Google refuses is recorded in the runtime's offline
// Typeform, the Typeform check brings it back, and only what it does not bring back counts as lost.
import { describe, expect, it } from 'vitest';
import { measureBurst } from '../../bench/burst-bench.mjs';
import { burstTable } from '../../bench/google-report.mjs';

describe('the bench\'s deadline burst', () => {
  it('40 deliveries at once: the refused ones are recovered by reconcileTypeform, none lost, each in Queue exactly once', async () => {
    // All at once (a 1 ms window): more than the 30 simultaneous executions, so Google refuses some.
    const burst = await measureBurst({ deliveries: 40, windowMs: 1, scale: 0.1, seed: 1 });
    expect(burst.refused).toBeGreaterThan(0);
    expect(burst.lostBeforeReconcile).toBe(burst.refused);
    expect(burst.reconcileStatus).toBe('ok');
    expect(burst.recovered).toBe(burst.refused);
    expect(burst.lost).toBe(0);
    expect(burst.exactlyOnce).toBe(40);
    const table = burstTable(burst);
    expect(table).toMatch(new RegExp(`recovered by the Typeform check[^|]*\\| +${burst.recovered} +\\|`));
    expect(table).toMatch(/lost \(not in Queue after the Typeform check\) +\| +0 +\|/);
    expect(table).toContain('12–36 h');
  }, 120_000);
});
