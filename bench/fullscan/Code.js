// Reference bundle for `npm run bench`: the naive full-scan intake (read the whole Queue, look for the event_id, appendRow).
/* eslint-disable no-unused-vars */
function doPost(e) {
  var props = PropertiesService.getScriptProperties().getProperties();
  var out = function (o) { return ContentService.createTextOutput(JSON.stringify(o)).setMimeType(ContentService.MimeType.JSON); };
  if (!e || !e.parameter || e.parameter.token !== props.WEBHOOK_TOKEN) return out({ ok: false, error: 'unauthorized' });
  var body;
  try { body = JSON.parse(e.postData.contents); } catch (err) { return out({ ok: false, error: 'malformed_json' }); }
  var lock = LockService.getScriptLock();
  if (!lock.tryLock(20000)) return out({ ok: false, error: 'busy' });
  try {
    var sheet = SpreadsheetApp.openById(props.SPREADSHEET_ID).getSheetByName('Queue');
    var values = sheet.getDataRange().getValues();
    var header = values[0];
    var col = header.indexOf('event_id');
    for (var i = 1; i < values.length; i++) {
      if (values[i][col] === body.event_id) return out({ ok: true, duplicate: true, event_id: body.event_id });
    }
    var row = header.map(function (name) {
      if (name === 'status') return 'PENDING';
      if (name === 'event_id') return body.event_id;
      if (name === 'received_at') return new Date();
      if (name === 'form_id') return body.form_response ? body.form_response.form_id : '';
      if (name === 'response_token') return body.form_response ? body.form_response.token : '';
      if (name === 'payload') return JSON.stringify(body);
      if (name === 'attempts') return 0;
      return '';
    });
    sheet.appendRow(row);
    return out({ ok: true, queued: true, event_id: body.event_id });
  } finally {
    lock.releaseLock();
  }
}
