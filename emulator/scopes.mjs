// The OAuth scope(s) each emulated method needs, in one table, and the calls a manifest's oauthScopes leave denied.
//
// A manifest that lists oauthScopes turns off Apps Script's detection: only those scopes are granted, and a call that
// needs another fails (https://developers.google.com/apps-script/concepts/scopes#setting_explicit_scopes). Google's text,
// as scripts report it: "You do not have permission to call Session.getActiveUser. Required permissions:
// https://www.googleapis.com/auth/userinfo.email" (github.com/hijonathan/google-scripts/issues/14), and with alternatives
// "Required permissions: (https://www.googleapis.com/auth/spreadsheets.currentonly || https://www.googleapis.com/auth/spreadsheets)".
// Scopes per method are those each reference page lists under "Authorization".
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const AUTH = 'https://www.googleapis.com/auth/';
const SHEETS = [`${AUTH}spreadsheets.currentonly`, `${AUTH}spreadsheets`];
const REF = 'https://developers.google.com/apps-script/reference/';

/**
 * [method pattern, scopes (any one suffices; [] = none), source]. A pattern is 'Class.method' or 'Class.*'; the exact
 * entry wins over the class's wildcard. Class names are the realm's (emulator/realm/*.mjs).
 * @type {Array<[string, string[], string]>}
 */
export const SCOPE_TABLE = [
  ['SpreadsheetApp.*', SHEETS, `${REF}spreadsheet/spreadsheet-app`],
  ['SpreadsheetApp.openById', [`${AUTH}spreadsheets`], `${REF}spreadsheet/spreadsheet-app#openbyidid`],
  ['SpreadsheetApp.openByUrl', [`${AUTH}spreadsheets`], `${REF}spreadsheet/spreadsheet-app#openbyurlurl`],
  // Documented with currentonly too, observed to need the full scope (qiita.com/ttsukagoshi/items/b5fd5746bc6ecc003b80).
  ['SpreadsheetApp.getActiveRangeList', [`${AUTH}spreadsheets`], 'https://qiita.com/ttsukagoshi/items/b5fd5746bc6ecc003b80'],
  ...['Spreadsheet', 'Sheet', 'Range', 'RangeList', 'TextFinder', 'Protection', 'DataValidationBuilder', 'DataValidation',
    'ConditionalFormatRuleBuilder', 'ConditionalFormatRule', 'BooleanCondition']
    .map((cls) => [`${cls}.*`, SHEETS, `${REF}spreadsheet/${cls.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}`]),
  // Dialogs and sidebars need the container UI scope; alerts, prompts and menus list none.
  ['Ui.*', [], `${REF}base/ui`],
  ['Ui.showModalDialog', [`${AUTH}script.container.ui`], `${REF}base/ui#showmodaldialoguserinterface,-title`],
  ['Ui.showModelessDialog', [`${AUTH}script.container.ui`], `${REF}base/ui#showmodelessdialoguserinterface,-title`],
  ['Ui.showSidebar', [`${AUTH}script.container.ui`], `${REF}base/ui#showsidebaruserinterface`],
  ['Menu.*', [], `${REF}base/menu`],
  ['PromptResponse.*', [], `${REF}base/prompt-response`],
  ['UrlFetchApp.*', [`${AUTH}script.external_request`], `${REF}url-fetch/url-fetch-app`],
  ['HTTPResponse.*', [], `${REF}url-fetch/http-response`],
  ['MailApp.*', [`${AUTH}script.send_mail`], `${REF}mail/mail-app`],
  ['GmailApp.*', ['https://mail.google.com/'], `${REF}gmail/gmail-app`],
  ['GmailMessage.*', ['https://mail.google.com/'], `${REF}gmail/gmail-message`],
  ['GmailThread.*', ['https://mail.google.com/'], `${REF}gmail/gmail-thread`],
  // The Gmail advanced service checks its scopes itself and answers with the API's error (services/gmail-api.mjs).
  ['GmailUsersMessages.*', [], 'https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/list'],
  ['ScriptApp.*', [], `${REF}script/script-app`],
  ...['newTrigger', 'getProjectTriggers', 'getUserTriggers', 'deleteTrigger']
    .map((m) => [`ScriptApp.${m}`, [`${AUTH}script.scriptapp`], `${REF}script/script-app#${m.toLowerCase()}`]),
  ...['TriggerBuilder', 'ClockTriggerBuilder', 'SpreadsheetTriggerBuilder']
    .map((cls) => [`${cls}.*`, [`${AUTH}script.scriptapp`], `${REF}script/${cls.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}`]),
  ['Trigger.*', [], `${REF}script/trigger`],
  ['Service.*', [], `${REF}script/service`],
  ['Session.*', [], `${REF}base/session`],
  ['Session.getActiveUser', [`${AUTH}userinfo.email`], `${REF}base/session#getactiveuser`],
  ['Session.getEffectiveUser', [`${AUTH}userinfo.email`], `${REF}base/session#geteffectiveuser`],
  ['User.*', [], `${REF}base/user`],
  // Services that reach no user data need no scope.
  ...['LockService', 'Lock', 'CacheService', 'Cache', 'PropertiesService', 'Properties', 'Utilities', 'Blob', 'Logger',
    'HtmlService', 'HtmlOutput', 'HtmlTemplate', 'ContentService', 'TextOutput'].map((cls) => [`${cls}.*`, [], `${REF}`]),
];

