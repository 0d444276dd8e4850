// selfTest: formqueue → Self-test, or run from the editor; checks the platform assumptions on this account.
import { runSelfTest } from '../gas/self-test';
import { createServices } from '../gas/services';

export function selfTest(): string {
  const services = createServices({ spreadsheet: 'active-first' });
  const report = runSelfTest(services);
  console.log(report);
  try {
    const ui = SpreadsheetApp.getUi();
    ui.alert('formqueue self-test', report, ui.ButtonSet.OK);
  } catch {
    // No UI when run from the script editor: the report is in the execution log and the Log sheet.
  }
  return report;
}
