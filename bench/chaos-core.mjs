// runChaos: fast-check drives random schedules through fresh runtimes and checks the invariants; shared by `npm run chaos` and the e2e test.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { startOfflineGemini } from '../emulator/offline-gemini.mjs';
import { checkSchedule } from './chaos-check.mjs';
import { runSchedule } from './chaos-run.mjs';
import { deliveriesIn, describeSchedule, scheduleArbitraryOf } from './chaos-schedule.mjs';

/**
 * Runs `schedules` random schedules from `seed` (random when omitted). Resolves with totals over every schedule run
 * (shrinking included) and, when an invariant broke, `failure` with the seed, the fast-check path and the shrunk schedule.
 */
const BUNDLE = new URL('../dist/Code.js', import.meta.url);
const bundleHash = () => createHash('sha256').update(readFileSync(BUNDLE)).digest('hex').slice(0, 12);

/**
 * `onFirstFailure` is called once with the first schedule that broke an invariant, before fast-check starts shrinking it
 * (which can take longer than the run itself): a person can replay it at once.
 * `without` leaves action types out of the random schedules (chaos-schedule.mjs scheduleArbitraryOf); `randomWorlds`
 * draws a world (a reading of every undocumented platform answer) per schedule, counted in `worlds`.
 * @param {{ schedules?: number, seed?: number, progress?: (line: string) => void, replay?: object | null, onFirstFailure?: (found: { schedule: object, violations: string[] }) => void, without?: string[], randomWorlds?: boolean }} [options]
 */
export async function runChaos({ schedules = 20, seed = Date.now() % 2 ** 31, progress = () => undefined, replay = null, onFirstFailure = () => undefined, without = [], randomWorlds = false } = {}) {
  const gemini = await startOfflineGemini({ port: 0 });
  const totals = { schedules: 0, deliveries: 0, accepted: 0, refusedByPlatform: 0, duplicateEmails: 0, lost: 0, secretsLeaked: 0, executions: 0, mails: 0 };
  const statuses = {};
  const faults = {};
  const actors = {}; // actor → schedules in which it fired
  const worlds = {}; // key=reading → schedules run in it (drawn worlds only)
  let lastFailure = null;
  const started = Date.now();
  const bundleAtStart = bundleHash();

  const runOne = async (schedule) => {
    const observed = await runSchedule(schedule, { gemini });
    const result = checkSchedule(observed);
    totals.schedules++;
    totals.deliveries += deliveriesIn(schedule);
    totals.accepted += result.accepted;
    totals.refusedByPlatform += result.refusedByPlatform;
    for (const a of observed.actors) actors[a] = (actors[a] ?? 0) + 1;
    for (const [key, value] of Object.entries(schedule.worlds ?? {})) worlds[`${key}=${value}`] = (worlds[`${key}=${value}`] ?? 0) + 1;
    totals.duplicateEmails += result.duplicateEmails;
    totals.lost += result.lost;
    totals.secretsLeaked += result.secretsLeaked;
    totals.executions += observed.executions.length;
    totals.mails += observed.outbox.length;
    for (const row of observed.sheets.Queue?.rows ?? []) statuses[row[0]] = (statuses[row[0]] ?? 0) + 1;
    for (const f of new Set(observed.faultsFired)) faults[f] = (faults[f] ?? 0) + 1; // schedules in which each fault fired
    if (totals.schedules % 10 === 0) progress(`chaos: ${totals.schedules} schedules, ${totals.deliveries} deliveries, ${((Date.now() - started) / 1000).toFixed(0)} s`);
    if (result.violations.length > 0) {
      if (lastFailure === null) onFirstFailure({ schedule, violations: result.violations });
      lastFailure = { schedule, violations: result.violations };
      return false;
    }
    return true;
  };
  const property = fc.asyncProperty(scheduleArbitraryOf({ without, randomWorlds }), runOne);

  let failure = null;
  try {
    if (replay) {
      // One schedule as saved, run directly: no generation, nothing to shrink.
      if (!(await runOne(replay))) throw new Error('the replayed schedule broke an invariant');
    } else {
      await fc.assert(property, { numRuns: schedules, seed, endOnFailure: false });
    }
  } catch (error) {
    failure = failureOf(error, seed, lastFailure);
    // Another build replacing dist/Code.js mid-run would make schedules fail for reasons that are not in them.
    const bundleAtEnd = bundleHash();
    if (bundleAtEnd !== bundleAtStart) failure.violations.push(`dist/Code.js changed during the run (${bundleAtStart} → ${bundleAtEnd}): rerun before trusting this failure`);
  } finally {
    await gemini.close();
  }
  return { seed, totals, statuses, faults, actors, worlds, failure, seconds: (Date.now() - started) / 1000 };
}

/** What a failed run reports: the seed, fast-check's path and the last (shrunk) failing schedule with its violations. */
function failureOf(error, seed, lastFailure) {
  const message = String(error?.message ?? error);
  return {
    seed,
    path: /path: ?"?([\d:]+)"?/.exec(message)?.[1] ?? null,
    schedule: lastFailure?.schedule ?? null,
    readable: lastFailure ? describeSchedule(lastFailure.schedule) : null,
    violations: lastFailure?.violations ?? [message.split('\n').slice(0, 8).join('\n')],
  };
}

/** The summary line `npm run chaos` prints last. */
export function summaryLine({ totals, actors = {}, worlds = {} }) {
  const ran = Object.keys(worlds).sort();
  return `chaos: schedules=${totals.schedules} deliveries=${totals.deliveries} actors=${Object.keys(actors).sort().join(',')}${ran.length > 0 ? ` worlds=${ran.join(',')}` : ''} refused_by_platform=${totals.refusedByPlatform} duplicate_emails=${totals.duplicateEmails} lost=${totals.lost} secrets_leaked=${totals.secretsLeaked}`;
}
