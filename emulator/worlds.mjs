// The platform answers Google does not document, one switch each: every plausible reading, its public source, and the default.
//
// The runtime emulates Apps Script where Google documents it; where Google does not, it must not pick the answer
// the product happens to survive. Each behaviour docs/platform.md marks undocumented, community-sourced or unverified
// is a "world" switch below, set with `npm start -- --world KEY=VALUE` (cli.mjs, listed by --help), the GasHost
// option `worlds` (harness/runtime.mjs, test/e2e/runtime.ts) and described in docs/runtime.md#worlds. The default
// reading of each is what the runtime did before the switch existed, so a test that names no world keeps its meaning.
// A new switch is one more entry here, read where the behaviour is emulated as `host.worlds.KEY`.

/**
 * @typedef {{ name: string, defaultValue: number }} ReadingArg  a whole number the reading takes as `value:N` (e.g. late:90)
 * @typedef {{ value: string, says: string, source: string, arg?: ReadingArg }} Reading  what the platform does in this reading, and who says so
 * @typedef {{ key: string, behaviour: string, google: string, defaultReading: string, readings: Reading[] }} WorldSwitch
 */

const EVENTS_EDIT = 'https://developers.google.com/apps-script/guides/triggers/events#edit';
const EVENTS_CHANGE = 'https://developers.google.com/apps-script/guides/triggers/events#change';
const GET_EDIT_TYPE = 'https://github.com/tanaikech/GetEditType';
const APPS_SCRIPT_LAB = 'https://theappsscriptlab.com/category/apps-script ("onEdit vs onChange in Google Sheets", table of actions)';
const LOCK_SERVICE = 'https://developers.google.com/apps-script/reference/lock/lock-service#getUserLock()';
const WEB_PERMISSIONS = 'https://developers.google.com/apps-script/guides/web#permissions';
const GET_EMAIL = 'https://developers.google.com/apps-script/reference/base/user#getemail';
const MAIL_APP = 'https://developers.google.com/apps-script/reference/mail/mail-app';
const TANAIKE_WA = 'https://github.com/tanaikech/taking-advantage-of-Web-Apps-with-google-apps-script';
const CONTENT_REDIRECTS = 'https://developers.google.com/apps-script/guides/content#redirects';
const BOUND = 'https://developers.google.com/apps-script/guides/bound';
const TF_WEBHOOKS = 'https://www.typeform.com/developers/webhooks/';
const GET_ACTIVE = 'https://developers.google.com/apps-script/reference/spreadsheet/spreadsheet-app#getActiveSpreadsheet()';
const MESSAGE_PART = 'https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages#MessagePart';
const BOUNCE_DETECTOR = 'https://github.com/rgl/MailBounceDetector (README: a bounce is multipart/report with a human part, ' +
  'a message/delivery-status part and, optionally, the original message, "might not have the complete message")';

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
  {
    key: 'userLock',
    behaviour: 'whose user lock an anonymous call of an "execute as me" web app takes',
    google: `${LOCK_SERVICE}: "prevents the current user from concurrently running a section of code", "private to the user"; ` +
      'Google does not say who the current user of an anonymous call is',
    defaultReading: 'per-deployer',
    readings: [
      {
        value: 'per-deployer',
        says: "the deployer's: every web-app call and the deployer's triggers share one user lock",
        source: `${WEB_PERMISSIONS}: a web app set to "Execute as: me" runs as the deployer, whoever calls it, and ` +
          'Session.getEffectiveUser() is the deployer there (https://developers.google.com/apps-script/reference/base/session#geteffectiveuser)',
      },
      {
        value: 'per-caller',
        says: "the caller's: each anonymous call has a user lock of its own (shared with no other call and no trigger); a signed-in caller's is that person's",
        source: `${LOCK_SERVICE} speaks of "the current user", and for a caller other than the deployer the active user is not the ` +
          `deployer (${GET_EMAIL}: blank across accounts): the reading in which the lock follows the person calling. No report either way`,
      },
    ],
  },
  {
    key: 'sentCopy',
    behaviour: "MailApp's copy of a sent mail in the sender's Sent folder",
    google: `${MAIL_APP} says a mail is sent from the account the script runs as and nothing of a copy in Sent`,
    defaultReading: 'at-once',
    readings: [
      {
        value: 'at-once',
        says: 'in Sent and found by Gmail search (Gmail.Users.Messages.list, GmailApp.search) as soon as sendEmail returns',
        source: 'what Gmail does for mail sent from its own interface; the reading the runtime assumed before the switch',
      },
      {
        value: 'late',
        arg: { name: 'MINUTES', defaultValue: 120 },
        says: 'in Sent at once (Users.Messages.get by id finds it), but search finds it only MINUTES after the send (default 120: ' +
          "longer than formqueue's 45-minute second look); late:MINUTES sets the lag",
        source: 'no Google page on how soon Gmail search indexes a message; https://developers.google.com/workspace/gmail/api/guides/filtering ' +
          'documents the query, not its freshness: the reading in which the index lags, as search indexes generally do',
      },
      {
        value: 'absent',
        says: 'never in Sent: neither search nor get finds it, though it went',
        source: `${MAIL_APP} promises no copy in Sent (MailApp has no access to the mailbox at all; its scope is script.send_mail): ` +
          'the reading in which none is kept',
      },
    ],
  },
  {
    key: 'overload',
    behaviour: 'what a web-app caller gets when 30 executions of the user already run (the call Google refuses)',
    google: 'https://developers.google.com/apps-script/guides/services/quotas: "Simultaneous executions: 30 / user"; nothing on what the caller receives',
    defaultReading: 'behind-302',
    readings: [
      {
        value: 'behind-302',
        says: "the usual 302 to the one-time echo URL, whose GET answers 200 with Google's HTML error page (exec qps)",
        source: `${TANAIKE_WA} (README, table of status codes: 200, title "Error", "Service invoked too many times in a short time: exec qps") ` +
          `read with ${CONTENT_REDIRECTS}: every web-app answer comes through the redirect`,
      },
      {
        value: 'html-200',
        says: "no redirect: /exec itself answers 200 with Google's HTML error page (exec qps)",
        source: `${TANAIKE_WA} (same table): its status column does not say whether a redirect came first, and the request is refused ` +
          'before any script runs, so there may be no content to redirect to',
      },
    ],
  },
  {
    key: 'activeSpreadsheet',
    behaviour: 'what SpreadsheetApp.getActiveSpreadsheet() returns in a web-app call or a clock trigger of a bound script',
    google: `${BOUND}: getActiveSpreadsheet() lets a bound script "refer to their parent file without referring to the file's ID"; ` +
      'neither that page nor the method\'s reference says whether a web app or a time-driven trigger has one',
    defaultReading: 'container',
    readings: [
      {
        value: 'container',
        says: 'the spreadsheet the script is bound to, in every kind of execution',
        source: `${BOUND} (Special methods): the active spreadsheet of a bound script is its parent file, no kind of execution excepted`,
      },
      {
        value: 'none-outside-ui',
        says: 'null in web-app calls and clock triggers (no spreadsheet is open there); the container in menus, dialogs and edit triggers',
        source: `${GET_ACTIVE}: it returns "the currently active spreadsheet, or null if there is none", and a web app or a ` +
          'time-driven trigger has no spreadsheet open in front of anyone (docs/platform.md#bound-spreadsheet: not documented)',
      },
    ],
  },
  {
    key: 'bounceOriginal',
    behaviour: "how much of the bounced message a Gmail delivery-failure notice shows through Users.Messages.get (format full)",
    google: `${MESSAGE_PART} describes parts, headers and body.data or body.attachmentId; nothing says which a bounce's ` +
      'message/rfc822 part (the original message) gets',
    defaultReading: 'inline',
    readings: [
      {
        value: 'inline',
        says: "the original's headers and its text come inline as parts of the message/rfc822 part, so its Reference (FQ-…) can be read",
        source: `${BOUNCE_DETECTOR}: the original message is the report's third part; ${MESSAGE_PART}: a part's body.data holds its text`,
      },
      {
        value: 'attachment',
        says: 'the original is an attachment (body.attachmentId only): the notice shows its human text, X-Failed-Recipients and the ' +
          'delivery-status fields, nothing of the original (no Reference)',
        source: `${MESSAGE_PART}: "attachmentId: When present, contains the ID of an external attachment"; ${BOUNCE_DETECTOR}: the ` +
          'original part is optional and may be incomplete',
      },
    ],
  },
  {
    key: 'typeformRedirect',
    behaviour: "what Typeform's webhook sender does with the 302 an Apps Script web app answers every POST with",
    google: `${TF_WEBHOOKS}: a delivery needs "a 2XX HTTP response status code"; nothing on redirects (${CONTENT_REDIRECTS}: every web-app answer is a 302)`,
    defaultReading: 'follow',
    readings: [
      {
        value: 'follow',
        says: 'the sender follows the 302 with a GET (as curl -L) and counts the echo URL\'s 200 as delivered',
        source: 'what the runtime assumed before the switch; no public page says Typeform does it',
      },
      {
        value: 'fail',
        says: 'the 302 counts as a failed delivery ("any other HTTP code": a few retries with growing gaps), though doPost ran',
        source: 'other senders posting to Apps Script web apps do not follow it and end with a disabled webhook: ' +
          'https://github.com/woocommerce/woocommerce/issues/21490, https://github.com/isaacs/github/issues/574',
      },
    ],
  },
]);

