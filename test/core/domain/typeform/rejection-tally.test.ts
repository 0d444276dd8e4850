// The Tally: every rejection counted once, and what rejections keep within the day's room, however executions interleave.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PropertyStore } from '../../../../src/core/domain/ports';
import { REJECTED_BYTES_PER_DAY, REJECTED_TOTALS_PROPERTY, claimRejectedRoom, countKeptRejection, foldTally, totalsOn, type RejectedTotals } from '../../../../src/core/domain/typeform/rejection-tally';
import { MemoryProperties, MemoryTally } from '../../memory-ports';

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
const claimAsDoPost = (w: World, day: string, bytes: number) =>
  claimRejectedRoom(w.tally, w.props, { today: day, bytes, kind: 'unauthorized' }, w.props.get(REJECTED_TOTALS_PROPERTY));
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

describe('the stored totals, garbled or from another day', () => {
  const empty = { day: DAY, count: 0, dropped: 0, kinds: {}, bytes: 0, through: '', previous: undefined };
  it.each<[string, string | undefined]>([
    ['none stored', undefined],
    ['not JSON', '{not json'],
    ['JSON null', 'null'],
    ['no day: no field of them is trusted', '{"count": 9, "dropped": 1, "bytes": 500, "through": "tally-3", "previous": {"day": "2026-11-29", "count": 2, "dropped": 0}}'],
    ['counts that are no finite numbers, a through that is no text', `{"day": "${DAY}", "count": "9", "dropped": null, "bytes": 1e999, "through": 7}`],
  ])('%s: nothing is known of today', (_name, json) => {
    expect(totalsOn(json, DAY)).toEqual(empty);
  });

  it.each<[string, string, RejectedTotals['previous']]>([
    ['a previous day that is no text is no previous day', `{"day": "${DAY}", "count": 1, "previous": {"day": 5, "count": 2, "dropped": 0}}`, undefined],
    ['a previous day\'s garbled counts read as 0', `{"day": "${DAY}", "count": 1, "previous": {"day": "2026-11-30", "count": "2"}}`, { day: '2026-11-30', count: 0, dropped: 0, kinds: {} }],
  ])('%s', (_name, json, previous) => {
    expect(totalsOn(json, DAY).previous).toEqual(previous);
  });

  it.each<[string, RejectedTotals, RejectedTotals['previous']]>([
    ['yesterday\'s totals are today\'s previous day', { day: '2026-11-30', count: 3, dropped: 1, kinds: { unknown_form: 2 }, bytes: 9, through: 'tally-9' }, { day: '2026-11-30', count: 3, dropped: 1, kinds: { unknown_form: 2 } }],
    ['a quiet yesterday keeps the day before it', { day: '2026-11-30', count: 0, dropped: 0, kinds: {}, bytes: 0, through: '', previous: { day: '2026-11-28', count: 4, dropped: 0, kinds: {} } }, { day: '2026-11-28', count: 4, dropped: 0, kinds: {} }],
    ['totals a run stored already past midnight keep their own previous day', { day: '2026-12-02', count: 5, dropped: 0, kinds: {}, bytes: 9, through: '', previous: { day: '2026-11-29', count: 1, dropped: 1, kinds: {} } }, { day: '2026-11-29', count: 1, dropped: 1, kinds: {} }],
  ])('%s', (_name, stored, previous) => {
    expect(totalsOn(JSON.stringify(stored), DAY)).toMatchObject({ day: DAY, count: 0, dropped: 0, bytes: 0 });
    expect(totalsOn(JSON.stringify(stored), DAY).previous).toEqual(previous);
  });
});