const PATTERNS = new Map(SCOPE_TABLE.map(([pattern, scopes]) => [pattern, scopes]));

/** The scopes a method needs, or undefined when the table has no entry for it. */
export function scopesFor(method) {
  return PATTERNS.get(method) ?? PATTERNS.get(`${method.split('.')[0]}.*`);
}

/** "Required permissions: …" as Google writes it: one scope bare, alternatives in parentheses joined by ||. */
export function requiredText(scopes) {
  return scopes.length === 1 ? scopes[0] : `(${scopes.join(' || ')})`;
}

/** The granted scopes of the bundle's appsscript.json, or null when it lists none (Apps Script then grants what the code uses). */
export function grantedScopes(bundleDir) {
  const file = join(bundleDir, 'appsscript.json');
  if (!existsSync(file)) return null;
  const scopes = JSON.parse(readFileSync(file, 'utf8')).oauthScopes;
  return Array.isArray(scopes) ? scopes.map(String) : null;
}

/**
 * Pattern → "Required permissions" text for every table entry the granted scopes do not satisfy; the realm refuses
 * those calls before they run (emulator/realm/core.mjs). Nothing is denied when the manifest names no scopes.
 */
export function deniedCalls(granted) {
  if (!granted) return {};
  const have = new Set(granted);
  const denied = {};
  for (const [pattern, scopes] of SCOPE_TABLE) {
    if (scopes.length > 0 && !scopes.some((s) => have.has(s))) denied[pattern] = requiredText(scopes);
  }
  // An exact entry that needs nothing (or is granted) lifts its class's wildcard denial.
  for (const [pattern] of SCOPE_TABLE) {
    if (!pattern.endsWith('.*') && !(pattern in denied) && `${pattern.split('.')[0]}.*` in denied) denied[pattern] = null;
  }
  return denied;
}

/**
 * The advanced services the bundle's manifest enables: [{ userSymbol, serviceId, version }] from
 * dependencies.enabledAdvancedServices (https://developers.google.com/apps-script/manifest/dependencies).
 */
export function advancedServices(bundleDir) {
  const file = join(bundleDir, 'appsscript.json');
  if (!existsSync(file)) return [];
  const listed = JSON.parse(readFileSync(file, 'utf8')).dependencies?.enabledAdvancedServices;
  return Array.isArray(listed) ? listed.map((s) => ({ userSymbol: String(s.userSymbol), serviceId: String(s.serviceId), version: String(s.version) })) : [];
}
