// In-realm core, evaluated inside each execution's vm context: bridge calls, value rebuilding, table-driven facades.
// This function is stringified and run in the vm, so it must not close over anything outside itself.
export function realmCore(rt) {
  const N = rt.natives;
  const toString = Object.prototype.toString;
  // Probed by runtimes and test tools; answering "not emulated" for these would break them.
  const PASSTHROUGH = new Set(['then', 'toJSON', 'constructor', 'asymmetricMatch', 'nodeType', 'inspect', '$$typeof', 'prototype', 'length', 'name']);

  /** Exceptions made in this realm, named like Apps Script's: String(e) reads "Exception: <message>". */
  rt.err = function err(name, message) {
    const e = new Error(message);
    e.name = name || 'Exception';
    e.stack = e.name + ': ' + message + String(e.stack || '').replace(/^[^\n]*/, '');
    return e;
  };

  rt.protos = {};
  rt.traps = {};

  /**
   * A method the manifest's oauthScopes do not cover fails before it runs, with Google's text; the host computes
   * which (emulator/scopes.mjs) and hands them over as info.denied: 'Class.method' or 'Class.*' → required scopes.
   */
  const denied = (rt.info && rt.info.denied) || {};
  function guarded(cls, m, fn) {
    const required = Object.prototype.hasOwnProperty.call(denied, cls + '.' + m) ? denied[cls + '.' + m] : denied[cls + '.*'];
    if (!required) return fn;
    return function refused() { throw rt.err('Exception', 'You do not have permission to call ' + cls + '.' + m + '. Required permissions: ' + required); };
  }

  function trap(cls) {
    if (!rt.traps[cls]) {
      rt.traps[cls] = {
        get(target, prop, receiver) {
          if (typeof prop === 'symbol' || prop in target || PASSTHROUGH.has(prop) || prop.startsWith('__') || prop.startsWith('@@')) return Reflect.get(target, prop, receiver);
          return function notEmulated() { throw rt.err('Error', 'not emulated: ' + cls + '.' + prop); };
        },
      };
    }
    return rt.traps[cls];
  }

  /**
   * Declares a facade class from a table: remote methods are one host round trip each, chain methods
   * return the facade itself (Apps Script builders and setters do), local methods run here.
   */
  rt.defineClass = function defineClass(cls, spec) {
    const proto = {};
    const chain = new Set(spec.chain || []);
    for (const m of (spec.remote || []).concat(spec.chain || [])) {
      proto[m] = function remote() {
        const r = rt.call(cls, m, this.__h, Array.prototype.slice.call(arguments));
        return chain.has(m) ? this : r;
      };
    }
    const local = spec.local || {};
    for (const m of Object.keys(local)) proto[m] = local[m];
    for (const m of Object.keys(proto)) proto[m] = guarded(cls, m, proto[m]);
    proto.toString = function () { return spec.label || cls; };
    rt.protos[cls] = proto;
  };

  rt.make = function make(cls, h) {
    const proto = rt.protos[cls];
    if (!proto) throw rt.err('Error', 'not emulated: ' + cls);
    const o = Object.create(proto);
    Object.defineProperty(o, '__h', { value: h, writable: true });
    Object.defineProperty(o, '__cls', { value: cls });
    return new Proxy(o, trap(cls));
  };

  /** A service global (SpreadsheetApp, …): unknown members throw "not emulated: Service.member" when called. */
  rt.service = function service(name, members) {
    for (const m of Object.keys(members)) if (typeof members[m] === 'function') members[m] = guarded(name, m, members[m]);
    members.toString = function () { return name; };
    return new Proxy(members, trap(name));
  };

  /** Copies host data into this realm so Array/Date instanceof hold in script code; {__ref} becomes a facade. */
  rt.toRealm = function toRealm(v) {
    if (v === null || typeof v !== 'object') return v;
    if (v.__cls) return v;
    if (toString.call(v) === '[object Date]') return new Date(v.getTime());
    if (Array.isArray(v) || ArrayBuffer.isView(v)) {
      const a = new Array(v.length);
      for (let i = 0; i < v.length; i++) a[i] = toRealm(v[i]);
      return a;
    }
    // facade handles stay in wire form (nested {__ref} kept as data); local methods rebuild what they hand out
    if (typeof v.__ref === 'string') return rt.make(v.__ref, v.h);
    const o = {};
    for (const k of Object.keys(v)) o[k] = toRealm(v[k]);
    return o;
  };

  /** Prepares script values for postMessage: facades travel as {__ref, h}; functions are refused like Apps Script does. */
  rt.toWire = function toWire(v, depth) {
    depth = depth || 0;
    if (depth > 64) throw rt.err('Exception', 'Invalid argument: value is nested too deeply');
    if (typeof v === 'function') throw rt.err('Exception', 'Invalid argument: function');
    if (v === null || typeof v !== 'object') return v;
    if (v.__cls) return { __ref: v.__cls, h: v.__h };
    if (toString.call(v) === '[object Date]') return new Date(v.getTime());
    if (Array.isArray(v)) return v.map(function (x) { return toWire(x, depth + 1); });
    const o = {};
    for (const k of Object.keys(v)) o[k] = toWire(v[k], depth + 1);
    return o;
  };

  rt.call = function call(cls, method, h, args) {
    const reply = N.hostCall({ t: 'call', c: cls, m: method, h: h, a: rt.toWire(args || []) });
    if (reply.e) throw rt.err(reply.e.name, reply.e.message);
    return rt.toRealm(reply.v);
  };

  rt.enumOf = function enumOf(names) {
    const o = {};
    for (const n of names) o[n] = n;
    return Object.freeze(o);
  };

  /** The value an execution hands back to the host: output facades become plain descriptions. */
  rt.toHost = function toHost(v, depth) {
    depth = depth || 0;
    if (v === null || typeof v !== 'object' || depth > 64) return typeof v === 'function' ? undefined : v;
    if (v.__cls) return rt.describe(v);
    if (toString.call(v) === '[object Date]') return new Date(v.getTime());
    if (Array.isArray(v)) return v.map(function (x) { return toHost(x, depth + 1); });
    const o = {};
    for (const k of Object.keys(v)) o[k] = toHost(v[k], depth + 1);
    return o;
  };

  rt.describe = function describe(f) {
    const h = f.__h;
    if (f.__cls === 'TextOutput') return { kind: 'TextOutput', content: h.content, mimeType: rt.mimeTypes[h.mimeType] || 'text/plain' };
    if (f.__cls === 'HtmlOutput') return { kind: 'HtmlOutput', content: h.content, title: h.title };
    return { kind: f.__cls, h: JSON.parse(JSON.stringify(h)) };
  };

  rt.bytesIn = function bytesIn(data) {
    if (typeof data === 'string') return rt.toRealm(N.utf8Bytes(data));
    if (data && data.__cls === 'Blob') return data.__h.bytes.slice();
    if (Array.isArray(data)) return data.slice();
    throw rt.err('Exception', 'Invalid argument: data');
  };
}
