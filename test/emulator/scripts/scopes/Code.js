// Scope probes: each call either works or fails with Google's permission text, depending on the manifest's oauthScopes.
function attempt(fn) { try { return { ok: fn() }; } catch (e) { return { error: String(e) }; } }
function probe() {
  return {
    sheet: attempt(function () { return SpreadsheetApp.getActiveSpreadsheet().getSheets().length; }),
    openById: attempt(function () { return SpreadsheetApp.openById('local-spreadsheet').getName(); }),
    fetch: attempt(function () { return UrlFetchApp.fetch('http://127.0.0.1:9/'); }),
    mail: attempt(function () { MailApp.sendEmail('a@example.com', 's', 'b'); return 'sent'; }),
    user: attempt(function () { return Session.getActiveUser().getEmail(); }),
    timeZone: attempt(function () { return Session.getScriptTimeZone(); }),
    trigger: attempt(function () { return ScriptApp.newTrigger('probe').timeBased().everyMinutes(1).create().getHandlerFunction(); }),
    sidebar: attempt(function () { SpreadsheetApp.getUi().showSidebar(HtmlService.createHtmlOutput('<p>hi</p>')); return 'shown'; }),
    lock: attempt(function () { return LockService.getScriptLock().tryLock(0); }),
  };
}
