// Random chaos schedules as fast-check arbitraries: groups of concurrent actions, each group opened by the faults it injects.
import fc from 'fast-check';

/** Submissions are drawn from a small pool, so duplicates (concurrent and late) are common. */
export const EVENT_POOL = 10;
/**
 * A burst: this many new submissions at once, beside the first group's actions. Over 30 simultaneous executions
 * Google refuses the surplus with a 200 HTML page (refused_by_platform); only the Typeform check can find those.
 */
export const BURST_SIZE = 34;

const action = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant('deliver'), n: fc.integer({ min: 1, max: EVENT_POOL }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('badToken'), n: fc.integer({ min: 1, max: EVENT_POOL }) }) },
  { weight: 4, arbitrary: fc.constant({ t: 'process' }) },
  { weight: 1, arbitrary: fc.constant({ t: 'processKilled' }) },
  { weight: 1, arbitrary: fc.constant({ t: 'approve' }) },
);

const sheetsError = fc.constantFrom('Error code INTERNAL', 'Service Spreadsheets failed while accessing document.', 'Service Spreadsheets timed out while accessing document with id local-spreadsheet.');

/** Each fault as the emulator's fault API takes it (emulator/faults.mjs), or a clear. */
const fault = fc.oneof(
  { weight: 3, arbitrary: fc.record({ target: fc.constant('sheets'), error: sheetsError, count: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 3, arbitrary: fc.record({ target: fc.constant('gemini'), status: fc.constantFrom(429, 500, 503), count: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ target: fc.constant('gemini'), status: fc.constant(429), quota: fc.constant('day'), count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ target: fc.constant('gemini'), timeout: fc.constant(true), count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ target: fc.constant('gemini'), blocked: fc.constant(true), count: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ target: fc.constant('gemini'), latencyMs: fc.integer({ min: 20, max: 150 }), count: fc.integer({ min: 2, max: 12 }) }) },
  { weight: 2, arbitrary: fc.constant({ target: 'mail', quota: 0 }) },
  { weight: 2, arbitrary: fc.constant({ target: 'mail', crashAfterSend: 1 }) },
  { weight: 2, arbitrary: fc.constant({ clear: 'mail-quota' }) },
  { weight: 1, arbitrary: fc.constant({ clear: 'all' }) },
);

const group = fc.record({
  faults: fc.array(fault, { maxLength: 2 }),
  actions: fc.array(action, { minLength: 1, maxLength: 5 }),
});

export const scheduleArbitrary = fc.record({
  burst: fc.boolean().chain((on) => (on ? fc.boolean() : fc.constant(false))), // in about a quarter of the runs
  approval: fc.boolean().chain((on) => (on ? fc.boolean() : fc.constant(false))), // on in about a quarter of the runs
  groups: fc.array(group, { minLength: 2, maxLength: 6 }),
});

/** A schedule in one readable line per group, for failure reports. */
export function describeSchedule(schedule) {
  const fault = (f) => (f.clear ? `clear ${f.clear}` : `${f.target}:${Object.entries(f).filter(([k]) => k !== 'target').map(([k, v]) => `${k}=${v}`).join(',')}`);
  const act = (a) => (a.t === 'deliver' ? `deliver#${a.n}` : a.t === 'badToken' ? `badToken#${a.n}` : a.t === 'processKilled' ? 'process (killed inside Gemini)' : a.t);
  return [`approval=${schedule.approval}${schedule.burst ? ` burst=${BURST_SIZE}` : ''}`, ...schedule.groups.map((g, i) => `  ${i + 1}. [${g.faults.map(fault).join('; ')}] ${g.actions.map(act).join(' ‖ ')}`)].join('\n');
}

export function deliveriesIn(schedule) {
  return schedule.groups.reduce((sum, g) => sum + g.actions.filter((a) => a.t === 'deliver').length, schedule.burst ? BURST_SIZE : 0);
}
