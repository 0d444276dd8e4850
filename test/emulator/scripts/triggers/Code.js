// Trigger and fault probes: installs triggers, records what handlers receive, and calls Gemini/Sheets/Mail.
function install() {
  var out = {};
  ScriptApp.newTrigger('tick').timeBased().everyMinutes(1).create();
  ScriptApp.newTrigger('tock').timeBased().everyMinutes(5).create();
  ScriptApp.newTrigger('onEditInstallable').forSpreadsheet(SpreadsheetApp.getActiveSpreadsheet()).onEdit().create();
  try { ScriptApp.newTrigger('tick').timeBased().everyMinutes(2); } catch (e) { out.invalid = String(e); }
  out.triggers = ScriptApp.getProjectTriggers().map(function (t) {
    return [t.getHandlerFunction(), t.getEventType() === ScriptApp.EventType.CLOCK ? 'CLOCK' : String(t.getEventType()), String(t.getTriggerSource())];
  });
  return out;
}
function fill() {
  try { for (var i = 0; i < 25; i++) ScriptApp.newTrigger('tick').timeBased().everyMinutes(1).create(); } catch (e) { return [ScriptApp.getProjectTriggers().length, String(e)]; }
  return 'no limit';
}
function removeFirst() {
  var t = ScriptApp.getProjectTriggers()[0];
  ScriptApp.deleteTrigger(t);
  return ScriptApp.getProjectTriggers().length;
}
function tick(e) { return { fn: 'tick', uid: e.triggerUid, minute: typeof e.minute }; }
function tock(e) { return { fn: 'tock', uid: e.triggerUid, minute: typeof e.minute }; }
function onEditInstallable(e) {
  var r = e.range;
  return {
    a1: r.getA1Notation(), sheet: r.getSheet().getName(), value: e.value, oldValue: e.oldValue, hasOld: 'oldValue' in e, user: e.user.getEmail(),
    source: e.source.getId(), cell: r.getValue(), authMode: e.authMode, uid: typeof e.triggerUid,
  };
}
function gemini() {
  try {
    var r = UrlFetchApp.fetch('http://127.0.0.1:9/v1beta/models/m:generateContent', { method: 'post', muteHttpExceptions: true, payload: '{}' });
    return { code: r.getResponseCode(), body: JSON.parse(r.getContentText()) };
  } catch (e) { return { error: String(e) }; }
}
function readSheet() {
  try { return SpreadsheetApp.openById('local-spreadsheet').getSheets()[0].getName(); } catch (e) { return String(e); }
}
function sendAndMore() {
  var lock = LockService.getScriptLock();
  lock.tryLock(0);
  MailApp.sendEmail('a@example.com', 'once', 'body');
  MailApp.sendEmail('a@example.com', 'never', 'body');
  return 'not reached';
}
function quota() { return MailApp.getRemainingDailyQuota(); }
function geminiWith(payload) {
  try {
    var r = UrlFetchApp.fetch('http://127.0.0.1:9/v1beta/models/gemini-3.5-flash:generateContent', { method: 'post', muteHttpExceptions: true, payload: payload });
    return { code: r.getResponseCode(), body: JSON.parse(r.getContentText()) };
  } catch (e) { return { error: String(e) }; }
}
