// Service probes: properties, cache, UrlFetchApp, mail, content/html output, Utilities, Session.
function catching_(f) { try { return { ok: f() }; } catch (e) { return { error: String(e) }; } }
function props() {
  var p = PropertiesService.getScriptProperties();
  var r = {};
  r.nineKb = catching_(function () { p.setProperty('big', new Array(9 * 1024 + 1).join('x')); return 'stored'; });
  r.tooBig = catching_(function () { p.setProperty('big2', new Array(9 * 1024 + 2).join('x')); return 'stored'; });
  r.fill = catching_(function () { for (var i = 0; i < 60; i++) p.setProperty('fill' + i, new Array(9000).join('y')); return 'filled'; });
  r.kept = p.getProperty('fill0') !== null;
  r.chained = p.setProperty('a', 1).getProperty('a');
  p.setProperties({ x: 'X', y: 'Y' }, true);
  r.after = p.getKeys().sort();
  r.all = p.getProperties();
  return r;
}
function cache(step) {
  var c = CacheService.getScriptCache();
  if (step === 'put') {
    c.put('k', 'v', 30);
    c.putAll({ a: '1', b: '2' });
    return {
      get: c.get('k'), all: c.getAll(['a', 'b', 'missing']), coerced: (c.put('o', { a: 1 }), c.get('o')),
      longKey: catching_(function () { c.put(new Array(252).join('k'), 'v'); }), bigValue: catching_(function () { c.put('big', new Array(102402).join('v')); }),
      okValue: catching_(function () { c.put('okbig', new Array(102401).join('v')); return 'stored'; }), nullKey: catching_(function () { c.get(''); }),
    };
  }
  return { k: c.get('k'), a: c.get('a') };
}
function fetchIt(url, mute) {
  try {
    var r = UrlFetchApp.fetch(url, { muteHttpExceptions: !!mute, method: 'post', contentType: 'application/json', payload: JSON.stringify({ hi: 1 }), headers: { 'X-Test': 'yes' } });
    return { code: r.getResponseCode(), text: r.getContentText(), type: r.getHeaders()['content-type'] };
  } catch (e) { return { error: String(e) }; }
}
function fetchMany(urls) {
  return UrlFetchApp.fetchAll(urls.map(function (u) { return { url: u, muteHttpExceptions: true }; })).map(function (r) { return r.getContentText(); });
}
function mail(kind) {
  var r = {};
  r.before = MailApp.getRemainingDailyQuota();
  MailApp.sendEmail({ to: 'a@example.com', cc: 'b@example.com', subject: 'Obj FQ-1', body: 'plain', htmlBody: '<b>html</b>', name: 'formqueue', replyTo: 'staff@example.com' });
  MailApp.sendEmail('c@example.com', 'Positional FQ-2', 'body two', { bcc: 'd@example.com' });
  GmailApp.sendEmail('e@example.com', 'Gmail FQ-3', 'body three');
  r.after = MailApp.getRemainingDailyQuota();
  r.invalid = catching_(function () { MailApp.sendEmail('not-an-address', 's', 'b'); });
  var threads = GmailApp.search('in:sent subject:"FQ-2"');
  var m = threads[0].getMessages()[0];
  r.found = [threads.length, m.getSubject(), m.getTo(), m.getPlainBody(), m.getDate() instanceof Date];
  return r;
}
function sendOne(to) {
  try { MailApp.sendEmail(to, 'hello', 'body'); return 'sent'; } catch (e) { return String(e); }
}
function outputs() {
  var html = HtmlService.createTemplate('<p><?= name ?></p><?!= raw ?>');
  html.name = '<x>';
  html.raw = '<i>r</i>';
  var out = html.evaluate().setTitle('T').setWidth(300);
  SpreadsheetApp.getUi().showModalDialog(out, 'Dialog');
  return { html: out.getContent(), title: out.getTitle() };
}
function utilities() {
  var digest = Utilities.computeDigest(Utilities.DigestAlgorithm.SHA_256, 'abc');
  var hmac = Utilities.computeHmacSha256Signature('body', 'secret');
  var blob = Utilities.newBlob('héllo', 'text/plain', 'h.txt');
  var round = Utilities.ungzip(Utilities.gzip(blob)).getDataAsString();
  Utilities.sleep(5);
  return {
    b64: Utilities.base64Encode('héllo'), web: Utilities.base64EncodeWebSafe([-5, -1, 62]), dec: Utilities.base64Decode('/w=='),
    digestLen: digest.length, signed: digest.every(function (b) { return b >= -128 && b <= 127; }) && digest.some(function (b) { return b < 0; }), digest0: digest[0], hmacLen: hmac.length,
    round: round, bytes: blob.getBytes().length, type: blob.getContentType(), uuid: /^[0-9a-f-]{36}$/.test(Utilities.getUuid()),
    date: Utilities.formatDate(new Date(Date.UTC(2026, 1, 7, 5, 4, 3)), 'Europe/Berlin', "yyyy-MM-dd'T'HH:mm:ssXXX EEE MMM"),
    user: Session.getActiveUser().getEmail(), effective: Session.getEffectiveUser().getEmail(), tz: Session.getScriptTimeZone(),
    url: ScriptApp.getService().getUrl(),
  };
}
function spin() { while (true) {} }
function throwsOwn() { throw new TypeError('mine'); }
function count() {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  var sh = ss.getSheetByName('Sheet1');
  sh.getRange('A1:B3').getValues();
  sh.getRange('A1:C1').setValues([[1, 2, 3]]);
  LockService.getScriptLock();
  Utilities.getUuid();
  return PropertiesService.getScriptProperties().getProperty('K');
}
