// In-realm facades for Lock/Cache/Properties, UrlFetchApp, MailApp/GmailApp, Session and ScriptApp; stringified into the vm.
export function realmServices(rt) {
  const G = globalThis;
  const info = rt.info;
  const N = rt.natives;
  const webapp = info.kind === 'webapp';
  const slice = function (a) { return Array.prototype.slice.call(a); };

  // Getting a lock/cache/store object is local; only its methods reach the host. Document variants are
  // null in a web app (docs/platform.md#web-apps).
  rt.defineClass('Lock', { remote: ['tryLock', 'waitLock', 'hasLock', 'releaseLock'] });
  G.LockService = rt.service('LockService', {
    getScriptLock: function () { return rt.make('Lock', { k: 'script' }); },
    getUserLock: function () { return rt.make('Lock', { k: 'user' }); },
    getDocumentLock: function () { return webapp ? null : rt.make('Lock', { k: 'document' }); },
  });
  rt.defineClass('Cache', { remote: ['get', 'getAll', 'put', 'putAll', 'remove', 'removeAll'] });
  G.CacheService = rt.service('CacheService', {
    getScriptCache: function () { return rt.make('Cache', { s: 'script' }); },
    getUserCache: function () { return rt.make('Cache', { s: 'user' }); },
    getDocumentCache: function () { return webapp ? null : rt.make('Cache', { s: 'document' }); },
  });
  rt.defineClass('Properties', {
    remote: ['getProperty', 'getProperties', 'getKeys'],
    chain: ['setProperty', 'setProperties', 'deleteProperty', 'deleteAllProperties'],
  });
  G.PropertiesService = rt.service('PropertiesService', {
    getScriptProperties: function () { return rt.make('Properties', { s: 'script' }); },
    getUserProperties: function () { return rt.make('Properties', { s: 'user' }); },
    getDocumentProperties: function () { return webapp ? null : rt.make('Properties', { s: 'document' }); },
  });

  rt.defineClass('HTTPResponse', {
    local: {
      getResponseCode: function () { return this.__h.code; },
      getContentText: function (charset) { return N.decodeBase64(this.__h.b64, charset); },
      getContent: function () { return rt.toRealm(N.base64ToBytes(this.__h.b64)); },
      getHeaders: function () { return rt.toRealm(this.__h.headers); },
      getAllHeaders: function () { return rt.toRealm(this.__h.allHeaders); },
      getBlob: function () { return rt.make('Blob', { bytes: rt.toRealm(N.base64ToBytes(this.__h.b64)), contentType: (this.__h.headers['content-type'] || '').split(';')[0] || null, name: null }); },
      getAs: function (ct) { const b = this.getBlob(); b.__h.contentType = ct; return b; },
    },
  });
  G.UrlFetchApp = rt.service('UrlFetchApp', {
    fetch: function (url, params) { return rt.call('UrlFetchApp', 'fetch', null, [url, params || {}]); },
    fetchAll: function (requests) { return rt.call('UrlFetchApp', 'fetchAll', null, [requests]); },
  });

  /** MailApp.sendEmail's forms: (message), (recipient, subject, body[, options]), (to, replyTo, subject, body) [GAS-MAIL]. */
  function message(args) {
    if (args.length === 1 && args[0] && typeof args[0] === 'object') return Object.assign({}, args[0]);
    if (args.length === 4 && typeof args[3] === 'string') return { to: args[0], replyTo: args[1], subject: args[2], body: args[3] };
    if (args.length < 3) throw rt.err('Exception', 'The parameters (' + args.map(function (a) { return typeof a; }).join(',') + ") don't match the method signature for MailApp.sendEmail.");
    return Object.assign({}, args[3] || {}, { to: args[0], subject: args[1], body: args[2] });
  }
  G.MailApp = rt.service('MailApp', {
    sendEmail: function () { rt.call('MailApp', 'sendEmail', null, [message(slice(arguments))]); },
    getRemainingDailyQuota: function () { return rt.call('MailApp', 'getRemainingDailyQuota', null, []); },
  });
  rt.defineClass('GmailMessage', {
    local: {
      getId: function () { return this.__h.id; }, getSubject: function () { return this.__h.subject; }, getTo: function () { return this.__h.to; },
      getCc: function () { return this.__h.cc; }, getBcc: function () { return this.__h.bcc; }, getFrom: function () { return this.__h.from; },
      getReplyTo: function () { return this.__h.replyTo; }, getPlainBody: function () { return this.__h.plainBody; }, getBody: function () { return this.__h.htmlBody; },
      getDate: function () { return rt.toRealm(this.__h.date); }, isInTrash: function () { return false; },
    },
  });
  rt.defineClass('GmailThread', {
    local: {
      getId: function () { return this.__h.id; },
      getMessages: function () { return this.__h.messages.map(function (m) { return rt.make('GmailMessage', m); }); },
      getMessageCount: function () { return this.__h.messages.length; },
      getFirstMessageSubject: function () { return this.__h.messages[0].subject; },
      getLastMessageDate: function () { return rt.toRealm(this.__h.messages[this.__h.messages.length - 1].date); },
    },
  });
  const gmail = rt.service('GmailApp', {
    sendEmail: function (recipient, subject, body, options) {
      rt.call('GmailApp', 'sendEmail', null, [Object.assign({}, options || {}, { to: recipient, subject: subject, body: body })]);
      return gmail;
    },
    search: function (query, start, max) { return rt.call('GmailApp', 'search', null, slice(arguments)); },
    getAliases: function () { return []; },
  });
  G.GmailApp = gmail;

  // The Gmail advanced service, under the manifest's userSymbol (usually "Gmail"), only when the manifest enables it.
  const gmailApi = (info.advancedServices || []).filter(function (s) { return s.serviceId === 'gmail'; })[0];
  if (gmailApi) {
    const messages = rt.service('GmailUsersMessages', {
      list: function (userId, optionalArgs) { return rt.call('GmailUsersMessages', 'list', null, [userId, optionalArgs || {}]); },
      get: function (userId, id, optionalArgs) { return rt.call('GmailUsersMessages', 'get', null, [userId, id, optionalArgs || {}]); },
    });
    G[gmailApi.userSymbol] = { Users: { Messages: messages } };
  }

  rt.defineClass('User', {
    local: { getEmail: function () { return this.__h.email; }, toString: function () { return this.__h.email; } },
  });
  G.Session = rt.service('Session', {
    getActiveUser: function () { return rt.make('User', { email: info.activeUser }); },
    getEffectiveUser: function () { return rt.make('User', { email: info.effectiveUser }); },
    getScriptTimeZone: function () { return info.timeZone; },
    getActiveUserLocale: function () { return 'en'; },
    getTemporaryActiveUserKey: function () { return N.digestHex(info.activeUser || 'anonymous'); },
  });

  const EventType = rt.enumOf(['CLOCK', 'ON_OPEN', 'ON_EDIT', 'ON_FORM_SUBMIT', 'ON_CHANGE', 'ON_EVENT_UPDATED']);
  const TriggerSource = rt.enumOf(['SPREADSHEETS', 'CLOCK', 'FORMS', 'DOCUMENTS', 'CALENDAR']);
  rt.defineClass('Trigger', {
    local: {
      getUniqueId: function () { return this.__h.id; },
      getHandlerFunction: function () { return this.__h.handler; },
      getEventType: function () { return this.__h.type; },
      getTriggerSource: function () { return this.__h.source; },
      getTriggerSourceId: function () { return this.__h.sourceId || null; },
    },
  });
  const create = function () { return rt.call('ScriptApp', 'createTrigger', null, [this.__h]); };
  const MINUTES = [1, 5, 10, 15, 30];
  const HOURS = [1, 2, 4, 6, 8, 12];
  rt.defineClass('ClockTriggerBuilder', {
    local: {
      everyMinutes: function (n) {
        if (MINUTES.indexOf(n) < 0) throw rt.err('Exception', 'The value you passed to everyMinutes was invalid. It must be one of 1, 5, 10, 15 or 30.');
        this.__h.everyMinutes = n; return this;
      },
      everyHours: function (n) {
        if (HOURS.indexOf(n) < 0) throw rt.err('Exception', 'The value you passed to everyHours was invalid. It must be one of 1, 2, 4, 6, 8 or 12.');
        this.__h.everyHours = n; return this;
      },
      create: create,
    },
  });
  rt.defineClass('SpreadsheetTriggerBuilder', {
    local: {
      onEdit: function () { this.__h.type = 'ON_EDIT'; return this; },
      onOpen: function () { this.__h.type = 'ON_OPEN'; return this; },
      onChange: function () { this.__h.type = 'ON_CHANGE'; return this; },
      onFormSubmit: function () { this.__h.type = 'ON_FORM_SUBMIT'; return this; },
      create: create,
    },
  });
  rt.defineClass('TriggerBuilder', {
    local: {
      timeBased: function () { return rt.make('ClockTriggerBuilder', { handler: this.__h.handler, type: 'CLOCK', source: 'CLOCK' }); },
      forSpreadsheet: function (ss) {
        const id = ss && ss.__cls === 'Spreadsheet' ? ss.getId() : String(ss);
        return rt.make('SpreadsheetTriggerBuilder', { handler: this.__h.handler, source: 'SPREADSHEETS', sourceId: id });
      },
    },
  });
  rt.defineClass('Service', {
    local: { getUrl: function () { return info.webAppUrl; }, isEnabled: function () { return true; } },
  });
  G.ScriptApp = rt.service('ScriptApp', {
    newTrigger: function (fn) { return rt.make('TriggerBuilder', { handler: String(fn) }); },
    getProjectTriggers: function () { return rt.call('ScriptApp', 'getProjectTriggers', null, []); },
    getUserTriggers: function (doc) { return rt.call('ScriptApp', 'getUserTriggers', null, []); },
    deleteTrigger: function (t) { rt.call('ScriptApp', 'deleteTrigger', null, [t]); },
    getService: function () { return rt.make('Service', {}); },
    getScriptId: function () { return info.scriptId; },
    EventType: EventType,
    TriggerSource: TriggerSource,
    AuthMode: rt.enumOf(['NONE', 'CUSTOM_FUNCTION', 'LIMITED', 'FULL']),
    WeekDay: rt.enumOf(['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY']),
  });
}
