// Host handlers for PropertiesService and CacheService stores, with Apps Script's size limits and messages.
import { GasError } from '../errors.mjs';

// Properties: 9 KB per value, 500 KB per store (https://developers.google.com/apps-script/guides/services/quotas).
// Past the store limit Google throws STORE_QUOTA_MESSAGE (quoted in https://justin.poehnelt.com/posts/apps-script-key-value-stores).
export const PROPERTY_VALUE_MAX_BYTES = 9 * 1024;
export const PROPERTY_STORE_MAX_BYTES = 500 * 1024;
// Cache: "keys can be up to 250 characters and store up to 100KB of data", cap 1,000 items
// (https://developers.google.com/apps-script/reference/cache/cache); a longer key throws "Argument too large: key",
// a bigger value "Argument too large: value"; 100 KB is strict at 102,400 bytes (justin.poehnelt.com cache-limits post).
export const CACHE_VALUE_MAX_BYTES = 102400;
export const CACHE_KEY_MAX_CHARS = 250;
export const CACHE_MAX_ITEMS = 1000;
const STORE_QUOTA_MESSAGE = 'You have exceeded the property storage quota. Please remove some properties and try again.';

const bytes = (s) => Buffer.byteLength(String(s), 'utf8');

/** A property store; the host API (get/set/getAll/delete) is what tests and the CLI use directly. */
export class PropertyStore {
  constructor(init = {}) { this.map = new Map(Object.entries(init).map(([k, v]) => [k, String(v)])); }
  get(k) { return this.map.has(String(k)) ? this.map.get(String(k)) : null; }
  set(k, v) { this.map.set(String(k), String(v)); return this; }
  getAll() { return Object.fromEntries(this.map); }
  delete(k) { this.map.delete(String(k)); return this; }
  size() { let n = 0; for (const [k, v] of this.map) n += bytes(k) + bytes(v); return n; }

  /** Applies writes all-or-nothing, as a failed setProperties leaves the store as it was. */
  write(entries, deleteAllOthers = false) {
    for (const [k, v] of entries) {
      if (k === '' || k === 'null' || k === 'undefined') throw new GasError('Invalid argument: key');
      if (bytes(v) > PROPERTY_VALUE_MAX_BYTES) throw new GasError('Argument too large: value');
    }
    const before = new Map(this.map);
    if (deleteAllOthers) this.map.clear();
    for (const [k, v] of entries) this.map.set(k, v);
    if (this.size() > PROPERTY_STORE_MAX_BYTES) { this.map = before; throw new GasError(STORE_QUOTA_MESSAGE); }
  }
}

function propStore(x, h) {
  const host = x.host;
  if (h.s === 'script') return host.properties;
  if (h.s === 'document') return host.documentProperties;
  const u = x.st.userEmail;
  if (!host.userProperties.has(u)) host.userProperties.set(u, new PropertyStore());
  return host.userProperties.get(u);
}

const str = (v) => String(v);

export const storeHandlers = {
  Properties: {
    getProperty: (x, h, [k]) => propStore(x, h).get(k),
    getProperties: (x, h) => propStore(x, h).getAll(),
    getKeys: (x, h) => [...propStore(x, h).map.keys()],
    setProperty: (x, h, [k, v]) => propStore(x, h).write([[str(k), str(v)]]),
    setProperties: (x, h, [props, deleteAllOthers]) => propStore(x, h).write(Object.entries(props || {}).map(([k, v]) => [k, str(v)]), !!deleteAllOthers),
    deleteProperty: (x, h, [k]) => { propStore(x, h).delete(k); },
    deleteAllProperties: (x, h) => { propStore(x, h).map.clear(); },
  },
  Cache: {
    get: (x, h, [k]) => cacheOf(x, h).get(checkKey(k), x.host.now()),
    getAll: (x, h, [keys]) => {
      const c = cacheOf(x, h), out = {};
      for (const k of keys) { const v = c.get(checkKey(k), x.host.now()); if (v !== null) out[k] = v; }
      return out;
    },
    put: (x, h, [k, v, ttl]) => cacheOf(x, h).put(checkKey(k), checkValue(v), ttl, x.host.now()),
    putAll: (x, h, [obj, ttl]) => {
      const entries = Object.entries(obj || {}).map(([k, v]) => [checkKey(k), checkValue(v)]);
      for (const [k, v] of entries) cacheOf(x, h).put(k, v, ttl, x.host.now());
    },
    remove: (x, h, [k]) => { cacheOf(x, h).map.delete(checkKey(k)); },
    removeAll: (x, h, [keys]) => { for (const k of keys) cacheOf(x, h).map.delete(checkKey(k)); },
  },
};

function checkKey(k) {
  if (k === null || k === undefined || k === '') throw new GasError('Invalid argument: key');
  const s = String(k);
  if (s.length > CACHE_KEY_MAX_CHARS) throw new GasError('Argument too large: key');
  return s;
}

function checkValue(v) {
  const s = String(v); // the real cache coerces: objects become "[object Object]", null "null"
  if (bytes(s) > CACHE_VALUE_MAX_BYTES) throw new GasError('Argument too large: value');
  return s;
}

/** TTL default 600 s, capped at 21,600 s; past 1,000 items the oldest ~10% go at once (FIFO) [GAS-CACHE]. */
export class CacheStore {
  constructor() { this.map = new Map(); }
  get(k, now) {
    const e = this.map.get(k);
    if (!e) return null;
    if (e.exp <= now) { this.map.delete(k); return null; }
    return e.v;
  }
  put(k, v, ttl, now) {
    let secs = Number(ttl);
    if (!(secs > 0)) secs = 600;
    secs = Math.min(secs, 21600);
    this.map.delete(k); // re-insert so Map order is creation order
    this.map.set(k, { v, exp: now + secs * 1000 });
    if (this.map.size > CACHE_MAX_ITEMS) {
      const drop = Math.ceil(CACHE_MAX_ITEMS / 10);
      let i = 0;
      for (const key of this.map.keys()) { if (i++ >= drop) break; this.map.delete(key); }
    }
  }
}

function cacheOf(x, h) {
  const key = h.s === 'user' ? `user:${x.st.userEmail}` : h.s;
  if (!x.host.caches.has(key)) x.host.caches.set(key, new CacheStore());
  return x.host.caches.get(key);
}
