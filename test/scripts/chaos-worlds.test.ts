// `npm run chaos -- --world random`: each schedule draws one reading of every undocumented platform answer, and says which.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeSchedule, scheduleArbitraryOf, worldWords } from '../../bench/chaos-schedule.mjs';
import { summaryLine } from '../../bench/chaos-core.mjs';
import { resolveWorlds, WORLD_SWITCHES } from '../../emulator/worlds.mjs';

describe('chaos worlds', () => {
  it('a random-world schedule names a reading the runtime accepts for every switch, and over 200 schedules every reading is drawn', () => {
    // JSDoc cannot say that `randomWorlds` adds the field, so the test names it.
    const drawn = fc.sample(scheduleArbitraryOf({ randomWorlds: true }), { numRuns: 200, seed: 7 }) as unknown as { worlds: Record<string, string> }[];
    const seen = new Set<string>();
    for (const schedule of drawn) {
      expect(Object.keys(schedule.worlds).sort()).toEqual(WORLD_SWITCHES.map((world) => world.key).sort());
      expect(() => resolveWorlds(schedule.worlds)).not.toThrow();
      for (const [key, value] of Object.entries(schedule.worlds)) seen.add(`${key}=${value}`);
    }
    const every = WORLD_SWITCHES.flatMap((world) => world.readings.map((reading) => `${world.key}=${reading.value}`));
    expect([...seen].sort()).toEqual(every.sort());
  });

  it('drawing worlds leaves a seed\'s schedules as they were: only the world is added', () => {
    const plain = fc.sample(scheduleArbitraryOf(), { numRuns: 5, seed: 11 });
    const withWorlds = fc.sample(scheduleArbitraryOf({ randomWorlds: true }), { numRuns: 5, seed: 11 }) as unknown as Record<string, unknown>[];
    expect(withWorlds.map(({ worlds: _worlds, ...rest }) => rest)).toEqual(plain);
  });

  it('a failing schedule and the summary line name the worlds that are not the default', () => {
    const worlds = { ...resolveWorlds(), paste: 'value-only', sort: 'none' };
    expect(worldWords(worlds)).toEqual(['paste=value-only', 'sort=none']);
    expect(describeSchedule({ burst: false, approval: false, groups: [], worlds }).split('\n')[0]).toBe('approval=false worlds: paste=value-only sort=none');
    const totals = { schedules: 1, deliveries: 2, refusedByPlatform: 0, duplicateEmails: 0, lost: 0, secretsLeaked: 0 };
    expect(summaryLine({ totals, actors: { deliver: 1 }, worlds: { 'paste=value-only': 1, 'sort=none': 1 } })).toBe(
      'chaos: schedules=1 deliveries=2 actors=deliver worlds=paste=value-only,sort=none refused_by_platform=0 duplicate_emails=0 lost=0 secrets_leaked=0',
    );
  });
});
