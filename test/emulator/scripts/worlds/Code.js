// Probes for the world switches' contract tests (emulator/worlds.mjs): copies in Sent and the active spreadsheet.
function send(to, subject) {
  MailApp.sendEmail(to, subject, 'Reference: ' + subject);
  return 'sent';
}
/** How many sent messages each search finds: the Gmail advanced service and GmailApp. */
function found(q) {
  var listed = Gmail.Users.Messages.list('me', { q: q }).messages || [];
  return { list: listed.length, search: GmailApp.search(q).length };
}
function getById(id) {
  try {
    Gmail.Users.Messages.get('me', id, { format: 'minimal' });
    return 'found';
  } catch (e) {
    return String(e);
  }
}
function activeId() {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  return ss === null ? null : ss.getId();
}
function doGet() {
  return ContentService.createTextOutput(String(activeId()));
}
