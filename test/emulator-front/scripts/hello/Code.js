// A tiny Apps Script bundle for the emulator-front tests: echoes web-app events, keeps a one-row-per-POST Queue, asks Gemini, mails.
function doPost(e) {
  var body = {};
  try { body = JSON.parse(e.postData.contents); } catch (err) { body = {}; }
  if (body.event_id) {
    var sheet = queueSheet_();
    sheet.appendRow(['PENDING', body.event_id, body.email || 'someone@example.com', '', '']);
  }
  return ContentService.createTextOutput(JSON.stringify({ method: 'POST', e: e })).setMimeType(ContentService.MimeType.JSON);
}

function doGet(e) {
  return ContentService.createTextOutput(JSON.stringify({ method: 'GET', e: e })).setMimeType(ContentService.MimeType.JSON);
}

function setup() {
  PropertiesService.getScriptProperties().setProperty('SETUP_RAN', 'yes');
}

function boom() {
  throw new Error('boom from the bundle');
}

function hello(name) {
  Logger.log('hello ' + name);
  return 'hi ' + name;
}

// Generates a reply for each PENDING row through GEMINI_BASE_URL, then mails it.
function processQueue() {
  var props = PropertiesService.getScriptProperties();
  var sheet = queueSheet_();
  var values = sheet.getDataRange().getValues();
  for (var i = 1; i < values.length; i++) {
    if (values[i][0] !== 'PENDING') continue;
    var res = UrlFetchApp.fetch(props.getProperty('GEMINI_BASE_URL') + '/v1beta/models/gemini-test:generateContent', {
      method: 'post', contentType: 'application/json', muteHttpExceptions: true,
      headers: { 'x-goog-api-key': props.getProperty('GEMINI_API_KEY') },
      payload: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: '<answers>\nYour name: ' + values[i][1] + '\n</answers>' }] }] }),
    });
    var text = JSON.parse(res.getContentText()).candidates[0].content.parts[0].text;
    MailApp.sendEmail({ to: values[i][2], subject: 'Reply to ' + values[i][1], body: text, htmlBody: '<pre>' + text + '</pre>' });
    sheet.getRange(i + 1, 1, 1, 5).setValues([['SENT', values[i][1], values[i][2], text, new Date().toISOString()]]);
  }
}

function queueSheet_() {
  var ss = SpreadsheetApp.openById(PropertiesService.getScriptProperties().getProperty('SPREADSHEET_ID'));
  var sheet = ss.getSheetByName('Queue');
  if (!sheet) {
    sheet = ss.insertSheet('Queue');
    sheet.appendRow(['status', 'event_id', 'recipient', 'result', 'sent_at']);
  }
  return sheet;
}
