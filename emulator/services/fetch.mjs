// Host handlers for UrlFetchApp: real Node fetch, Apps Script's error texts, Gemini faults applied before the wire.
import { setTimeout, clearTimeout } from 'node:timers';
import { GasError } from '../errors.mjs';
import { URLFETCH_QUOTA_EXCEEDED, spend, usedIn } from '../daily-quotas.mjs';

const TRUNCATE_CHARS = 200; // length of the "Truncated server response" excerpt: undocumented, chosen here

const blobBytes = (b) => Buffer.from(b.h.bytes.map((n) => n & 255));

function bodyOf(params, headers) {
  const p = params.payload;
  if (p === undefined || p === null) return undefined;
  const setType = (t) => { if (!headers['content-type']) headers['content-type'] = t; };
  if (typeof p === 'string') { setType('application/x-www-form-urlencoded'); return p; }
  if (Array.isArray(p)) { setType('application/octet-stream'); return Buffer.from(p.map((n) => n & 255)); }
  if (p.__ref === 'Blob') { setType(p.h.contentType || 'application/octet-stream'); return blobBytes(p); }
  // an object payload is sent as an HTML form [GAS-FETCH]
  setType('application/x-www-form-urlencoded');
  return new URLSearchParams(Object.entries(p).map(([k, v]) => [k, String(v)])).toString();
}

function headerMaps(res) {
  const headers = {}, allHeaders = {};
  res.headers.forEach((v, k) => { headers[k] = v; allHeaders[k] = v; });
  const cookies = res.headers.getSetCookie?.() ?? [];
  if (cookies.length) { headers['set-cookie'] = cookies[cookies.length - 1]; allHeaders['set-cookie'] = cookies; }
  return { headers, allHeaders };
}

/**
 * Counts `n` calls against the effective user's daily "URL Fetch calls" quota (20,000 consumer / 100,000 Workspace,
 * reset 24 h after the first call: daily-quotas.mjs), or throws Apps Script's error when fewer than `n` are left.
 */
function takeFetchQuota(x, n) {
  const host = x.host, user = x.st.userEmail, now = host.now();
  if (usedIn(host.daily.urlFetch, user, now) + n > host.limits.urlFetchCalls) throw new GasError(URLFETCH_QUOTA_EXCEEDED);
  spend(host.daily.urlFetch, user, now, n);
}

/** One UrlFetchApp request; resolves with a plain HTTPResponse description or throws Apps Script's exception. */
export async function fetchOne(x, url, params = {}, { counted = false } = {}) {
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) throw new GasError(`Invalid argument: ${url}`);
  if (!counted) takeFetchQuota(x, 1);
  x.exec.fetches += 1;
  const ac = new AbortController();
  x.st.aborts.add(ac);
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; ac.abort(); }, x.host.opts.fetchTimeoutMs);
  try {
    let code, headers = {}, allHeaders = {}, buf;
    const canned = url.includes(':generateContent') ? await x.host.faults.gemini(url, x.exec, ac.signal, typeof params.payload === 'string' ? params.payload : '') : null;
    if (canned) {
      code = canned.code; buf = Buffer.from(canned.body, 'utf8');
      headers = allHeaders = { 'content-type': 'application/json; charset=UTF-8' };
    } else {
      const reqHeaders = {};
      for (const [k, v] of Object.entries(params.headers || {})) reqHeaders[k.toLowerCase()] = String(v);
      if (params.contentType) reqHeaders['content-type'] = String(params.contentType);
      const method = String(params.method || 'get').toUpperCase();
      const body = method === 'GET' || method === 'HEAD' ? undefined : bodyOf(params, reqHeaders);
      const res = await fetch(url, { method, headers: reqHeaders, body, signal: ac.signal, redirect: params.followRedirects === false ? 'manual' : 'follow' });
      buf = Buffer.from(await res.arrayBuffer());
      code = res.status;
      ({ headers, allHeaders } = headerMaps(res));
    }
    if (x.st.dead) throw new GasError('Execution ended');
    if (code >= 400 && !params.muteHttpExceptions) {
      const text = buf.toString('utf8');
      const excerpt = text.length > TRUNCATE_CHARS ? text.slice(0, TRUNCATE_CHARS) + '...' : text;
      // real messages name only the scheme and host, e.g. "Request failed for https://api.line.me returned code 400"
      throw new GasError(`Request failed for ${new URL(url).origin} returned code ${code}. Truncated server response: ${excerpt} (use muteHttpExceptions option to examine full response)`);
    }
    return { code, headers, allHeaders, b64: buf.toString('base64') };
  } catch (e) {
    if (e instanceof GasError) throw e;
    if (timedOut) throw new GasError(`Timeout: ${url}`);
    const cause = e?.cause?.code || e?.code || '';
    if (cause === 'ENOTFOUND' || cause === 'EAI_AGAIN') throw new GasError(`DNS error: ${url}`);
    throw new GasError(`Address unavailable: ${url}`);
  } finally {
    clearTimeout(timer);
    x.st.aborts.delete(ac);
  }
}

const response = (h) => ({ __ref: 'HTTPResponse', h });

export const fetchHandlers = {
  UrlFetchApp: {
    fetch: async (x, h, [url, params]) => response(await fetchOne(x, url, params || {})),
    /** Runs every request at once and answers in request order; the first failure (by index) is thrown [GAS-FETCH]. */
    fetchAll: async (x, h, [requests]) => {
      if (!Array.isArray(requests)) throw new GasError('Invalid argument: requests');
      // Every request is one call of the daily quota; a batch the quota cannot cover is refused whole, before any goes.
      takeFetchQuota(x, requests.length);
      const settled = await Promise.allSettled(requests.map((r) => (typeof r === 'string' ? fetchOne(x, r, {}, { counted: true }) : fetchOne(x, r.url, r, { counted: true }))));
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      return settled.map((s) => response(s.value));
    },
  },
};
