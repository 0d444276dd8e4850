// The tick gate, reason by reason, with the edge values of each marker.
import { describe, expect, it } from 'vitest';
import { decideTick, DIRTY_PROPERTY, LAST_SWEEP_PROPERTY, NEXT_DUE_PROPERTY, SAFETY_SWEEP_MS, SPILL_KEY_PREFIX } from '../../../../src/core/domain/queue/tick-gate';

const NOW = 1_000_000_000;
const swept = { [LAST_SWEEP_PROPERTY]: String(NOW - 1000) };

describe('decideTick', () => {
  it.each<[string, Record<string, string>, boolean, string]>([
    ['a dirty marker, even empty', { ...swept, [DIRTY_PROPERTY]: '' }, true, 'a new delivery or a staff edit'],
    ['a spilled delivery', { ...swept, [`${SPILL_KEY_PREFIX}x`]: 'data' }, true, 'spilled deliveries wait'],
    ['a retry due now', { ...swept, [NEXT_DUE_PROPERTY]: String(NOW) }, true, 'a retry is due'],
    ['a retry due earlier', { ...swept, [NEXT_DUE_PROPERTY]: String(NOW - 1) }, true, 'a retry is due'],
    ['a retry due later', { ...swept, [NEXT_DUE_PROPERTY]: String(NOW + 1) }, false, 'nothing new, no retry due'],
    ['an empty retry time (no retry)', { ...swept, [NEXT_DUE_PROPERTY]: '' }, false, 'nothing new, no retry due'],
    ['a retry time that is not a number', { ...swept, [NEXT_DUE_PROPERTY]: 'soon' }, false, 'nothing new, no retry due'],
    ['never swept', {}, true, 'the 15-minute safety sweep'],
    ['a sweep time that is not a number', { [LAST_SWEEP_PROPERTY]: 'yesterday' }, true, 'the 15-minute safety sweep'],
    ['swept exactly 15 minutes ago', { [LAST_SWEEP_PROPERTY]: String(NOW - SAFETY_SWEEP_MS) }, true, 'the 15-minute safety sweep'],
    ['swept just under 15 minutes ago', { [LAST_SWEEP_PROPERTY]: String(NOW - SAFETY_SWEEP_MS + 1) }, false, 'nothing new, no retry due'],
    ['a property that only looks like the spill', { ...swept, ['X' + SPILL_KEY_PREFIX]: 'data' }, false, 'nothing new, no retry due'],
  ])('%s', (_what, props, due, reason) => expect(decideTick(props, NOW)).toEqual({ due, reason }));

  it('markers are checked in order: dirty before spill before retry before sweep', () => {
    expect(decideTick({ [DIRTY_PROPERTY]: '1', [`${SPILL_KEY_PREFIX}a`]: 'x', [NEXT_DUE_PROPERTY]: '0' }, NOW).reason).toBe('a new delivery or a staff edit');
    expect(decideTick({ [`${SPILL_KEY_PREFIX}a`]: 'x', [NEXT_DUE_PROPERTY]: '0' }, NOW).reason).toBe('spilled deliveries wait');
    expect(decideTick({ [NEXT_DUE_PROPERTY]: '0' }, NOW).reason).toBe('a retry is due');
  });
});
