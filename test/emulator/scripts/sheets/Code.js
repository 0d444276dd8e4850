// Sheet probes: each function writes through the real facades and reports what the script sees.
function sheet_(name) {
  var ss = SpreadsheetApp.openById('local-spreadsheet');
  return ss.getSheetByName(name) || ss.insertSheet(name);
}
function writeCells(name, a1, values) {
  sheet_(name).getRange(a1).setValues(values);
  return sheet_(name).getRange(a1).getValues();
}
function writePlainText(name, values) {
  var sh = sheet_(name);
  sh.getRange('A:A').setNumberFormat('@');
  sh.appendRow(values);
  var r = sh.getLastRow();
  return { values: sh.getRange(r, 1, 1, values.length).getValues()[0], formulas: sh.getRange(r, 1, 1, values.length).getFormulas()[0], formats: sh.getRange(r, 1, 1, values.length).getNumberFormats()[0] };
}
function tooLong(name) {
  var big = new Array(50002).join('x');
  try { sheet_(name).getRange('A1:B1').setValues([['kept?', big]]); return 'accepted'; } catch (e) { return { text: String(e), a1: sheet_(name).getRange('A1').getValue() }; }
}
function dates(name) {
  var sh = sheet_(name);
  var d = new Date(Date.UTC(2026, 1, 17, 10, 11, 22));
  sh.getRange('A1').setValue(d);
  var back = sh.getRange('A1').getValue();
  var empty = sh.getRange('B1').getValue();
  return { isDate: back instanceof Date, same: back.getTime() === d.getTime(), empty: empty, emptyType: typeof empty, display: sh.getRange('A1').getDisplayValue() };
}
function finder(name, text, entire, matchCase) {
  var tf = sheet_(name).createTextFinder(text);
  if (entire) tf.matchEntireCell(true);
  if (matchCase) tf.matchCase(true);
  var all = tf.findAll().map(function (r) { return r.getA1Notation(); });
  var tf2 = sheet_(name).createTextFinder(text).matchEntireCell(!!entire).matchCase(!!matchCase);
  var seq = [];
  for (var r = tf2.findNext(); r; r = tf2.findNext()) seq.push(r.getA1Notation());
  return { all: all, seq: seq };
}
function decorate(name) {
  var sh = sheet_(name);
  var rule = SpreadsheetApp.newDataValidation().requireValueInList(['PENDING', 'SENT'], true).setAllowInvalid(false).build();
  sh.getRange('A2:A').setDataValidation(rule);
  var cf = SpreadsheetApp.newConditionalFormatRule().whenTextEqualTo('SENT').setBackground('#b7e1cd').setRanges([sh.getRange('A2:A')]).build();
  sh.setConditionalFormatRules([cf]);
  var p = sh.getRange('B:B').protect().setWarningOnly(true).setDescription('ids');
  sh.setFrozenRows(1);
  sh.getRange('C5').setNote('hello');
  var back = sh.getRange('A7').getDataValidation();
  var rules = sh.getConditionalFormatRules();
  var prots = sh.getProtections(SpreadsheetApp.ProtectionType.RANGE);
  return {
    criteria: back.getCriteriaType(), values: back.getCriteriaValues(), allowInvalid: back.getAllowInvalid(), outside: sh.getRange('B7').getDataValidation(),
    cf: rules.length, cfRange: rules[0].getRanges()[0].getA1Notation(), cfValues: rules[0].getBooleanCondition().getCriteriaValues(), cfBg: rules[0].getBooleanCondition().getBackground(),
    prot: prots.length, warn: prots[0].isWarningOnly(), desc: prots[0].getDescription(), protA1: prots[0].getRange().getA1Notation(),
    frozen: sh.getFrozenRows(), note: sh.getRange('C5').getNote(), sheetId: typeof sh.getSheetId(),
  };
}
function shapes(name) {
  var sh = sheet_(name);
  var errors = [];
  try { sh.getRange('A1:B2').setValues([[1, 2]]); } catch (e) { errors.push(e.message); }
  try { sh.getRange(0, 1); } catch (e) { errors.push(e.message); }
  try { SpreadsheetApp.openById('someone-elses'); } catch (e) { errors.push(e.message); }
  try { SpreadsheetApp.getUi(); } catch (e) { errors.push(e.message); }
  return errors;
}
function layout(name) {
  var sh = sheet_(name);
  sh.appendRow(['h1', 'h2']);
  sh.appendRow([1, 'a']);
  sh.appendRow([2, 'b']);
  sh.appendRow([3, 'c']);
  sh.deleteRows(2, 2);
  var data = sh.getDataRange().getValues();
  var col = sh.getRange('B:B');
  return { data: data, lastRow: sh.getLastRow(), lastCol: sh.getLastColumn(), maxRows: sh.getMaxRows(), colA1: col.getA1Notation(), colRows: col.getNumRows(), open: sh.getRange('A2:C').getA1Notation() };
}
function trimColumns(name) {
  var sh = sheet_(name);
  sh.appendRow(['a', 'b', 'c', 'd']);
  sh.deleteColumns(2, 1);
  var before = sh.getMaxColumns();
  var errors = [];
  try { sh.deleteColumns(before, 2); } catch (e) { errors.push(e.message); }
  try { sh.deleteColumns(1, before); } catch (e) { errors.push(e.message); }
  return { row: sh.getRange(1, 1, 1, 3).getValues()[0], maxCols: before, lastCol: sh.getLastColumn(), errors: errors };
}
function widenColumns(name) {
  var sh = sheet_(name);
  sh.appendRow(['a', 'b']);
  var max = sh.getMaxColumns();
  var errors = [];
  try { sh.getRange(1, max + 1, 1, 1).setValues([['past']]); } catch (e) { errors.push(e.message); }
  sh.insertColumnsAfter(max, 2);
  sh.getRange(1, max + 2, 1, 1).setValues([['new']]);
  try { sh.insertColumnsAfter(max + 3, 1); } catch (e) { errors.push(e.message); }
  try { sh.insertColumnsAfter(1, 1); } catch (e) { errors.push(e.message); }
  return { before: max, after: sh.getMaxColumns(), row: sh.getRange(1, 1, 1, 2).getValues()[0], added: sh.getRange(1, max + 2).getValue(), errors: errors };
}
function notEmulated() {
  try { SpreadsheetApp.openById('local-spreadsheet').getSheets()[0].getRange('A1').copyTo(SpreadsheetApp.openById('local-spreadsheet').getSheets()[0].getRange('B1')); return 'no error'; } catch (e) { return e.message; }
}
function menu() {
  SpreadsheetApp.getUi().createMenu('formqueue').addItem('Retry row', 'retryRow').addSeparator().addItem('Health', 'health').addToUi();
  var r = SpreadsheetApp.getActiveRange();
  return r ? r.getSheet().getName() + '!' + r.getA1Notation() : null;
}
// Writes each input as its own cell by the given method and reports what Sheets would hold and show for it.
function typed(name, inputs, how) {
  var sh = sheet_(name);
  if (how === 'plain') sh.getRange('A:A').setNumberFormat('@');
  inputs.forEach(function (input, i) {
    if (how === 'appendRow') sh.appendRow([input]);
    else if (how === 'setValue') sh.getRange(i + 1, 1).setValue(input);
    else sh.getRange(i + 1, 1, 1, 1).setValues([[input]]);
  });
  var range = sh.getRange(1, 1, inputs.length, 1);
  var values = range.getValues(), formulas = range.getFormulas(), shown = range.getDisplayValues(), formats = range.getNumberFormats();
  return inputs.map(function (input, i) {
    var v = values[i][0];
    return { input: input, type: v instanceof Date ? 'date' : typeof v, value: v instanceof Date ? v.toISOString() : v, formula: formulas[i][0], display: shown[i][0], format: formats[i][0] };
  });
}