describe('foldTally, row by row', () => {
  it('totals without a day are replaced by the count of the rows', () => {
    const w = world();
    w.store.values[REJECTED_TOTALS_PROPERTY] = '{"count": 9, "bytes": 1999000}';
    expect(claimAsDoPost(w, DAY, 1000)).toBe(true);
    expect(foldTally(w.tally, w.props, DAY)).toMatchObject({ day: DAY, count: 1, dropped: 0, bytes: 1000 });
  });

  it('a fold of one row stopped before its delete counts that row once at the next fold', () => {
    const w = world();
    claimAsDoPost(w, DAY, 1000);
    w.tally.failDelete = true;
    expect(() => foldTally(w.tally, w.props, DAY)).toThrow();
    w.tally.failDelete = false;
    claimAsDoPost(w, DAY, 2000);
    expect(foldTally(w.tally, w.props, DAY)).toMatchObject({ count: 2, bytes: 3000 });
  });

  it('a row of yesterday appended after today\'s totals (a delivery that began before midnight) is not counted for today', () => {
    const w = world();
    w.store.values[REJECTED_TOTALS_PROPERTY] = JSON.stringify({ day: DAY, count: 1, dropped: 0, bytes: 10, through: '' });
    w.tally.append({ day: '2026-11-30', bytes: 5 });
    expect(foldTally(w.tally, w.props, DAY)).toMatchObject({ day: DAY, count: 1, dropped: 0, bytes: 10 });
  });

  it('an empty Tally is folded without writing the totals or deleting anything', () => {
    const w = world();
    const calls: string[] = [];
    w.tally.before = (call) => calls.push(call);
    expect(foldTally(w.tally, w.props, DAY)).toMatchObject({ day: DAY, count: 0 });
    expect(w.store.values[REJECTED_TOTALS_PROPERTY]).toBeUndefined();
    expect(calls).toEqual(['read']);
  });
});

describe('claimRejectedRoom with nothing to keep', () => {
  it.each([0, -500])('a size of %d is only counted: one row of 0 bytes, no read-back, nothing kept', (bytes) => {
    const w = world();
    expect(claimAsDoPost(w, DAY, bytes)).toBe(false);
    expect(w.tally.rows.map((row) => row.bytes)).toEqual([0]);
    expect(w.tally.reads).toBe(0);
  });
});

describe('the kinds of the day', () => {
  it('every rejection is counted by kind; a delivery kept whatever the room counts, claims nothing and is not called dropped', () => {
    const w = world();
    claimAsDoPost(w, DAY, 1000);
    claimAsDoPost(w, DAY, 0);
    countKeptRejection(w.tally, DAY, 'unknown_form');
    countKeptRejection(w.tally, DAY, 'partial');
    countKeptRejection(w.tally, DAY, 'partial');
    expect(foldTally(w.tally, w.props, DAY)).toMatchObject({ count: 5, dropped: 1, bytes: 1000, kinds: { unauthorized: 2, unknown_form: 1, partial: 2 } });
  });

  it('rows counted before kinds were kept add to the count only, and a row without a kind and no room is still dropped', () => {
    const w = world();
    w.tally.append({ day: DAY, bytes: 0 });
    w.tally.append({ day: DAY, bytes: 500 });
    countKeptRejection(w.tally, DAY, 'internal_error');
    const totals = foldTally(w.tally, w.props, DAY);
    expect(totals).toMatchObject({ count: 3, dropped: 1, bytes: 500 });
    expect(totals.kinds).toEqual({ internal_error: 1 });
  });

  it('stored kinds that are unknown, not counts, or not above 0 are left out', () => {
    const json = JSON.stringify({ day: DAY, count: 4, kinds: { unknown_form: 2, renamed_kind: 3, partial: 'x', malformed: -1, unauthorized: 0 } });
    expect(totalsOn(json, DAY).kinds).toEqual({ unknown_form: 2 });
  });

  it('stored kinds of null are none, and the counts stored beside them are kept', () => {
    const json = `{"day": "${DAY}", "count": 4, "bytes": 900, "kinds": null, "previous": {"day": "2026-11-30", "count": 2, "kinds": null}}`;
    expect(totalsOn(json, DAY)).toMatchObject({ count: 4, bytes: 900, kinds: {}, previous: { day: '2026-11-30', count: 2, kinds: {} } });
  });

  it('a new day starts its kinds over and keeps the ended day\'s for the summary', () => {
    const w = world();
    countKeptRejection(w.tally, '2026-11-30', 'unknown_form');
    foldTally(w.tally, w.props, '2026-11-30');
    countKeptRejection(w.tally, DAY, 'partial');
    expect(foldTally(w.tally, w.props, DAY)).toMatchObject({ kinds: { partial: 1 }, previous: { day: '2026-11-30', count: 1, dropped: 0, kinds: { unknown_form: 1 } } });
  });
});
