import { describe, expect, it } from 'vitest';
import { decideTick, SAFETY_SWEEP_MS } from '../../../../src/core/domain/queue/tick-gate';

const now = Date.UTC(2026, 10, 30, 12, 0, 0);
const recent = String(now - 60000);

describe('decideTick', () => {
  it.each([
    ['idle when nothing is new and the last sweep is recent', { FQ_LAST_SWEEP_AT: recent }, false],
    ['due after a delivery or staff edit', { FQ_LAST_SWEEP_AT: recent, FQ_DIRTY: String(now) }, true],
    ['due while deliveries are spilled', { FQ_LAST_SWEEP_AT: recent, 'FQ_SPILL_0001764504000000-abcdef01_1_1': 'x' }, true],
    ['due when a retry time has passed', { FQ_LAST_SWEEP_AT: recent, FQ_NEXT_DUE_AT: String(now - 1) }, true],
    ['idle when the retry is still in the future', { FQ_LAST_SWEEP_AT: recent, FQ_NEXT_DUE_AT: String(now + 60000) }, false],
    ['due for the safety sweep after 15 minutes', { FQ_LAST_SWEEP_AT: String(now - SAFETY_SWEEP_MS) }, true],
    ['due on the very first tick', {}, true],
    ['due when the sweep marker is garbled', { FQ_LAST_SWEEP_AT: 'yesterday' }, true],
  ])('%s', (_name, props, due) => {
    expect(decideTick(props as Record<string, string>, now).due).toBe(due);
  });
});
