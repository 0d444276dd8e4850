// Random chaos schedules as fast-check arbitraries: groups of concurrent actions, each group opened by the faults it injects.
import fc from 'fast-check';
import { WORLD_SWITCHES } from '../emulator/worlds.mjs';

/** Submissions are drawn from a small pool, so duplicates (concurrent and late) are common. */
export const EVENT_POOL = 10;
/**
 * A burst: this many new submissions at once, beside the first group's actions. Over 30 simultaneous executions
 * Google refuses the surplus with a 200 HTML page (refused_by_platform); only the Typeform check can find those.
 */
export const BURST_SIZE = 34;

/** Hostile deliveries (bench/chaos-run.mjs builds each body). */
export const POISON_KINDS = ['bigToken', 'bigFormId', 'longEventId', 'deepJson', 'nestedJson', 'bigEventType'];

/**
 * The submissions of the opening burst: numbered above the pool and above the poison kinds' own submissions (three
 * per kind, bench/chaos-run.mjs), so each has its own event id, token and respondent.
 */
export const BURST_EVENTS = Array.from({ length: BURST_SIZE }, (_, i) => EVENT_POOL + POISON_KINDS.length * 3 + 1 + i);

/** Submissions of a form Config does not enable (above the burst's), each with its own event id, token and respondent. */
export const UNKNOWN_FORM_EVENTS = [1, 2, 3].map((i) => BURST_EVENTS[BURST_SIZE - 1] + i);

/**
 * The submissions an injection steers (issue #28's injectedReply actor delivers them), above the unknown form's: new
 * submissions, so the model is asked about them during the schedule or the drain, each with its own respondent.
 */
export const INJECTED_EVENTS = [1, 2, 3].map((i) => UNKNOWN_FORM_EVENTS[UNKNOWN_FORM_EVENTS.length - 1] + i);

/** Send windows staff write (Config send_hours), one past midnight; each at least 4 hours long. */
const SEND_WINDOWS = ['08:00-20:00', '09:00-17:00', '22:00-06:00', '00:00-12:00'];
/** A form's Config time_zone: empty (the script's, Etc/UTC) or zones on both sides of UTC, with and without daylight saving. */
const TIME_ZONES = ['', '', 'America/New_York', 'Asia/Tokyo', 'Europe/Berlin'];

/** The pick of a row or line among those an actor may act on, as a fraction of their number. */
const pick = fc.double({ min: 0, max: 1, noNaN: true });

