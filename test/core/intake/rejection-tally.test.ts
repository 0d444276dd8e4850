// The Tally: every rejection counted once, and what rejections keep within the day's room, however executions interleave.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PropertyStore } from '../../../src/core/ports';
import { REJECTED_BYTES_PER_DAY, REJECTED_TOTALS_PROPERTY, claimRejectedRoom, foldTally, totalsOn } from '../../../src/core/intake/rejection-tally';
import { MemoryProperties, MemoryTally } from '../memory-ports';

const DAY = '2026-12-01';

interface World {
  tally: MemoryTally;
  store: MemoryProperties;
  /** The PropertyStore the code under test gets: every read first gives other executions their turn. */
  props: PropertyStore;
  hook: () => void;
}

function world(): World {
  const w = { tally: new MemoryTally(), store: new MemoryProperties(), hook: () => undefined } as World;
  w.props = {
    getAll: () => {
      w.hook();
      return w.store.getAll();
    },
    get: (key) => {
      w.hook();
      return w.store.get(key);
    },
    set: (key, value) => w.store.set(key, value),
    setMany: (values) => w.store.setMany(values),
    delete: (key) => w.store.delete(key),
  };
  w.tally.before = () => w.hook();
  return w;
}

/** A rejection in doPost: the totals read with the settings at its start, then the claim. */
const claimAsDoPost = (w: World, day: string, bytes: number) => claimRejectedRoom(w.tally, w.props, day, bytes, w.props.get(REJECTED_TOTALS_PROPERTY));
const totals = (w: World, day = DAY) => totalsOn(w.store.values[REJECTED_TOTALS_PROPERTY], day);

describe('claimRejectedRoom and foldTally', () => {
  it('one after another: bodies are kept until the next would pass the day\'s room, then every rejection is only counted', () => {
    const w = world();
    const claim = 150_000;
    const kept = Array.from({ length: 40 }, () => claimAsDoPost(w, DAY, claim));
    const fits = Math.floor(REJECTED_BYTES_PER_DAY / claim);
    expect(kept.filter(Boolean)).toHaveLength(fits);
    expect(kept.slice(0, fits).every(Boolean)).toBe(true);
    foldTally(w.tally, w.props, DAY);
    expect(totals(w)).toMatchObject({ count: 40, dropped: 40 - fits, bytes: fits * claim });
    expect(w.tally.rows).toEqual([]);
  });

  it('a claim that would not fit by what is already folded costs one row and no read-back', () => {
    const w = world();
    w.store.values[REJECTED_TOTALS_PROPERTY] = JSON.stringify({ day: DAY, count: 9, dropped: 0, bytes: REJECTED_BYTES_PER_DAY - 10, through: '' });
    expect(claimAsDoPost(w, DAY, 11)).toBe(false);
    expect(w.tally.rows.map((row) => row.bytes)).toEqual([0]);
    expect(w.tally.reads).toBe(0);
    expect(claimAsDoPost(w, DAY, 10)).toBe(true);
  });

  it('a fold between the read of the rows and of the totals cannot hide the claims it moved: the totals are read after the rows', () => {
    const w = world();
    for (let n = 0; n < 13; n++) w.tally.append({ day: DAY, bytes: 150_000 }); // 1,950,000 claimed, not folded yet
    w.tally.before = (call) => {
      if (call !== 'read') return;
      w.tally.before = () => undefined;
      foldTally(w.tally, w.store, DAY); // processQueue folds and deletes every row just before this read
    };
    expect(claimAsDoPost(w, DAY, 100_000)).toBe(false);
    expect(foldTally(w.tally, w.store, DAY)).toMatchObject({ count: 14, bytes: 1_950_000 });
  });

  it('a fold stopped between storing the totals and deleting the rows counts them once at the next fold', () => {
    const w = world();
    for (let n = 0; n < 3; n++) claimAsDoPost(w, DAY, 1000);
    w.tally.failDelete = true;
    expect(() => foldTally(w.tally, w.props, DAY)).toThrow();
    w.tally.failDelete = false;
    claimAsDoPost(w, DAY, 1000);
    foldTally(w.tally, w.props, DAY);
    expect(totals(w)).toMatchObject({ count: 4, bytes: 4000 });
  });

  it('a new day starts from nothing: yesterday\'s room and count do not carry over, and late rows of yesterday are dropped', () => {
    const w = world();
    for (let n = 0; n < 20; n++) claimAsDoPost(w, '2026-11-30', 150_000);
    foldTally(w.tally, w.props, '2026-11-30');
    claimAsDoPost(w, '2026-11-30', 5);
    expect(claimAsDoPost(w, DAY, 150_000)).toBe(true);
    expect(foldTally(w.tally, w.props, DAY)).toMatchObject({ day: DAY, count: 1, dropped: 0, bytes: 150_000 });
  });

  it('a fold on a day with no rejection yet says 0 for today, and keeps how the last day with rejections ended', () => {
    const w = world();
    claimAsDoPost(w, '2026-11-30', 5);
    claimAsDoPost(w, '2026-11-30', REJECTED_BYTES_PER_DAY);
    expect(foldTally(w.tally, w.props, DAY)).toMatchObject({ day: DAY, count: 0, bytes: 0, previous: { day: '2026-11-30', count: 2, dropped: 1 } });
    expect(totalsOn(w.store.values[REJECTED_TOTALS_PROPERTY], '2026-12-02')).toMatchObject({ count: 0, previous: { day: '2026-11-30', count: 2 } });
  });

  // Executions interleave at every service call: at each one, the schedule may run another whole rejection (nested,
  // as if it ran in that gap) or a fold by processQueue. Whatever the order: kept room within the day's, every
  // rejection counted, and the count of kept ones matches.
  it('under any interleaving of claims and folds, kept room never passes the day\'s and no rejection is lost', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 600_000 }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 400 }),
        (claims, schedule) => {
          const w = world();
          const pending = claims.slice();
          const kept: number[] = [];
          let step = 0;
          const run = (bytes: number) => {
            if (claimAsDoPost(w, DAY, bytes)) kept.push(bytes);
          };
          w.hook = () => {
            const move = schedule[step++] ?? 5;
            if (move <= 1 && pending.length > 0) run(pending.shift() as number);
            else if (move === 2) {
              const saved = w.hook;
              w.hook = () => undefined; // the fold holds the script lock: no other fold, and it reads in one go
              foldTally(w.tally, w.props, DAY);
              w.hook = saved;
            }
          };
          while (pending.length > 0) run(pending.shift() as number);
          w.hook = () => undefined;
          const final = foldTally(w.tally, w.props, DAY);
          expect(kept.reduce((sum, bytes) => sum + bytes, 0)).toBeLessThanOrEqual(REJECTED_BYTES_PER_DAY);
          expect(final.count).toBe(claims.length);
          expect(final.count - final.dropped).toBe(kept.length);
          expect(final.bytes).toBe(kept.reduce((sum, bytes) => sum + bytes, 0));
        },
      ),
      { numRuns: 300 },
    );
  });
});