/** @param {string} key */
function switchOf(key) {
  return WORLD_SWITCHES.find((s) => s.key === key);
}

/** The reading `value` names: `late` or `late:90` both name the reading `late` (its arg, if it takes one). */
function readingOf(/** @type {WorldSwitch} */ world, /** @type {string} */ value) {
  const [name, arg, ...rest] = String(value).split(':');
  const reading = world.readings.find((r) => r.value === name);
  if (!reading || rest.length > 0) return undefined;
  if (arg === undefined) return reading;
  return reading.arg && /^\d+$/.test(arg) ? reading : undefined;
}

/** A world no switch or reading names: the caller's mistake, said with the choices. */
class UnknownWorld extends Error {}

/** The readings of a switch as --help and errors list them: `late[:MINUTES]` for one that takes a number. */
function readingNames(/** @type {WorldSwitch} */ world) {
  return world.readings.map((r) => (r.arg ? `${r.value}[:${r.arg.name}]` : r.value)).join(', ');
}

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
    if (!readingOf(world, value)) throw new UnknownWorld(`world switch ${key} has no reading "${value}"; readings: ${readingNames(world)}`);
    worlds[key] = value;
  }
  return worlds;
}

/**
 * The reading a resolved world value names and its number: `late:90` → { reading: 'late', arg: 90 }; `late` → its
 * default number; a reading that takes none → arg null. @param {string} key @param {string} value
 */
export function worldReading(key, value) {
  const world = switchOf(key);
  const reading = world ? readingOf(world, value) : undefined;
  if (!world || !reading) throw new UnknownWorld(`world switch ${key} has no reading "${value}"`);
  const given = String(value).split(':')[1];
  return { reading: reading.value, arg: reading.arg ? (given === undefined ? reading.arg.defaultValue : Number(given)) : null };
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
    ...s.readings.map((r) => `      ${s.key}=${r.value}${r.arg ? `[:${r.arg.name}]` : ''}${r.value === s.defaultReading ? ' (default)' : ''}: ${r.says}`),
  ].join('\n')).join('\n');
}
