// Set up / repair: makes the spreadsheet, triggers and Script Properties match the setup plan; safe to run any number of times.
import { missedDeliveriesNote } from '../core/domain/typeform/missed-deliveries';
import { WATCH_EVERY_MINUTES } from '../core/reconcile/webhook-watch';
import { readYesNo, YES_NO_COLUMNS } from '../core/domain/config/config-check';
import type { PropertyStore } from '../core/domain/ports';
import { readSettings } from '../core/domain/config/settings';
import { SHEETS } from '../core/domain/queue/sheet-names';
import {
  DEPLOYER_PROPERTY,
  PROTECTION_PREFIX,
  SHEET_PLANS,
  columnBlocks,
  columnsToTrim,
  columnLetter,
  defaultConfigRow,
  hasDefaultConfigRow,
  isOwnColourFormula,
  planProperties,
  planForeignTriggers,
  planTriggers,
  WANTED_TRIGGERS,
  repairHeader,
  statusColourRules,
  triggerOwnership,
  type SheetPlan,
  type TriggerInfo,
} from '../core/staff/setup-plan';
import { staffMovesSentence } from '../core/domain/queue/transitions';
import { STATUSES } from '../core/domain/queue/statuses';
import { appendRows, plainTextFormats } from './sheet-append';

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;
type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** Creates the sheet if needed and repairs its header; returns the header as it now is. */
function ensureSheet(spreadsheet: Spreadsheet, plan: SheetPlan, report: string[]): { sheet: Sheet; header: string[] } {
  let sheet = spreadsheet.getSheetByName(plan.name);
  if (!sheet) {
    sheet = spreadsheet.insertSheet(plan.name);
    report.push(`Created the ${plan.name} sheet.`);
  }
  const width = Math.max(sheet.getLastColumn(), 1);
  const header = sheet.getRange(1, 1, 1, width).getValues()[0].map((cell) => String(cell).trim());
  const repair = repairHeader(header, plan.headers);
  if (repair.kind === 'write') {
    // An earlier Set up trimmed the grid to the header: a column added since needs grid columns before its header
    // (a range past the grid is refused, "The coordinates of the range are outside the dimensions of the sheet.").
    const lastNeeded = repair.startColumn + repair.headers.length - 1;
    const maxColumns = sheet.getMaxColumns();
    if (lastNeeded > maxColumns) sheet.insertColumnsAfter(maxColumns, lastNeeded - maxColumns);
    sheet.getRange(1, repair.startColumn, 1, repair.headers.length).setValues([repair.headers]);
    if (repair.startColumn > 1) report.push(`${plan.name}: added missing columns ${repair.headers.join(', ')} at the right.`);
    header.length = repair.startColumn - 1;
    header.push(...repair.headers);
  }
  if (sheet.getFrozenRows() !== 1) sheet.setFrozenRows(1);
  const trim = columnsToTrim(sheet.getMaxColumns(), sheet.getLastColumn(), header.length);
  if (trim) {
    sheet.deleteColumns(trim.start, trim.count);
    report.push(`${plan.name}: removed ${trim.count} empty grid column(s) at the right (every grid cell counts against the spreadsheet's 10,000,000).`);
  }
  return { sheet, header };
}

/** Whole-column number formats (rows 2…max), one call per run of adjacent columns sharing a format. */
function applyFormats(sheet: Sheet, header: readonly string[], plan: SheetPlan): void {
  const rows = sheet.getMaxRows() - 1;
  if (rows < 1) return;
  const formatAt = (column: number) => plan.formats[header[column - 1]];
  for (let column = 1; column <= header.length; column++) {
    const format = formatAt(column);
    if (format === undefined) continue; // a staff column: Sheets' own format stays
    let end = column;
    while (end + 1 <= header.length && formatAt(end + 1) === format) end++;
    sheet.getRange(2, column, rows, end - column + 1).setNumberFormat(format);
    column = end;
  }
}

/** Removes the protections an earlier run made (found by description) and makes them again from the plan. */
function applyProtections(sheet: Sheet, header: readonly string[], plan: SheetPlan): void {
  const existing = [
    ...sheet.getProtections(SpreadsheetApp.ProtectionType.RANGE),
    ...sheet.getProtections(SpreadsheetApp.ProtectionType.SHEET),
  ];
  for (const protection of existing) if (protection.getDescription().startsWith(PROTECTION_PREFIX)) protection.remove();
  if (plan.restrictSheet) {
    restrictToMe(sheet.protect().setDescription(`${PROTECTION_PREFIX}the record of every submission: written by formqueue only, never edited`));
    return;
  }
  if (plan.protectSheet) {
    sheet.protect().setDescription(`${PROTECTION_PREFIX}written by formqueue only`).setWarningOnly(true);
    return;
  }
  sheet.getRange(1, 1, 1, header.length).protect().setDescription(`${PROTECTION_PREFIX}column names (code finds columns by them)`).setWarningOnly(true);
  const rows = sheet.getMaxRows() - 1;
  if (rows < 1) return;
  for (const block of columnBlocks(header, plan.protectedHeaders)) {
    const name = `${columnLetter(block.startColumn)}–${columnLetter(block.startColumn + block.width - 1)}`;
    sheet.getRange(2, block.startColumn, rows, block.width).protect().setDescription(`${PROTECTION_PREFIX}system columns ${name}`).setWarningOnly(true);
  }
}

