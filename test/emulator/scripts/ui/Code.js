// Ui probes: a menu action that shows each kind of Ui a person can see, and answers what it was told.
function everything() {
  var ui = SpreadsheetApp.getUi();
  var sure = ui.alert('Process now', 'Run the queue now?', ui.ButtonSet.YES_NO);
  var typed = ui.prompt('Set a Script Property', 'Type KEY=VALUE', ui.ButtonSet.OK_CANCEL);
  SpreadsheetApp.getActiveSpreadsheet().toast('3 rows queued', 'formqueue');
  ui.showModalDialog(HtmlService.createHtmlOutput('<h2>Queue health</h2><p>3 rows <b>waiting</b>, oldest 4 min.</p><ul><li>PENDING 3</li></ul>'), 'formqueue: queue health');
  ui.showSidebar(HtmlService.createHtmlOutput('<p>Help &amp; tips</p>').setTitle('formqueue help'));
  ui.alert('Done');
  return { sure: String(sure), button: String(typed.getSelectedButton()), text: typed.getResponseText() };
}
function wrongAnswer() {
  var ui = SpreadsheetApp.getUi();
  try { ui.alert('Only OK', ui.ButtonSet.OK); return 'answered'; } catch (e) { return String(e); }
}
