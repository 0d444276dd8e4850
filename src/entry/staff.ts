// The staff console's globals: setup, the menu, its items and the installable on-edit trigger, each taking its ports from the composition root.
import { messageOf } from '../core/domain/failures/errors';
import { SETTING_KEYS } from '../core/domain/config/settings';
import { planPropertyChange } from '../core/staff/set-property';
import type { MenuAction } from '../core/staff/menu-actions';
import { markQueueDirty } from '../core/domain/queue/tick-gate';
import { guardConfigEdit } from '../gas/config-edit-guard';
import { noteConfigEdit } from '../gas/config-store';
import { guardQueueEdit } from '../gas/edit-guard';
import { acceptRejectedDelivery } from '../gas/intake-service';
import { intakeLock } from '../gas/locks';
import { addFormqueueMenu, runSelectionAction, selectedRejectedBody, setPaused, showQueueHealth } from '../gas/menu';
import { showReplyPreview } from '../gas/reply-preview';
import { tryGeminiChange } from '../gas/gemini-trial';
import { runSetup } from '../gas/setup';
import { createServices, type Services } from '../gas/services';
import { runTypeformCheck } from '../gas/typeform-reconcile';
import { processQueue } from './process-queue';

/** Menus run inside the spreadsheet; from the editor or a trigger, SPREADSHEET_ID names it. */
function staffServices(): Services {
  return createServices({ spreadsheet: 'active-first' });
}

/** A menu item shows what happened, or the error with its code, in an alert; nothing fails silently. */
function alertOutcome(title: string, run: () => string): void {
  const ui = SpreadsheetApp.getUi();
  let message: string;
  try {
    message = run();
  } catch (error) {
    const code = (error as { code?: string }).code;
    message = `${code ? `${code}: ` : ''}${messageOf(error)}`;
  }
  ui.alert(title, message, ui.ButtonSet.OK);
}

/** Set up / repair; from the menu the report is shown, from the editor it is returned (and logged). */
export function setup(): string {
  const lock = intakeLock();
  if (!lock.tryLock(30000)) return 'Another Set up / repair is running; try again in a minute.';
  let report: string;
  try {
    const services = staffServices();
    report = runSetup(services.spreadsheet(), services.props());
  } finally {
    lock.release();
  }
  console.log(report);
  try {
    const ui = SpreadsheetApp.getUi();
    ui.alert('formqueue', report, ui.ButtonSet.OK);
  } catch {
    // No UI when run from the script editor or a runtime without one: the report is returned and logged.
  }
  return report;
}

export function onOpen(): void {
  addFormqueueMenu(SpreadsheetApp.getUi());
}

export function onEditInstallable(e: GoogleAppsScript.Events.SheetsOnEdit): void {
  const services = createServices({ spreadsheet: () => e.source });
  const now = services.clock.now();
  noteConfigEdit(e.range.getSheet().getName(), services.props(), now);
  guardConfigEdit(e);
  guardQueueEdit(e, { props: services.props, audit: services.audit, queue: services.queue, now });
}

function selectionAction(action: MenuAction, title: string): void {
  alertOutcome(title, () => runSelectionAction(action, staffServices()));
}

export function menuApproveSelected(): void {
  selectionAction('approve', 'Approve selected');
}

export function menuRetrySelected(): void {
  selectionAction('retry', 'Retry selected');
}

export function menuSkipSelected(): void {
  selectionAction('skip', 'Skip selected');
}

export function menuMarkSent(): void {
  selectionAction('markSent', 'Mark selected as sent');
}

export function menuProcessNow(): void {
  alertOutcome('Process now', () => {
    const services = createServices();
    markQueueDirty(services.props(), services.clock.now()); // not an idle tick: look at the queue
    const summary = processQueue();
    return typeof summary === 'string' && summary !== '' ? summary : 'Done: the queue was processed. See the Queue and Log sheets.';
  });
}

export function menuAcceptRejected(): void {
  alertOutcome('Accept rejected delivery', () => {
    const picked = selectedRejectedBody(staffServices().spreadsheet());
    if ('message' in picked) return picked.message;
    const answer = acceptRejectedDelivery(createServices(), picked.body);
    return `Row ${picked.rowNumber} of Rejected: ${answer.message}`;
  });
}

export function menuQueueHealth(): void {
  try {
    showQueueHealth(SpreadsheetApp.getUi(), staffServices());
  } catch (error) {
    alertOutcome('Queue health', () => {
      throw error;
    });
  }
}

export function menuPreviewReply(): void {
  try {
    showReplyPreview(SpreadsheetApp.getUi(), staffServices());
  } catch (error) {
    alertOutcome('Preview reply', () => {
      throw error;
    });
  }
}

export function menuPause(): void {
  alertOutcome('Pause', () => setPaused(staffServices(), true));
}

export function menuResume(): void {
  alertOutcome('Resume', () => setPaused(staffServices(), false));
}

/** Script Properties without opening Project Settings: KEY=VALUE in a prompt, checked before it is stored. */
export function menuSetProperty(): void {
  const ui = SpreadsheetApp.getUi();
  const answer = ui.prompt('Set a Script Property', `Type NAME=VALUE (an empty value removes it). Known names: ${SETTING_KEYS.join(', ')}.`, ui.ButtonSet.OK_CANCEL);
  if (answer.getSelectedButton() !== ui.Button.OK) return;
  alertOutcome('Set a Script Property', () => {
    const services = createServices();
    const props = services.props();
    const change = planPropertyChange(answer.getResponseText(), props.getAll());
    if (change.kind === 'refused') return change.message;
    if (change.kind === 'confirm' && ui.alert('Set a Script Property', change.question, ui.ButtonSet.YES_NO) !== ui.Button.YES) {
      return 'Nothing changed.';
    }
    // A new Gemini key or model is tried with one tiny request before it is stored (core/staff/gemini-trial.ts).
    const trial = tryGeminiChange(change.writes, props.getAll(), services.settings().geminiBaseUrl);
    if (trial?.refused && ui.alert('Set a Script Property', trial.refused, ui.ButtonSet.YES_NO) !== ui.Button.YES) return 'Nothing changed.';
    props.setMany(change.writes.set);
    for (const key of change.writes.remove) props.delete(key);
    markQueueDirty(props, services.clock.now());
    return `${change.done}${trial?.note ?? ''}`;
  });
}

/** The same check as the daily trigger, now: recovered rows wait in AWAITING_APPROVAL (docs/reconciliation.md). */
export function menuCheckTypeform(): void {
  alertOutcome('formqueue: Typeform check', () => runTypeformCheck(createServices()).join('\n'));
}
