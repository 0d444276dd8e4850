// Probes for the daily-quota contract tests (emulator/daily-quotas.mjs): URL Fetch calls, mail recipients, trigger runs.
// Nothing listens on 127.0.0.1:9, so a fetch that is let through fails with "Address unavailable", one the quota
// refuses with the quota's error: the two are told apart by their text.
function fetchOnce() {
  try {
    UrlFetchApp.fetch('http://127.0.0.1:9/');
    return 'fetched';
  } catch (e) {
    return String(e);
  }
}
function fetchMany(n) {
  var requests = [];
  for (var i = 0; i < n; i++) requests.push('http://127.0.0.1:9/');
  try {
    UrlFetchApp.fetchAll(requests);
    return 'fetched';
  } catch (e) {
    return String(e);
  }
}
function mailOne(to) {
  try {
    MailApp.sendEmail(to, 'subject', 'body');
    return 'sent';
  } catch (e) {
    return String(e);
  }
}
function remainingMail() {
  return MailApp.getRemainingDailyQuota();
}
function quick() {
  return 'ran';
}
