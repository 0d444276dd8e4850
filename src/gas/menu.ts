// The formqueue menu: its items, and the spreadsheet side of each (selection, row writes, dialogs, pause).
import { joinPayloadParts, parseRejectedBodyPointer } from '../core/domain/queue/cell-chunks';
import type { FormConfig } from '../core/domain/sheet-ports';
import { processingConfigFor } from '../core/processing/row-inputs';
import { runGap } from '../core/domain/queue/run-gap';
import { readSettings } from '../core/domain/config/settings';
import { SHEETS } from '../core/domain/queue/sheet-names';
import { healthDialogHtml } from '../core/triage/health-view';
import { USAGE_PROPERTY, readUsage, usageSections } from '../core/domain/gemini/usage-tally';
import type { MenuAction } from '../core/staff/menu-actions';
import { staffName } from '../core/staff/staff-moves';
import { markQueueDirty } from '../core/domain/queue/tick-gate';
import { runSelectionAction as runSelection } from '../core/staff/selection-action';
import { computeHealth } from '../core/triage/health';
import { mailFigures } from '../core/triage/mail-figures';
import { bouncesSince, readBounceCheckState } from '../core/processing/bounces';
import { DAY_MS } from '../core/domain/time';
import { createSuppressionList } from './suppression-store';
import { incidentFromJson, type Incident } from '../core/triage/incident-record';
import { INCIDENT_KEY_PREFIX } from '../core/triage/incidents';
import { scriptDateKey } from './system-clock';
import { withReviewTrail } from './review-trail';
import { readPayloadParts } from './payloads';
import type { Services } from './services';

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;

/** Menu captions → the global functions src/entry/staff.ts exports under those names. */
export const MENU_ITEMS: readonly (readonly [string, string] | null)[] = [
  ['Process now', 'menuProcessNow'],
  null,
  ['Approve selected', 'menuApproveSelected'],
  ['Retry selected', 'menuRetrySelected'],
  ['Skip selected', 'menuSkipSelected'],
  ['Mark selected as sent', 'menuMarkSent'],
  null,
  ['Accept rejected delivery', 'menuAcceptRejected'],
  ['Queue health', 'menuQueueHealth'],
  ['Check Typeform for missed submissions', 'menuCheckTypeform'],
  null,
  ['Pause', 'menuPause'],
  ['Resume', 'menuResume'],
  ['Set a Script Property…', 'menuSetProperty'],
  ['Set up / repair', 'setup'],
  ['Self-test', 'selfTest'],
  null,
  ['Preview reply (selected row, nothing sent)', 'menuPreviewReply'],
];

export function addFormqueueMenu(ui: GoogleAppsScript.Base.Ui): void {
  const menu = ui.createMenu('formqueue');
  for (const item of MENU_ITEMS) {
    if (item === null) menu.addSeparator();
    else menu.addItem(item[0], item[1]);
  }
  menu.addToUi();
}

/** Every range of the selection (null when nothing is selected). */
function activeRanges(spreadsheet: Spreadsheet): GoogleAppsScript.Spreadsheet.Range[] {
  const list = spreadsheet.getActiveRangeList();
  return list ? list.getRanges() : [];
}

/** Every row touched by the selection (several ranges with Ctrl/Cmd), header excluded; null when not on Queue. */
export function selectedQueueRowNumbers(spreadsheet: Spreadsheet): number[] | null {
  const sheet = spreadsheet.getActiveSheet();
  if (!sheet || sheet.getName() !== SHEETS.queue) return null;
  const ranges = activeRanges(spreadsheet);
  const rows = new Set<number>();
  const lastRow = sheet.getLastRow();
  for (const range of ranges) {
    const first = Math.max(range.getRow(), 2);
    const last = Math.min(range.getRow() + range.getNumRows() - 1, lastRow);
    for (let row = first; row <= last; row++) rows.add(row);
  }
  return Array.from(rows).sort((a, b) => a - b);
}

