// Probe bundle for the Gmail advanced service contract tests: sends as the effective user, then lists and gets Sent mail.
function send(to, subject, body) {
  MailApp.sendEmail(to, subject, body);
  return 'sent';
}
function has() {
  return typeof Gmail !== 'undefined';
}
function list(q, max, pageToken) {
  try {
    var opts = { q: q };
    if (max) opts.maxResults = max;
    if (pageToken) opts.pageToken = pageToken;
    return { ok: Gmail.Users.Messages.list('me', opts) };
  } catch (e) {
    return { error: String(e) };
  }
}
function get(id, format, headers) {
  try {
    return { ok: Gmail.Users.Messages.get('me', id, { format: format, metadataHeaders: headers }) };
  } catch (e) {
    return { error: String(e) };
  }
}
function body(id) {
  var m = Gmail.Users.Messages.get('me', id, { format: 'full' });
  return Utilities.newBlob(Utilities.base64DecodeWebSafe(m.payload.body.data)).getDataAsString();
}
