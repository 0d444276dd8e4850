// The staff console's globals: setup, the menu, its items and the installable on-edit trigger, each wiring adapters to core.
import { systemClock } from '../gas/system-clock';
import { messageOf } from '../core/domain/failures/errors';
import { readSettings, SETTING_KEYS } from '../core/domain/config/settings';
import { planPropertyChange } from '../core/staff/set-property';
import type { MenuAction } from '../core/staff/menu-actions';
import { DIRTY_PROPERTY } from '../core/domain/queue/tick-gate';
import { createAuditLog } from '../gas/audit-log';
import { guardConfigEdit } from '../gas/config-edit-guard';
import { noteConfigEdit } from '../gas/config-store';
import { guardQueueEdit } from '../gas/edit-guard';
import { acceptRejectedDelivery } from '../gas/intake-service';
import { intakeLock } from '../gas/locks';
import { addFormqueueMenu, runSelectionAction, selectedRejectedBody, setPaused, showQueueHealth } from '../gas/menu';
import { createQueueStore } from '../gas/queue-store';
import { showReplyPreview } from '../gas/reply-preview';
import { createScriptPropertyStore } from '../gas/script-properties';
import { runSetup } from '../gas/setup';
import { createSpillStore } from '../gas/spill-store';
import { openSpreadsheet } from '../gas/spreadsheet';
import { runTypeformCheck } from '../gas/typeform-reconcile';
import { processQueue } from './process-queue';

/** Menus and edits run inside the spreadsheet; from the editor or a trigger, SPREADSHEET_ID names it. */
function spreadsheet(): GoogleAppsScript.Spreadsheet.Spreadsheet {
  return SpreadsheetApp.getActiveSpreadsheet() ?? openSpreadsheet(readSettings(createScriptPropertyStore().getAll()).settings);
}

function currentUser(): string {
  return Session.getActiveUser().getEmail();
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
    report = runSetup(spreadsheet(), createScriptPropertyStore());
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
  const book = e.source;
  const props = createScriptPropertyStore();
  const now = systemClock.now();
  noteConfigEdit(e.range.getSheet().getName(), props, now);
  guardConfigEdit(e);
  guardQueueEdit(e, { props, audit: createAuditLog(book), queue: () => createQueueStore(book), now });
}

function selectionAction(action: MenuAction, title: string): void {
  alertOutcome(title, () => {
    const book = spreadsheet();
    return runSelectionAction(action, {
      spreadsheet: book,
      store: createQueueStore(book),
      audit: createAuditLog(book),
      props: createScriptPropertyStore(),
      user: currentUser(),
      now: systemClock.now(),
    });
  });
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
    createScriptPropertyStore().set(DIRTY_PROPERTY, String(systemClock.now())); // not an idle tick: look at the queue
    const summary = processQueue();
    return typeof summary === 'string' && summary !== '' ? summary : 'Done: the queue was processed. See the Queue and Log sheets.';
  });
}

export function menuAcceptRejected(): void {
  alertOutcome('Accept rejected delivery', () => {
    const picked = selectedRejectedBody(spreadsheet());
    if ('message' in picked) return picked.message;
    const answer = acceptRejectedDelivery(picked.body);
    return `Row ${picked.rowNumber} of Rejected: ${answer.message}`;
  });
}

export function menuQueueHealth(): void {
  try {
    const book = spreadsheet();
    const props = createScriptPropertyStore();
    showQueueHealth(SpreadsheetApp.getUi(), { spreadsheet: book, store: createQueueStore(book), props, spilled: createSpillStore().count(), now: systemClock.now() });
  } catch (error) {
    alertOutcome('Queue health', () => {
      throw error;
    });
  }
}

export function menuPreviewReply(): void {
  try {
    const book = spreadsheet();
    showReplyPreview(SpreadsheetApp.getUi(), { spreadsheet: book, store: createQueueStore(book), props: createScriptPropertyStore() });
  } catch (error) {
    alertOutcome('Preview reply', () => {
      throw error;
    });
  }
}

export function menuPause(): void {
  alertOutcome('Pause', () => setPaused(createScriptPropertyStore(), true, currentUser(), systemClock.now()));
}

export function menuResume(): void {
  alertOutcome('Resume', () => setPaused(createScriptPropertyStore(), false, currentUser(), systemClock.now()));
}

/** Script Properties without opening Project Settings: KEY=VALUE in a prompt, checked before it is stored. */
export function menuSetProperty(): void {
  const ui = SpreadsheetApp.getUi();
  const answer = ui.prompt('Set a Script Property', `Type NAME=VALUE (an empty value removes it). Known names: ${SETTING_KEYS.join(', ')}.`, ui.ButtonSet.OK_CANCEL);
  if (answer.getSelectedButton() !== ui.Button.OK) return;
  alertOutcome('Set a Script Property', () => {
    const props = createScriptPropertyStore();
    const change = planPropertyChange(answer.getResponseText(), props.getAll());
    if (change.kind === 'refused') return change.message;
    if (change.kind === 'confirm' && ui.alert('Set a Script Property', change.question, ui.ButtonSet.YES_NO) !== ui.Button.YES) {
      return 'Nothing changed.';
    }
    props.setMany(change.writes.set);
    for (const key of change.writes.remove) props.delete(key);
    props.set(DIRTY_PROPERTY, String(systemClock.now()));
    return change.done;
  });
}

/** The same check as the daily trigger, now: recovered rows wait in AWAITING_APPROVAL (docs/reconciliation.md). */
export function menuCheckTypeform(): void {
  alertOutcome('formqueue: Typeform check', () => runTypeformCheck().join('\n'));
}
