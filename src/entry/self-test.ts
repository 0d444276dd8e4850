// selfTest: formqueue → Self-test, or run from the editor; checks the platform assumptions on this account.
import { systemClock } from '../gas/system-clock';
import { readSettings } from '../core/domain/config/settings';
import { createScriptPropertyStore } from '../gas/script-properties';
import { runSelfTest } from '../gas/self-test';
import { openSpreadsheet } from '../gas/spreadsheet';

export function selfTest(): string {
  const { settings } = readSettings(createScriptPropertyStore().getAll());
  const book = SpreadsheetApp.getActiveSpreadsheet() ?? openSpreadsheet(settings);
  const report = runSelfTest(book, settings, systemClock.now());
  console.log(report);
  try {
    const ui = SpreadsheetApp.getUi();
    ui.alert('formqueue self-test', report, ui.ButtonSet.OK);
  } catch {
    // No UI when run from the script editor: the report is in the execution log and the Log sheet.
  }
  return report;
}