/** Each kind of action with its weight; the order is part of the seed's meaning (fast-check draws by position). */
const ACTIONS = [
  { t: 'deliver', weight: 24, arbitrary: fc.record({ t: fc.constant('deliver'), n: fc.integer({ min: 1, max: EVENT_POOL }) }) },
  { t: 'badToken', weight: 4, arbitrary: fc.record({ t: fc.constant('badToken'), n: fc.integer({ min: 1, max: EVENT_POOL }) }) },
  { t: 'process', weight: 16, arbitrary: fc.constant({ t: 'process' }) },
  { t: 'processKilled', weight: 4, arbitrary: fc.constant({ t: 'processKilled' }) },
  { t: 'approve', weight: 4, arbitrary: fc.constant({ t: 'approve' }) },
  // Staff in the sheet while runs are in flight (rows picked by `pick`, a fraction of the Queue's rows).
  { t: 'staffSort', weight: 2, arbitrary: fc.record({ t: fc.constant('staffSort'), column: fc.constantFrom('status', 'event_id', 'received_at'), ascending: fc.boolean() }) },
  { t: 'staffInsert', weight: 2, arbitrary: fc.record({ t: fc.constant('staffInsert'), pick, count: fc.integer({ min: 1, max: 2 }) }) },
  { t: 'staffDelete', weight: 2, arbitrary: fc.record({ t: fc.constant('staffDelete'), pick }) },
  { t: 'staffPaste', weight: 2, arbitrary: fc.record({ t: fc.constant('staffPaste'), pick, status: fc.constantFrom('READY', 'APPROVED', 'PENDING'), rows: fc.integer({ min: 1, max: 3 }) }) },
  { t: 'staffClearSentAt', weight: 2, arbitrary: fc.record({ t: fc.constant('staffClearSentAt'), pick }) },
  // Menu items and Set up run by a staff member, not the deployer.
  { t: 'staffProcessNow', weight: 2, arbitrary: fc.constant({ t: 'staffProcessNow' }) },
  { t: 'staffAcceptRejected', weight: 2, arbitrary: fc.record({ t: fc.constant('staffAcceptRejected'), pick }) },
  { t: 'staffSetup', weight: 2, arbitrary: fc.constant({ t: 'staffSetup' }) },
  // Hostile deliveries; `longEventId` is a real submission (n above the pool) that must be answered once.
  { t: 'poison', weight: 2, arbitrary: fc.record({ t: fc.constant('poison'), kind: fc.constantFrom(...POISON_KINDS), n: fc.integer({ min: EVENT_POOL + 1, max: EVENT_POOL + 3 }) }) },
  // More simultaneous deliveries than Google runs for one user (30): the surplus gets Google's HTML 200. Rare: ~35 executions each.
  { t: 'burst', weight: 1, arbitrary: fc.record({ t: fc.constant('burst'), size: fc.integer({ min: 31, max: 36 }) }) },
  // The actors of issue #24, after the others so a seed draws the same schedules when they are left out: staff delete a
  // live submission's row, copy a whole row over another, insert a column between system columns, rename Queue and run
  // Set up, delete or edit a send ledger line of the Log; deliveries for a form Config does not enable; Process now by
  // a staff member killed right after the send, with the Sent check on (RECONCILE_SENT_MAIL, bench/chaos-run.mjs).
  { t: 'staffDeleteRow', weight: 3, arbitrary: fc.record({ t: fc.constant('staffDeleteRow'), status: fc.constantFrom('SENT', 'PENDING', 'READY'), pick }) },
  { t: 'staffPasteRow', weight: 2, arbitrary: fc.record({ t: fc.constant('staffPasteRow'), from: pick, over: pick }) },
  { t: 'staffInsertColumn', weight: 1, arbitrary: fc.record({ t: fc.constant('staffInsertColumn'), pick }) },
  { t: 'staffRenameQueue', weight: 1, arbitrary: fc.constant({ t: 'staffRenameQueue' }) },
  { t: 'staffLogLine', weight: 2, arbitrary: fc.record({ t: fc.constant('staffLogLine'), edit: fc.constantFrom('delete', 'event_id', 'detail'), pick }) },
  { t: 'unknownForm', weight: 2, arbitrary: fc.record({ t: fc.constant('unknownForm'), n: fc.integer({ min: 1, max: UNKNOWN_FORM_EVENTS.length }) }) },
  { t: 'staffProcessNowCrash', weight: 2, arbitrary: fc.constant({ t: 'staffProcessNowCrash' }) },
  // Issue #28, after the others (same draws for a seed without them): a respondent address that bounces, with the bounce
  // check on (RECONCILE_BOUNCES, bench/chaos-run.mjs); an address a staff member puts on the Suppressed sheet.
  { t: 'deadAddress', weight: 2, arbitrary: fc.record({ t: fc.constant('deadAddress'), pick }) },
  { t: 'staffSuppress', weight: 2, arbitrary: fc.record({ t: fc.constant('staffSuppress'), pick }) },
  // Issue #25, after the others (same draws for a seed without them): Typeform's own sender (bench/chaos-typeform.mjs)
  // sends a submission through the web app's /exec (its 302 followed or counted as a failure, the typeformRedirect
  // world; retries on the runtime clock); the deployment removed for 15–60 minutes while a respondent submits (404:
  // the webhook is disabled at once), the watch during it and after; the 15-minute webhook watch; each watch with the
  // deployer's TYPEFORM_WEBHOOK_REENABLE as drawn.
  { t: 'typeformSubmit', weight: 4, arbitrary: fc.record({ t: fc.constant('typeformSubmit'), n: fc.integer({ min: 1, max: EVENT_POOL }) }) },
  { t: 'typeformOutage', weight: 2, arbitrary: fc.record({ t: fc.constant('typeformOutage'), n: fc.integer({ min: 1, max: EVENT_POOL }), minutes: fc.constantFrom(15, 30, 45, 60), reenable: fc.boolean() }) },
  { t: 'typeformWatch', weight: 3, arbitrary: fc.record({ t: fc.constant('typeformWatch'), reenable: fc.boolean() }) },
  // Issue #28's mail safety, after the others (same draws for a seed without them; bench/chaos-safety.mjs): staff set
  // or clear the form's send window mid-schedule; the runtime clock moves 1–6 hours (across the window's edges); a
  // model talked into it answers a submission the actor delivers (INJECTED_EVENTS[n - 1]) with an outside link or
  // another address, or follows the instruction its respondent typed into the essay.
  { t: 'staffSendHours', weight: 2, arbitrary: fc.record({ t: fc.constant('staffSendHours'), hours: fc.constantFrom(...SEND_WINDOWS, ''), zone: fc.constantFrom(...TIME_ZONES) }) },
  { t: 'clockHours', weight: 2, arbitrary: fc.record({ t: fc.constant('clockHours'), hours: fc.integer({ min: 1, max: 6 }) }) },
  { t: 'injectedReply', weight: 3, arbitrary: fc.record({ t: fc.constant('injectedReply'), mode: fc.constantFrom('link', 'address', 'obey'), n: fc.integer({ min: 1, max: INJECTED_EVENTS.length }), count: fc.integer({ min: 1, max: 3 }) }) },
];

