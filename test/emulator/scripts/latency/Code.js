// Latency probes: a fixed mix of calls (properties, cache, lock, sheet writes then a read, a flush, a mail).
function mix() {
  var p = PropertiesService.getScriptProperties();
  p.setProperty('a', '1');
  p.getProperty('a');
  CacheService.getScriptCache().put('k', 'v');
  var lock = LockService.getScriptLock();
  lock.tryLock(1000);
  var sh = SpreadsheetApp.getActiveSpreadsheet().getSheets()[0];
  sh.getRange(1, 1, 10, 10).setValues(new Array(10).fill(0).map(function () { return new Array(10).fill('x'); }));
  sh.getRange(1, 1, 10, 10).getValues();
  sh.getRange(1, 1).setValue('y');
  SpreadsheetApp.flush();
  lock.releaseLock();
  MailApp.sendEmail('a@example.com', 'hello', 'body');
  return 'done';
}
function nothing() { return 1; }