/** Approve / Retry / Skip / Mark sent on the selected rows (core's runSelectionAction), with the selection and Config read here. */
export function runSelectionAction(action: MenuAction, services: Services): string {
  const spreadsheet = services.spreadsheet();
  const numbers = selectedQueueRowNumbers(spreadsheet);
  if (numbers === null) return 'Open the Queue sheet and select the rows first (any cell of a row selects it).';
  const now = services.clock.now();
  const [audit, props] = [services.audit(), services.props()];
  return runSelection({ queue: services.queue(), audit, props }, {
    action,
    rowNumbers: numbers,
    context: { user: services.user(), now },
    approvals: () => {
      const forms = readFormsOrNone(services);
      return (formId) => (forms === null ? null : processingConfigFor(formId, forms).approvalRequired);
    },
    annotate: (lines, written) => withReviewTrail(spreadsheet, audit, lines, written, { props, dayKey: scriptDateKey(now), now }),
  });
}

/** Config's forms, or null when Config cannot be read (the message then promises no mail). */
function readFormsOrNone(services: Services): FormConfig[] | null {
  try {
    return services.config().readForms();
  } catch {
    return null;
  }
}

export const PAUSED_PROPERTY = 'PAUSED';

export function setPaused(services: Services, paused: boolean): string {
  const props = services.props();
  if (paused) {
    props.set(PAUSED_PROPERTY, 'true');
    return `formqueue is paused (by ${staffName(services.user())}): no reply is generated or sent until Resume. Deliveries are still queued.`;
  }
  props.delete(PAUSED_PROPERTY);
  markQueueDirty(props, services.clock.now()); // resume at the next tick, not at the next safety sweep
  return 'formqueue resumed: waiting rows are processed from the next run (within a minute).';
}

export function openIncidents(all: Readonly<Record<string, string>>): Incident[] {
  return Object.keys(all)
    .filter((key) => key.startsWith(INCIDENT_KEY_PREFIX))
    .map((key) => incidentFromJson(all[key]))
    .filter((incident): incident is Incident => incident !== null && incident.state === 'open');
}

export function showQueueHealth(ui: GoogleAppsScript.Base.Ui, services: Services): void {
  const deps = { spreadsheet: services.spreadsheet(), now: services.clock.now() };
  const all = services.props().getAll();
  const queue = deps.spreadsheet.getSheetByName(SHEETS.queue);
  const { settings } = readSettings(all);
  const health = computeHealth(services.queue().readAll(), deps.now, deps.spreadsheet.getUrl(), queue ? queue.getSheetId() : null, {
    spilled: services.spill().count(),
    approvalWaitHours: settings.approvalWaitHours,
  });
  const usage = usageSections(readUsage(all[USAGE_PROPERTY]), scriptDateKey(deps.now));
  const bounces = settings.reconcileBounces ? bouncesSince(readBounceCheckState(all), deps.now - DAY_MS) : null;
  const mail = mailFigures(bounces, () => createSuppressionList(deps.spreadsheet).read());
  const html = healthDialogHtml(health, openIncidents(all), deps.now, { paused: settings.paused, typeformTokenSet: settings.typeformToken !== '' }, { gap: runGap(all, deps.now), usage, mail });
  ui.showModalDialog(HtmlService.createHtmlOutput(html).setWidth(520).setHeight(460), 'formqueue: queue health');
}

/** The row the cursor is on in Rejected, with its body; a message instead when there is nothing to accept. */
export function selectedRejectedBody(spreadsheet: Spreadsheet): { rowNumber: number; body: string } | { message: string } {
  const sheet = spreadsheet.getActiveSheet();
  const range = spreadsheet.getActiveRange();
  if (!sheet || sheet.getName() !== SHEETS.rejected || !range || range.getRow() < 2) {
    return { message: 'Open the Rejected sheet and put the cursor on the delivery to accept.' };
  }
  const rowNumber = range.getRow();
  const width = Math.max(sheet.getLastColumn(), 1);
  const header = sheet.getRange(1, 1, 1, width).getValues()[0];
  const cells = sheet.getRange(rowNumber, 1, 1, width).getValues()[0];
  const at = header.map((cell) => String(cell).trim()).indexOf('body');
  const cell = at < 0 ? '' : String(cells[at] ?? '');
  // A body too long for a cell was kept in Payloads under its own key: any text counts as whole.
  const key = parseRejectedBodyPointer(cell);
  const body = key === null ? cell : joinPayloadParts(readPayloadParts(spreadsheet, key), () => true) ?? '';
  if (body.trim() === '') return { message: `Row ${rowNumber} of Rejected keeps no body (only a count was kept during a flood), so there is nothing to accept.` };
  return { rowNumber, body };
}