/**
 * A protection only the account running Set up (whose triggers write the sheet) and the spreadsheet's owner can pass:
 * Google's own recipe, adding the current user before removing the others, since "if the user's edit permission comes
 * from a group, the script throws an exception upon removing the group"
 * (https://developers.google.com/apps-script/reference/spreadsheet/protection).
 */
function restrictToMe(protection: GoogleAppsScript.Spreadsheet.Protection): void {
  const me = Session.getEffectiveUser();
  protection.addEditor(me);
  const others = protection.getEditors().filter((editor) => editor.getEmail() !== me.getEmail());
  if (others.length > 0) protection.removeEditors(others);
  if (protection.canDomainEdit()) protection.setDomainEdit(false);
}

/** The status dropdown and one row colour per status; colour rules of earlier runs are replaced, staff rules kept. */
function applyQueueLook(sheet: Sheet, header: readonly string[]): void {
  const statusColumn = header.indexOf('status') + 1;
  const rows = sheet.getMaxRows() - 1;
  if (statusColumn < 1 || rows < 1) return;
  const dropdown = SpreadsheetApp.newDataValidation()
    .requireValueInList(STATUSES.slice(), true)
    .setAllowInvalid(false)
    .setHelpText(`Staff may set ${staffMovesSentence()}.`)
    .build();
  sheet.getRange(2, statusColumn, rows, 1).setDataValidation(dropdown);
  const kept = sheet.getConditionalFormatRules().filter((rule) => {
    const condition = rule.getBooleanCondition();
    const formula = condition ? String(condition.getCriteriaValues()[0] ?? '') : '';
    return !isOwnColourFormula(formula);
  });
  const rowsRange = sheet.getRange(2, 1, rows, header.length);
  const ours = statusColourRules(statusColumn).map((rule) =>
    SpreadsheetApp.newConditionalFormatRule().whenFormulaSatisfied(rule.formula).setBackground(rule.colour).setRanges([rowsRange]).build(),
  );
  sheet.setConditionalFormatRules([...kept, ...ours]);
}

/**
 * Checkboxes on Config's yes/no columns, set to reject anything else
 * (https://developers.google.com/apps-script/reference/spreadsheet/data-validation-builder#requirecheckbox), so
 * "yes please" cannot be typed and read as no; the values already there become TRUE/FALSE, and a cell that reads as
 * neither is left as it is and named in the report (the run reads it the safe way: src/core/domain/config/config-check.ts).
 */
function applyConfigLook(sheet: Sheet, header: readonly string[], report: string[]): void {
  const rows = sheet.getMaxRows() - 1;
  if (rows < 1) return;
  const checkbox = SpreadsheetApp.newDataValidation().requireCheckbox().setAllowInvalid(false).setHelpText('Tick for yes, leave empty for no.').build();
  const data = sheet.getDataRange().getValues().slice(1);
  for (const name of YES_NO_COLUMNS) {
    const column = header.indexOf(name) + 1;
    if (column < 1) continue;
    const unreadable: number[] = [];
    const cells = data.map((row, i) => {
      const yes = readYesNo(row[column - 1]);
      if (yes === null) unreadable.push(i + 2);
      return [yes ?? row[column - 1]];
    });
    if (cells.some(([value], i) => value !== data[i][column - 1])) sheet.getRange(2, column, cells.length, 1).setValues(cells);
    sheet.getRange(2, column, rows, 1).setDataValidation(checkbox);
    if (unreadable.length > 0) report.push(`PROBLEM: Config ${name} in row ${unreadable.join(', ')} is neither yes nor no: tick the checkbox for yes or clear it for no.`);
  }
}

function ensureDefaultConfig(sheet: Sheet, header: readonly string[], report: string[]): void {
  const values = sheet.getDataRange().getValues();
  if (hasDefaultConfigRow(values)) return;
  appendRows(sheet, [defaultConfigRow(header)], plainTextFormats(header.length));
  report.push('Config: added the default row (form_id *) with the default prompt, subject and body; edit it to suit.');
}

