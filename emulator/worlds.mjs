// The platform answers Google does not document, one switch each: every plausible reading, its public source, and the default.
//
// The runtime emulates Apps Script where Google documents it; where Google does not, it must not pick the answer
// the product happens to survive. Each behaviour docs/platform.md marks undocumented, community-sourced or unverified
// is a "world" switch below, set with `npm start -- --world KEY=VALUE` (cli.mjs, listed by --help), the GasHost
// option `worlds` (bench/runtime.mjs, test/e2e/runtime.ts) and described in docs/runtime.md#worlds. The default
// reading of each is what the runtime did before the switch existed, so a test that names no world keeps its meaning.
// A new switch is one more entry here, read where the behaviour is emulated as `host.worlds.KEY`.

/**
 * @typedef {{ value: string, says: string, source: string }} Reading  what the platform does in this reading, and who says so
 * @typedef {{ key: string, behaviour: string, google: string, defaultReading: string, readings: Reading[] }} WorldSwitch
 */

const EVENTS_EDIT = 'https://developers.google.com/apps-script/guides/triggers/events#edit';
const EVENTS_CHANGE = 'https://developers.google.com/apps-script/guides/triggers/events#change';
const GET_EDIT_TYPE = 'https://github.com/tanaikech/GetEditType';
const APPS_SCRIPT_LAB = 'https://theappsscriptlab.com/category/apps-script ("onEdit vs onChange in Google Sheets", table of actions)';

/** @type {readonly WorldSwitch[]} */
export const WORLD_SWITCHES = Object.freeze([
  {
    key: 'paste',
    behaviour: 'the on-edit event of one pasted cell',
    google: `${EVENTS_EDIT}: value and oldValue exist only when the edited range is a single cell; nothing on pastes`,
    defaultReading: 'none',
    readings: [
      {
        value: 'none',
        says: 'neither e.value nor e.oldValue',
        source: `${GET_EDIT_TYPE} (GetEditType.js: a single cell with value and oldValue both null and a value in it is "OTHER", ` +
          '"Value of the clipboard was directly pasted to a cell")',
      },
      {
        value: 'value-only',
        says: 'e.value (what was pasted) and no e.oldValue, even over a cell that held a value',
        source: `${GET_EDIT_TYPE} (GetEditType.js: a single cell with a value and no oldValue is "PUT_VALUE", ` +
          '"Empty cell was edited. Value of the clipboard was directly pasted to a cell")',
      },
    ],
  },
  {
    key: 'sort',
    behaviour: 'the triggers a sort of the sheet fires',
    google: `no Google page covers sorting; ${EVENTS_CHANGE} lists OTHER for a change that is no value edit, format or row/column/grid insert or removal`,
    defaultReading: 'edit-other',
    readings: [
      {
        value: 'edit-other',
        says: 'on-edit with the sorted rows as e.range and no value or oldValue, and on-change OTHER',
        source: `${APPS_SCRIPT_LAB}: "Move a column or row with data" fires on-edit and on-change`,
      },
      {
        value: 'change-only',
        says: 'on-change OTHER only; no on-edit',
        source: `${APPS_SCRIPT_LAB}: "Move a column or row without data" fires on-change only, and ${EVENTS_CHANGE} names no changeType for a sort`,
      },
      {
        value: 'none',
        says: 'no trigger fires',
        source: 'no report; on-edit fires when "a user changes a value" (https://developers.google.com/apps-script/guides/triggers#onedite) ' +
          'and a sort changes no value, only where values stand: the reading in which nothing is told',
      },
    ],
  },
]);

/** @param {string} key */
function switchOf(key) {
  return WORLD_SWITCHES.find((s) => s.key === key);
}

/** A world no switch or reading names: the caller's mistake, said with the choices. */
class UnknownWorld extends Error {}

/**
 * Every switch's reading: the defaults with `given` on top. Throws UnknownWorld for a key or reading the table does
 * not list, so a typo never silently runs the default world.
 * @param {Record<string, string>} [given] @returns {Record<string, string>}
 */
export function resolveWorlds(given = {}) {
  /** @type {Record<string, string>} */
  const worlds = Object.fromEntries(WORLD_SWITCHES.map((s) => [s.key, s.defaultReading]));
  for (const [key, value] of Object.entries(given)) {
    const world = switchOf(key);
    if (!world) throw new UnknownWorld(`no world switch "${key}"; switches: ${WORLD_SWITCHES.map((s) => s.key).join(', ')}`);
    if (!world.readings.some((r) => r.value === value)) {
      throw new UnknownWorld(`world switch ${key} has no reading "${value}"; readings: ${world.readings.map((r) => r.value).join(', ')}`);
    }
    worlds[key] = value;
  }
  return worlds;
}

/**
 * `KEY=VALUE` pairs of the command line as a map, checked against the table.
 * @param {readonly string[]} pairs @returns {Record<string, string>}
 */
export function parseWorldPairs(pairs) {
  /** @type {Record<string, string>} */
  const given = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UnknownWorld(`--world expects KEY=VALUE (for example --world paste=value-only), got "${pair}"`);
    given[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  resolveWorlds(given);
  return given;
}

/** The worlds as `key=value` words, for the banner and the execution log. @param {Record<string, string>} worlds */
export function describeWorlds(worlds) {
  return Object.entries(worlds).map(([key, value]) => `${key}=${value}`).join(' ');
}

/** The --help lines: each switch, its readings (the default marked) and what each does. */
export function worldsUsage() {
  return WORLD_SWITCHES.map((s) => [
    `    ${s.key}: ${s.behaviour}`,
    ...s.readings.map((r) => `      ${s.key}=${r.value}${r.value === s.defaultReading ? ' (default)' : ''}: ${r.says}`),
  ].join('\n')).join('\n');
}