/**
 * The issue #28 settings of a schedule, drawn after everything else (a seed's schedules stay the same otherwise): a
 * send window in Config from the start (about half the runs, sometimes in a form time zone), and a low
 * new-recipient ceiling (about half: 2–5 an hour, in half of those 4–10 a day too) that ~10 submissions a schedule trip.
 */
export function safetyArbitrary() {
  return fc.record({
    window: fc.option(fc.record({ hours: fc.constantFrom(...SEND_WINDOWS), zone: fc.constantFrom(...TIME_ZONES) }), { freq: 2 }),
    ceiling: fc.option(fc.record({ perHour: fc.integer({ min: 2, max: 5 }), perDay: fc.option(fc.integer({ min: 4, max: 10 }), { freq: 2 }) }), { freq: 2 }),
  });
}

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

/**
 * Schedules of every action but those named in `without` (action types, e.g. 'staffDeleteRow'). Leaving out only
 * actions listed after the others draws, for a seed, the schedules the shorter list drew.
 */
export function scheduleArbitraryOf({ without = [], randomWorlds = false } = {}) {
  const kept = ACTIONS.filter(({ t }) => !without.includes(t)).map(({ weight, arbitrary }) => ({ weight, arbitrary }));
  const group = fc.record({
    faults: fc.array(fault, { maxLength: 2 }),
    actions: fc.array(fc.oneof(...kept), { minLength: 1, maxLength: 5 }),
  });
  const schedule = fc.record({
    burst: fc.boolean().chain((on) => (on ? fc.boolean() : fc.constant(false))), // in about a quarter of the runs
    approval: fc.boolean().chain((on) => (on ? fc.boolean() : fc.constant(false))), // on in about a quarter of the runs
    groups: fc.array(group, { minLength: 2, maxLength: 6 }),
  });
  // Issue #28's settings after the groups (a seed's groups stay as they were), worlds last: drawn after the rest, so a
  // seed's schedules stay the same with or without worlds; only their world differs.
  const withSafety = fc.tuple(schedule, safetyArbitrary()).map(([drawn, safety]) => ({ ...drawn, safety }));
  return randomWorlds ? fc.tuple(withSafety, worldArbitrary()).map(([drawn, worlds]) => ({ ...drawn, worlds })) : withSafety;
}

/**
 * One reading of every undocumented platform answer (emulator/worlds.mjs), uniformly: the product must hold in each
 * world, not in the default one only. A reading that takes a number (late:N) runs with its default number.
 */
export function worldArbitrary() {
  return fc.record(Object.fromEntries(WORLD_SWITCHES.map((world) => [world.key, fc.constantFrom(...world.readings.map((reading) => reading.value))])));
}

/** The worlds a schedule ran in, as `key=value` words (only the switches not at their default). */
export function worldWords(worlds = {}) {
  return WORLD_SWITCHES.filter((world) => worlds[world.key] !== undefined && worlds[world.key] !== world.defaultReading).map((world) => `${world.key}=${worlds[world.key]}`);
}


/** A schedule in one readable line per group, for failure reports. */
export function describeSchedule(schedule) {
  const fault = (f) => (f.clear ? `clear ${f.clear}` : `${f.target}:${Object.entries(f).filter(([k]) => k !== 'target').map(([k, v]) => `${k}=${v}`).join(',')}`);
  const act = (a) => (a.t === 'deliver' ? `deliver#${a.n}` : a.t === 'badToken' ? `badToken#${a.n}` : a.t === 'processKilled' ? 'process (killed inside Gemini)'
    : `${a.t}${Object.entries(a).filter(([k]) => k !== 't').map(([k, v]) => `:${k}=${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(2) : v}`).join('')}`);
  const worlds = worldWords(schedule.worlds);
  const { window = null, ceiling = null } = schedule.safety ?? {};
  const safety = [window ? ` send_hours=${window.hours}${window.zone ? `@${window.zone}` : ''}` : '', ceiling ? ` new_recipients=${ceiling.perHour}/h${ceiling.perDay ? `,${ceiling.perDay}/d` : ''}` : ''].join('');
  return [`approval=${schedule.approval}${schedule.burst ? ` burst=${BURST_SIZE}` : ''}${safety}${worlds.length > 0 ? ` worlds: ${worlds.join(' ')}` : ''}`, ...schedule.groups.map((g, i) => `  ${i + 1}. [${g.faults.map(fault).join('; ')}] ${g.actions.map(act).join(' ‖ ')}`)].join('\n');
}

export function deliveriesIn(schedule) {
  const opening = schedule.burst ? BURST_SIZE : 0;
  return schedule.groups.reduce((sum, g) => sum + g.actions.reduce((n, a) => n + (a.t === 'deliver' || a.t === 'poison' || a.t === 'unknownForm' || a.t === 'typeformSubmit' || a.t === 'typeformOutage' || a.t === 'injectedReply' ? 1 : a.t === 'burst' ? a.size : 0), 0), opening);
}
