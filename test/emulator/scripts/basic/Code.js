// Probe script for the emulator contract tests: each function exercises one Apps Script behaviour.
function hello(name) {
  Logger.log('hello %s', name);
  console.log('console', { a: 1 });
  return { greeting: 'hi ' + name, isArray: Array.isArray([1]), now: new Date(0) };
}
function doPost(e) {
  return ContentService.createTextOutput(JSON.stringify({ ok: true, got: e.postData.contents })).setMimeType(ContentService.MimeType.JSON);
}
function sheetRoundTrip() {
  var ss = SpreadsheetApp.openById('local-spreadsheet');
  var sh = ss.insertSheet('T');
  sh.appendRow(['a', 'b']);
  sh.getRange(2, 1, 1, 2).setValues([[new Date(86400000), '42']]);
  var v = sh.getRange('A2:B2').getValues();
  return { isDate: v[0][0] instanceof Date, isArray: v instanceof Array, n: v[0][1], type: typeof v[0][1], a1: sh.getRange('A2:B2').getA1Notation(), last: sh.getLastRow() };
}
