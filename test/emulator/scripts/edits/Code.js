// Staff-edit probes: installable on-edit and on-change triggers that report the event they got, and sheet read-backs.
function install() {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  ScriptApp.newTrigger('onEditProbe').forSpreadsheet(ss).onEdit().create();
  ScriptApp.newTrigger('onChangeProbe').forSpreadsheet(ss).onChange().create();
  return ScriptApp.getProjectTriggers().map(function (t) { return [t.getHandlerFunction(), String(t.getEventType()), String(t.getTriggerSource())]; });
}
function onEditProbe(e) {
  return {
    fn: 'edit', a1: e.range.getA1Notation(), sheet: e.range.getSheet().getName(), hasValue: 'value' in e, value: e.value, hasOld: 'oldValue' in e, oldValue: e.oldValue,
    user: e.user.getEmail(), authMode: String(e.authMode), uid: typeof e.triggerUid, source: e.source.getId(), hasChangeType: 'changeType' in e,
  };
}
function onChangeProbe(e) {
  return { fn: 'change', changeType: e.changeType, hasRange: 'range' in e, user: e.user.getEmail(), authMode: String(e.authMode), uid: typeof e.triggerUid, source: e.source.getId() };
}
function sheet_(name) {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  return ss.getSheetByName(name) || ss.insertSheet(name);
}
/** A Queue-like sheet: a frozen header, a dropdown on all of A, one odd cell's validation, a note, a format, a CF rule and a protection. */
function decorate(name) {
  var sh = sheet_(name);
  sh.getRange('A1:D5').setValues([['status', 'id', 'note', 'share'], ['PENDING', 'e1', '', 0.1], ['SENT', 'e2', 'n2', 0.2], ['READY', 'e3', '', 0.3], ['FAILED', 'e4', '', 0.4]]);
  sh.setFrozenRows(1);
  sh.getRange('A2:A').setDataValidation(SpreadsheetApp.newDataValidation().requireValueInList(['PENDING', 'SENT', 'READY', 'FAILED'], true).setAllowInvalid(false).build());
  sh.getRange('B3').setDataValidation(SpreadsheetApp.newDataValidation().requireCheckbox().build());
  sh.getRange('C3').setNote('about e2');
  sh.getRange('D3').setNumberFormat('0.00%');
  sh.setConditionalFormatRules([SpreadsheetApp.newConditionalFormatRule().whenTextEqualTo('SENT').setBackground('#b7e1cd').setRanges([sh.getRange('A2:A5')]).build()]);
  sh.getRange('B2:B5').protect().setWarningOnly(true);
  return 'ok';
}
/** Where each decoration is now, by the id in column B. */
function layout(name) {
  var sh = sheet_(name);
  var n = sh.getLastRow();
  var range = sh.getRange(1, 1, n, 4);
  var values = range.getValues(), notes = range.getNotes(), formats = range.getNumberFormats(), dv = range.getDataValidations();
  var rows = [];
  for (var i = 1; i < n; i++) {
    rows.push({ row: i + 1, status: values[i][0], id: values[i][1], note: notes[i][2], format: formats[i][3], dvA: dv[i][0] ? String(dv[i][0].getCriteriaType()) : null, dvB: dv[i][1] ? String(dv[i][1].getCriteriaType()) : null });
  }
  return {
    rows: rows, cf: sh.getConditionalFormatRules().map(function (r) { return r.getRanges()[0].getA1Notation(); }),
    protected: sh.getProtections(SpreadsheetApp.ProtectionType.RANGE).map(function (p) { return p.getRange().getA1Notation(); }), frozen: sh.getFrozenRows(),
  };
}
/** The note and number format of row 3 (e2's row) in `column`, and the protected ranges, after columns moved. */
function layoutAt(name, column) {
  var sh = sheet_(name);
  var cell = sh.getRange(3, column);
  return { note: cell.getNote(), format: cell.getNumberFormat(), protected: sh.getProtections(SpreadsheetApp.ProtectionType.RANGE).map(function (p) { return p.getRange().getA1Notation(); }) };
}
/** Reads a cell, then keeps reading it until it changes (a staff edit landing mid-run), bounded. */
function watch(name, a1) {
  var cell = sheet_(name).getRange(a1);
  var first = cell.getValue(), later = first;
  for (var i = 0; i < 4000 && later === first; i++) { Utilities.sleep(2); later = cell.getValue(); }
  return [first, later];
}
function scriptInsertDelete(name) {
  var sh = sheet_(name);
  sh.insertRowsBefore(3, 1);
  sh.deleteRow(2);
  return 'ok';
}
function sortBlock(name, a1, spec) {
  var range = sheet_(name).getRange(a1);
  range.sort(spec);
  return range.getValues();
}
