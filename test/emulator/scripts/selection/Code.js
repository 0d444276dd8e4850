// Selection probes: what a menu action sees of the person's selection.
function selection() {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  var list = ss.getActiveRangeList();
  var active = ss.getActiveRange();
  return {
    list: list ? list.getRanges().map(function (r) { return r.getA1Notation(); }) : null,
    fromApp: SpreadsheetApp.getActiveRangeList() ? SpreadsheetApp.getActiveRangeList().getRanges().length : null,
    active: active ? active.getA1Notation() : null,
    sheet: ss.getActiveSheet().getName(),
  };
}
function activateThenList() {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  ss.getSheetByName('Queue').getRange('D7').activate();
  return ss.getActiveRangeList().getRanges().map(function (r) { return r.getA1Notation(); });
}
