// In-realm ContentService, HtmlService, Utilities (with Blob), Logger and console; all local, no host round trip.
export function realmOutput(rt) {
  const G = globalThis;
  const N = rt.natives;
  const info = rt.info;

  const MimeType = rt.enumOf(['ATOM', 'CSV', 'ICAL', 'JAVASCRIPT', 'JSON', 'RSS', 'TEXT', 'VCARD', 'XML']);
  rt.mimeTypes = {
    ATOM: 'application/atom+xml', CSV: 'text/csv', ICAL: 'text/calendar', JAVASCRIPT: 'application/javascript', JSON: 'application/json',
    RSS: 'application/rss+xml', TEXT: 'text/plain', VCARD: 'text/vcard', XML: 'application/xml',
  };
  // TextOutput has no status code or header setters: Apps Script cannot set them [GAS-CONTENT].
  rt.defineClass('TextOutput', {
    local: {
      getContent: function () { return this.__h.content; },
      setContent: function (c) { this.__h.content = String(c); return this; },
      append: function (c) { this.__h.content += String(c); return this; },
      clear: function () { this.__h.content = ''; return this; },
      setMimeType: function (m) { if (!rt.mimeTypes[String(m)]) throw rt.err('Exception', 'Invalid argument: mimeType'); this.__h.mimeType = String(m); return this; },
      getMimeType: function () { return this.__h.mimeType; },
      downloadAsFile: function (name) { this.__h.fileName = String(name); return this; },
      getFileName: function () { return this.__h.fileName; },
    },
  });
  G.ContentService = rt.service('ContentService', {
    createTextOutput: function (content) { return rt.make('TextOutput', { content: content === undefined ? '' : String(content), mimeType: 'TEXT', fileName: null }); },
    MimeType: MimeType,
  });

  const set = function (key) { return function (v) { this.__h[key] = v; return this; }; };
  rt.defineClass('HtmlOutput', {
    local: {
      getContent: function () { return this.__h.content; },
      setContent: function (c) { this.__h.content = String(c); return this; },
      append: function (c) { this.__h.content += String(c); return this; },
      appendUntrusted: function (c) { this.__h.content += String(c).replace(/[&<>"']/g, function (ch) { return '&#' + ch.charCodeAt(0) + ';'; }); return this; },
      setTitle: set('title'), getTitle: function () { return this.__h.title; },
      setWidth: set('width'), getWidth: function () { return this.__h.width; },
      setHeight: set('height'), getHeight: function () { return this.__h.height; },
      setSandboxMode: set('sandboxMode'), setXFrameOptionsMode: set('xFrameOptionsMode'), setFaviconUrl: set('faviconUrl'),
      addMetaTag: function (n, c) { (this.__h.meta = this.__h.meta || []).push([n, c]); return this; },
    },
  });
  const escapeHtml = function (s) { return String(s).replace(/[&<>"']/g, function (ch) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[ch]; }); };
  /** Scriptlets: <?= escaped ?>, <?!= raw ?>, <? code ?>; template variables are the template object's own properties. */
  rt.defineClass('HtmlTemplate', {
    local: {
      getRawContent: function () { return this.__h.source; },
      evaluate: function () {
        let code = 'var __o = "";\n';
        const re = /<\?(!?=)?([\s\S]*?)\?>/g;
        let last = 0, m;
        while ((m = re.exec(this.__h.source))) {
          code += '__o += ' + JSON.stringify(this.__h.source.slice(last, m.index)) + ';\n';
          if (m[1] === '=') code += '__o += __esc(' + m[2] + ');\n';
          else if (m[1] === '!=') code += '__o += (' + m[2] + ');\n';
          else code += m[2] + '\n';
          last = re.lastIndex;
        }
        code += '__o += ' + JSON.stringify(this.__h.source.slice(last)) + ';\nreturn __o;';
        const vars = {};
        for (const k of Object.keys(this)) vars[k] = this[k];
        const fn = new Function('__vars', '__esc', 'with (__vars) { ' + code + ' }');
        return G.HtmlService.createHtmlOutput(fn(vars, escapeHtml));
      },
    },
  });
  const fileText = function (name) { const t = N.readBundleFile(String(name)); if (t === null) throw rt.err('Exception', 'No HTML file named ' + name + ' was found.'); return t; };
  G.HtmlService = rt.service('HtmlService', {
    createHtmlOutput: function (html) { return rt.make('HtmlOutput', { content: html === undefined ? '' : String(html && html.__cls === 'Blob' ? html.getDataAsString() : html), title: '' }); },
    createHtmlOutputFromFile: function (name) { return G.HtmlService.createHtmlOutput(fileText(name)); },
    createTemplate: function (html) { return rt.make('HtmlTemplate', { source: String(html) }); },
    createTemplateFromFile: function (name) { return rt.make('HtmlTemplate', { source: fileText(name) }); },
    SandboxMode: rt.enumOf(['EMULATED', 'IFRAME', 'NATIVE']),
    XFrameOptionsMode: rt.enumOf(['ALLOWALL', 'DEFAULT']),
  });

  // Apps Script byte arrays hold signed values -128..127 (Java byte[]); N.* helpers keep that.
  rt.defineClass('Blob', {
    local: {
      getBytes: function () { return this.__h.bytes.slice(); },
      setBytes: function (b) { this.__h.bytes = b.slice(); return this; },
      getDataAsString: function (charset) { return N.bytesToString(this.__h.bytes, charset); },
      setDataFromString: function (s, charset) { this.__h.bytes = rt.toRealm(N.stringToBytes(String(s), charset)); return this; },
      getContentType: function () { return this.__h.contentType; },
      setContentType: function (t) { this.__h.contentType = t; return this; },
      getName: function () { return this.__h.name; },
      setName: function (n) { this.__h.name = n; return this; },
      copyBlob: function () { return rt.make('Blob', { bytes: this.__h.bytes.slice(), contentType: this.__h.contentType, name: this.__h.name }); },
      getBlob: function () { return this; },
      isGoogleType: function () { return false; },
      getAs: function (ct) {
        if (ct !== this.__h.contentType) throw rt.err('Error', 'not emulated: Blob.getAs(' + ct + ')');
        return this.copyBlob();
      },
    },
  });
  const bytesOf = function (v, charset) { return typeof v === 'string' ? rt.toRealm(N.stringToBytes(v, charset)) : rt.bytesIn(v); };
  G.Utilities = rt.service('Utilities', {
    newBlob: function (data, contentType, name) {
      return rt.make('Blob', { bytes: data === undefined ? [] : bytesOf(data), contentType: contentType === undefined ? null : contentType, name: name === undefined ? null : name });
    },
    base64Encode: function (data, charset) { return N.base64Encode(bytesOf(data, charset), false); },
    base64EncodeWebSafe: function (data, charset) { return N.base64Encode(bytesOf(data, charset), true); },
    base64Decode: function (s) { return rt.toRealm(N.base64Decode(String(s), false)); },
    base64DecodeWebSafe: function (s) { return rt.toRealm(N.base64Decode(String(s), true)); },
    computeDigest: function (alg, value, charset) { return rt.toRealm(N.digest(String(alg), bytesOf(value, charset))); },
    computeHmacSha256Signature: function (value, key, charset) { return rt.toRealm(N.hmac('HMAC_SHA_256', bytesOf(value, charset), bytesOf(key, charset))); },
    computeHmacSignature: function (alg, value, key, charset) { return rt.toRealm(N.hmac(String(alg), bytesOf(value, charset), bytesOf(key, charset))); },
    gzip: function (blob, name) {
      const h = blob.__h;
      return rt.make('Blob', { bytes: rt.toRealm(N.gzip(h.bytes)), contentType: 'application/x-gzip', name: name || (h.name ? h.name + '.gz' : null) });
    },
    ungzip: function (blob) {
      const h = blob.__h;
      return rt.make('Blob', { bytes: rt.toRealm(N.gunzip(h.bytes)), contentType: null, name: h.name ? String(h.name).replace(/\.gz$/, '') : null });
    },
    getUuid: function () { return N.uuid(); },
    sleep: function (ms) { N.sleep(Number(ms) || 0); },
    formatDate: function (date, tz, pattern) {
      if (!date || typeof date.getTime !== 'function') throw rt.err('Exception', 'Invalid argument: date');
      return N.formatDate(date.getTime(), String(tz), String(pattern));
    },
    formatString: function (template) { return N.format.apply(null, Array.prototype.slice.call(arguments)); },
    parseCsv: function (csv, delimiter) { return rt.toRealm(N.parseCsv(String(csv), delimiter || ',')); },
    DigestAlgorithm: rt.enumOf(['MD2', 'MD5', 'SHA_1', 'SHA_256', 'SHA_384', 'SHA_512']),
    MacAlgorithm: rt.enumOf(['HMAC_MD5', 'HMAC_SHA_1', 'HMAC_SHA_256', 'HMAC_SHA_384', 'HMAC_SHA_512']),
    Charset: rt.enumOf(['US_ASCII', 'UTF_8']),
  });

  const logLines = [];
  const emit = function (level, args) {
    const text = N.format.apply(null, args);
    logLines.push(text);
    N.log(level, text);
  };
  const logger = rt.service('Logger', {
    log: function () { emit('info', Array.prototype.slice.call(arguments)); return logger; },
    getLog: function () { return logLines.join('\n'); },
    clear: function () { logLines.length = 0; },
  });
  G.Logger = logger;
  G.console = {
    log: function () { emit('info', Array.prototype.slice.call(arguments)); },
    info: function () { emit('info', Array.prototype.slice.call(arguments)); },
    warn: function () { emit('warn', Array.prototype.slice.call(arguments)); },
    error: function () { emit('error', Array.prototype.slice.call(arguments)); },
    time: function () {}, timeEnd: function () {},
  };
  void info;
}