function triggerKind(trigger: GoogleAppsScript.Script.Trigger): TriggerInfo['kind'] {
  const type = trigger.getEventType();
  if (type === ScriptApp.EventType.CLOCK) return 'clock';
  if (type === ScriptApp.EventType.ON_EDIT) return 'edit';
  return 'other';
}

function ensureTriggers(spreadsheet: Spreadsheet, props: PropertyStore, report: string[]): void {
  const ownership = triggerOwnership(props.getAll()[DEPLOYER_PROPERTY], Session.getEffectiveUser().getEmail());
  const triggers = ScriptApp.getProjectTriggers();
  const infos = triggers.map((trigger) => ({ id: trigger.getUniqueId(), handler: trigger.getHandlerFunction(), kind: triggerKind(trigger) }));
  if (!ownership.mayInstall) {
    const foreign = planForeignTriggers(infos);
    for (const trigger of triggers) if (foreign.remove.includes(trigger.getUniqueId())) ScriptApp.deleteTrigger(trigger);
    if (foreign.remove.length > 0) report.push(`Triggers: removed ${foreign.remove.length} formqueue trigger(s) of your own; they ran beside the deployer's.`);
    report.push(ownership.line ?? '');
    return;
  }
  if (ownership.record) {
    props.set(DEPLOYER_PROPERTY, ownership.record);
    report.push(`Triggers: formqueue's triggers belong to ${ownership.record} (recorded in ${DEPLOYER_PROPERTY}); run Set up / repair as this account.`);
  }
  const plan = planTriggers(infos);
  for (const trigger of triggers) if (plan.remove.includes(trigger.getUniqueId())) ScriptApp.deleteTrigger(trigger);
  if (plan.remove.length > 0) report.push(`Triggers: removed ${plan.remove.length} duplicate trigger(s).`);
  for (const wanted of plan.create) {
    const builder = ScriptApp.newTrigger(wanted.handler);
    if (wanted.schedule === 'every minute') builder.timeBased().everyMinutes(1).create();
    // 06:00 in the script's time zone: yesterday's responses are past the 12 h mark by then, before staff start.
    else if (wanted.schedule === 'daily') builder.timeBased().everyDays(1).atHour(6).create();
    // The webhook watch (docs/reconciliation.md): without TYPEFORM_TOKEN each run is one Script Properties read.
    else if (wanted.schedule === 'every 15 minutes') builder.timeBased().everyMinutes(WATCH_EVERY_MINUTES).create();
    else builder.forSpreadsheet(spreadsheet).onEdit().create();
    report.push(`Triggers: created ${wanted.handler} (${wanted.schedule}).`);
  }
  if (plan.create.length === 0) report.push(`Triggers: ${WANTED_TRIGGERS.map((w) => `${w.handler} (${w.schedule})`).join(', ')} are in place.`);
}

function newRandomToken(): string {
  // Two UUIDs: 244 random bits in 64 hex characters (over MIN_TOKEN_CHARS), so it survives a URL unescaped.
  return (Utilities.getUuid() + Utilities.getUuid()).replace(/-/g, '');
}

/** Runs every step and returns the report staff read; the caller holds a lock so two runs cannot both add a trigger. */
export function runSetup(spreadsheet: Spreadsheet, props: PropertyStore): string {
  const report: string[] = [];
  for (const plan of SHEET_PLANS) {
    const { sheet, header } = ensureSheet(spreadsheet, plan, report);
    applyFormats(sheet, header, plan);
    applyProtections(sheet, header, plan);
    if (plan.name === SHEETS.queue) applyQueueLook(sheet, header);
    if (plan.name === SHEETS.config) {
      ensureDefaultConfig(sheet, header, report);
      applyConfigLook(sheet, header, report);
    }
  }
  report.push(`Sheets: all ${SHEET_PLANS.length} in place, with frozen headers, plain-text columns, the status dropdown, colours and protections (the Journal: editable by ${Session.getEffectiveUser().getEmail() || 'you'} and the owner only; the others: a warning).`);
  ensureTriggers(spreadsheet, props, report);
  const all = props.getAll();
  const properties = planProperties(all, spreadsheet.getId(), newRandomToken);
  props.setMany(properties.set);
  report.push(...properties.lines);
  if (properties.lines.every((line) => !line.startsWith('MISSING') && !line.startsWith('PROBLEM'))) {
    report.push('Script Properties: everything formqueue needs is set.');
  }
  if (readSettings(all).settings.paused) report.push('formqueue is PAUSED: nothing is generated or sent until formqueue → Resume.');
  const missed = missedDeliveriesNote(readSettings(all).settings.typeformToken !== '');
  if (missed !== null) report.push(missed);
  return ['formqueue set up / repair', '', ...report].join('\n');
}
