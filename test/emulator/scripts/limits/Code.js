// Limit probes: cache, properties, cell size, the 10,000,000-cell grid, and an execution that parks for the concurrency limit.
function catching_(f) { try { return { ok: f() }; } catch (e) { return { error: String(e) }; } }
function repeat_(ch, n) { return new Array(n + 1).join(ch); }
function cacheLimits() {
  var c = CacheService.getScriptCache();
  return {
    key250: catching_(function () { c.put(repeat_('k', 250), 'v'); return c.get(repeat_('k', 250)); }),
    key251: catching_(function () { c.put(repeat_('k', 251), 'v'); }),
    getKey251: catching_(function () { c.get(repeat_('k', 251)); }),
    value100k: catching_(function () { c.put('v', repeat_('v', 102400)); return 'stored'; }),
    valueOver: catching_(function () { c.put('v2', repeat_('v', 102401)); }),
  };
}
function propertyLimits() {
  var p = PropertiesService.getScriptProperties();
  var r = {};
  r.value9k = catching_(function () { p.setProperty('nine', repeat_('x', 9 * 1024 - 4)); return 'stored'; });
  r.valueOver = catching_(function () { p.setProperty('over', repeat_('x', 9 * 1024 + 1)); });
  r.store = catching_(function () { for (var i = 0; i < 80; i++) p.setProperty('fill' + i, repeat_('y', 9000)); });
  r.kept = p.getKeys().length;
  return r;
}
function cellLimit(n) {
  var sh = SpreadsheetApp.getActiveSpreadsheet().getSheets()[0];
  return catching_(function () { sh.getRange('A1').setValue(repeat_('c', n)); return sh.getRange('A1').getValue().length; });
}
function gridCells() {
  var ss = SpreadsheetApp.getActiveSpreadsheet(), n = 0;
  ss.getSheets().forEach(function (sh) { n += sh.getMaxRows() * sh.getMaxColumns(); });
  return n;
}
/** Adds sheets until Sheets refuses the next one; answers how many were added, the refusal and the grid size. */
function fillWithSheets() {
  var ss = SpreadsheetApp.getActiveSpreadsheet(), added = 0, refusal = null;
  try { for (;;) { ss.insertSheet('S' + added); added++; } } catch (e) { refusal = String(e); }
  var last = ss.getSheetByName('S' + (added - 1));
  return { added: added, refusal: refusal, cells: gridCells(), size: [last.getMaxRows(), last.getMaxColumns()] };
}
function insertRows(sheetName, n) {
  var sh = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(sheetName);
  return catching_(function () { sh.insertRowsAfter(sh.getMaxRows(), n); return sh.getMaxRows(); });
}
function deleteSheet(sheetName) {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  ss.deleteSheet(ss.getSheetByName(sheetName));
  return gridCells();
}
/** Fills a sheet's grid to its last row, then appends one more: appendRow grows the grid by a row. */
function appendPastGrid(sheetName) {
  var sh = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(sheetName);
  sh.getRange(sh.getMaxRows(), 1).setValue('last');
  return catching_(function () { sh.appendRow(['one more']); return sh.getMaxRows(); });
}
/** Parks inside a (paused) Gemini fetch, so the test holds the execution open. */
function park() {
  try { UrlFetchApp.fetch('http://127.0.0.1:9/v1beta/models/m:generateContent', { method: 'post', payload: '{}' }); } catch (e) { /* refused after the pause */ }
  return 'parked';
}
function doPost() { park(); return ContentService.createTextOutput('ran'); }
function quick() { return 'ran'; }
