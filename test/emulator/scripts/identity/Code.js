// Identity probes: who an execution runs as, which triggers it sees, whose lock and user properties it gets.
function whoAmI() {
  return { effective: Session.getEffectiveUser().getEmail(), active: Session.getActiveUser().getEmail() };
}
function doPost(e) {
  return ContentService.createTextOutput(JSON.stringify(whoAmI()));
}
function installClock() {
  ScriptApp.newTrigger('clockProbe').timeBased().everyMinutes(1).create();
  return ScriptApp.getProjectTriggers().map(function (t) { return t.getHandlerFunction(); });
}
function installEdit() {
  ScriptApp.newTrigger('editProbe').forSpreadsheet(SpreadsheetApp.getActiveSpreadsheet()).onEdit().create();
  return ScriptApp.getProjectTriggers().length;
}
function myTriggers() {
  return ScriptApp.getProjectTriggers().map(function (t) { return t.getHandlerFunction(); });
}
function deleteAllMine() {
  ScriptApp.getProjectTriggers().forEach(function (t) { ScriptApp.deleteTrigger(t); });
  return ScriptApp.getProjectTriggers().length;
}
function fillTriggers() {
  try { for (var i = 0; i < 25; i++) ScriptApp.newTrigger('clockProbe').timeBased().everyMinutes(1).create(); } catch (e) { return [ScriptApp.getProjectTriggers().length, String(e)]; }
  return 'no limit';
}
function clockProbe(e) {
  var out = whoAmI();
  out.userLock = LockService.getUserLock().tryLock(0);
  out.mine = PropertiesService.getUserProperties().getProperty('mine');
  return out;
}
function editProbe(e) {
  var out = whoAmI();
  out.eventUser = e.user.getEmail();
  return out;
}
function remember(value) {
  PropertiesService.getUserProperties().setProperty('mine', value);
  return PropertiesService.getUserProperties().getProperty('mine');
}
function recall() { return PropertiesService.getUserProperties().getProperty('mine'); }
/** Holds the user lock until a paused fetch is released, so another execution can probe it. */
function holdUserLock() {
  var lock = LockService.getUserLock();
  var got = lock.tryLock(0);
  try { UrlFetchApp.fetch('http://127.0.0.1:9/v1beta/models/m:generateContent', { method: 'post', muteHttpExceptions: true, payload: '{}' }); } catch (e) { /* the paused fetch only holds the run open */ }
  return got;
}
function tryUserLock() { return LockService.getUserLock().tryLock(0); }
function mail() {
  MailApp.sendEmail('someone@example.net', 'who sends', 'body');
  return whoAmI();
}
function quotaLeft() { return MailApp.getRemainingDailyQuota(); }
