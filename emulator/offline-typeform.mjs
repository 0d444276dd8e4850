// Offline stand-in for Typeform's Responses, Forms and Webhooks APIs: every submission the runtime saw, in Typeform's shapes.
//
// Typeform stores every submission, whether or not its webhook reached us; so every /exec delivery is recorded here as
// a response, and a delivery Google refused (30 simultaneous executions) can still be found by a Responses API read.
// Shapes: https://www.typeform.com/developers/responses/reference/retrieve-responses/ (a page is
// {total_items, page_count, items}; an item has landing_id, token, response_id, landed_at, submitted_at, metadata,
// hidden, calculated, variables, answers — no event_id, no form_id, no definition, unlike the webhook's form_response),
// https://www.typeform.com/developers/create/reference/retrieve-form/ (GET /forms/{id}: id, title, fields),
// https://www.typeform.com/developers/create/reference/retrieve-forms/ (GET /forms: the account's forms, paged),
// https://www.typeform.com/developers/webhooks/reference/retrieve-webhooks/ (GET /forms/{id}/webhooks: {items:[…enabled…]}),
// Webhooks by tag: typeform-webhooks.mjs. Scopes (https://www.typeform.com/developers/get-started/scopes/): responses
// need responses:read, forms forms:read.

import { TypeformHttpError, createWebhookRegistry, isoSeconds, needScope } from './typeform-webhooks.mjs';

/** The token the local API accepts as `Authorization: Bearer …` (docs/runtime.md), with every scope. */
export const LOCAL_TYPEFORM_TOKEN = 'tfp_local_runtime_token';
export const ALL_SCOPES = Object.freeze(['accounts:read', 'forms:read', 'forms:write', 'responses:read', 'webhooks:read', 'webhooks:write']);
/** page_size may be at most 1000; 25 when absent (retrieve-responses reference). */
const MAX_PAGE_SIZE = 1000;
const DEFAULT_PAGE_SIZE = 25;
/** GET /forms: page_size 10 when absent, at most 200 (retrieve-forms reference). */
const FORMS_DEFAULT_PAGE_SIZE = 10;
const FORMS_MAX_PAGE_SIZE = 200;
/** "2 requests per second per account" (https://www.typeform.com/developers/get-started/#rate-limits). */
const RATE_LIMIT_PER_SECOND = 2;


/**
 * The store the runtime's server and /exec share.
 * @param {{ token?: string, now?: () => number }} [options]
 */
export function createTypeformStore({ token = LOCAL_TYPEFORM_TOKEN, now = () => Date.now() } = {}) {
  const tokens = createTokens(token);
  /** @type {Map<string, { id: string, title: string, fields: any[], responses: any[], webhooks: any[] }>} */
  const forms = new Map();
  /** @type {number[]} host-time stamps of recent API requests, for the rate limit */
  const recent = [];
  let rateLimited = 0;
  const webhooks = createWebhookRegistry(forms, now, (formId) => form(formId));

  /** @param {string} formId */
  function form(formId) {
    let entry = forms.get(formId);
    if (!entry) {
      entry = { id: formId, title: formId, fields: [], responses: [], webhooks: [] };
      forms.set(formId, entry);
    }
    return entry;
  }

  /** Adds a response in the Responses API's item shape; a token already stored is replaced (Typeform keeps one per token). */
  function addResponse(formId, item) {
    const entry = form(formId);
    entry.responses = entry.responses.filter((r) => r.token !== item.token);
    entry.responses.push(item);
    return item;
  }

  return Object.assign(webhooks, {
    forms,
    addToken: tokens.addToken,
    get rateLimited() { return rateLimited; },
    /**
     * Records what a webhook body carried as the response Typeform stored (called for every /exec POST, refused or not).
     * @param {string} body
     */
    recordDelivery(body) {
      let json;
      try { json = JSON.parse(body); } catch { return null; }
      const fr = json?.form_response;
      if (json?.event_type !== 'form_response' || !fr || typeof fr.form_id !== 'string' || typeof fr.token !== 'string') return null;
      const entry = form(fr.form_id);
      if (Array.isArray(fr.definition?.fields) && entry.fields.length === 0) {
        entry.fields = fr.definition.fields;
        entry.title = String(fr.definition.title ?? entry.title);
      }
      webhooks.ensureWebhook(entry);
      return addResponse(fr.form_id, responseItem(fr, now()));
    },
    /** POST /api/typeform/responses: {form_id, token?, submitted_at?, answers, hidden?, fields?} stored, not delivered. */
    addFromApi(input) {
      if (!input || typeof input.form_id !== 'string' || !input.form_id) throw new TypeformHttpError(400, 'BAD_REQUEST', '"form_id" is required');
      const entry = form(input.form_id);
      if (Array.isArray(input.fields)) entry.fields = input.fields;
      const at = now();
      const fr = { token: input.token ?? randomToken(), landed_at: input.landed_at, submitted_at: input.submitted_at ?? isoSeconds(at),
        answers: input.answers ?? [], hidden: input.hidden ?? {}, calculated: input.calculated ?? { score: 0 }, variables: input.variables };
      return addResponse(input.form_id, responseItem(fr, at));
    },
    /**
     * One request to the public API (path after the base URL).
     * @param {string} method @param {URL} url @param {string} rest e.g. "/forms/abc/responses" @param {string|undefined} authorization
     * @returns {{ status: number, body: unknown, headers?: Record<string, string> }}
     */
    handle(method, url, rest, authorization, requestBody = '') {
      try {
        if (method !== 'GET' && method !== 'PUT') throw new TypeformHttpError(405, 'METHOD_NOT_ALLOWED', `${method} is not served by the local Typeform API`);
        const scopes = tokens.scopesOf(authorization);
        if (!takeRateSlot(recent, now())) {
          rateLimited += 1;
          return { status: 429, body: { code: 'RATE_LIMIT_EXCEEDED', description: 'Too many requests' }, headers: { 'Retry-After': '1' } };
        }
        const hookPath = /^\/forms\/([^/]+)\/webhooks\/([^/]+)\/?$/.exec(rest);
        if (hookPath) return webhooks.byTagRequest(method, decodeURIComponent(hookPath[1]), decodeURIComponent(hookPath[2]), scopes, requestBody);
        if (method !== 'GET') throw new TypeformHttpError(405, 'METHOD_NOT_ALLOWED', `${method} ${rest} is not served by the local Typeform API`);
        if (/^\/forms\/?$/.test(rest)) {
          needScope(scopes, 'forms:read');
          return { status: 200, body: formsPage([...forms.values()], url.searchParams) };
        }
        const m = /^\/forms\/([^/]+)(\/responses|\/webhooks)?\/?$/.exec(rest);
        if (!m) throw new TypeformHttpError(404, 'NOT_FOUND', `no such endpoint: ${rest}`);
        needScope(scopes, m[2] === '/webhooks' ? 'webhooks:read' : m[2] === '/responses' ? 'responses:read' : 'forms:read');
        const entry = forms.get(decodeURIComponent(m[1]));
        if (!entry) throw new TypeformHttpError(404, 'FORM_NOT_FOUND', `Non existing form with uid ${decodeURIComponent(m[1])}`);
        if (m[2] === '/webhooks') return { status: 200, body: { items: entry.webhooks } };
        if (m[2] === '/responses') return { status: 200, body: responsesPage(entry.responses, url.searchParams) };
        return { status: 200, body: { id: entry.id, title: entry.title, fields: entry.fields } };
      } catch (err) {
        if (err instanceof TypeformHttpError) return { status: err.status, body: { code: err.code, description: err.message } };
        throw err;
      }
    },
  });
}



/** At most RATE_LIMIT_PER_SECOND requests in any second of host time. @param {number[]} recent @param {number} at */
function takeRateSlot(recent, at) {
  while (recent.length > 0 && recent[0] <= at - 1000) recent.shift();
  if (recent.length >= RATE_LIMIT_PER_SECOND) return false;
  recent.push(at);
  return true;
}

/**
 * Personal access tokens and their scopes: the local token has them all; POST /api/typeform/tokens adds one with fewer.
 * @param {string} token
 */
function createTokens(token) {
  const tokens = new Map([[token, new Set(ALL_SCOPES)]]);
  return {
    /** The scopes of the token a request carries; 401 for none or an unknown one. @param {string|undefined} authorization */
    scopesOf(authorization) {
      const given = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
      const scopes = given ? tokens.get(given[1].trim()) : undefined;
      if (!scopes) throw new TypeformHttpError(401, 'AUTHENTICATION_FAILED', 'Authentication credentials not found on the Request Headers');
      return scopes;
    },
    /** {token, scopes:[…]}: another personal access token, e.g. without webhooks:write. */
    addToken(input) {
      if (!input || typeof input.token !== 'string' || !input.token || !Array.isArray(input.scopes)) {
        throw new TypeformHttpError(400, 'BAD_REQUEST', 'POST /api/typeform/tokens needs {"token":"…","scopes":["webhooks:read",…]}');
      }
      tokens.set(input.token, new Set(input.scopes.map(String)));
      return { token: input.token, scopes: [...tokens.get(input.token)] };
    },
  };
}

/**
 * since/until (inclusive, ISO 8601 UTC to the second or Unix seconds), newest first, `before` a token: items older
 * than that one; page_size 1..1000.
 * @param {any[]} responses @param {URLSearchParams} params
 */
function responsesPage(responses, params) {
  const size = params.has('page_size') ? Number(params.get('page_size')) : DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new TypeformHttpError(400, 'VALIDATION_ERROR', `page_size must be between 1 and ${MAX_PAGE_SIZE}`);
  }
  const since = params.has('since') ? parseTime(params.get('since')) : -Infinity;
  // until is inclusive to the second: a response at 12:00:00.4 is in until=12:00:00
  const until = params.has('until') ? parseTime(params.get('until')) + 999 : Infinity;
  let list = responses
    .filter((r) => { const t = Date.parse(r.submitted_at); return t >= since && t <= until; })
    .sort((a, b) => Date.parse(b.submitted_at) - Date.parse(a.submitted_at) || (a.token < b.token ? 1 : -1));
  const total = list.length;
  const before = params.get('before');
  if (before) {
    const at = list.findIndex((r) => r.token === before);
    list = at < 0 ? [] : list.slice(at + 1);
  }
  return { total_items: total, page_count: Math.max(1, Math.ceil(total / size)), items: list.slice(0, size) };
}

/**
 * GET /forms: the account's forms, `page` (from 1) of `page_size` (default 10, at most 200), as
 * {total_items, page_count, items: [{id, title, …}]} (https://www.typeform.com/developers/create/reference/retrieve-forms/).
 * Needs the token's forms:read scope on Typeform (https://www.typeform.com/developers/get-started/scopes/).
 * @param {{ id: string, title: string }[]} list @param {URLSearchParams} params
 */
function formsPage(list, params) {
  const size = params.has('page_size') ? Number(params.get('page_size')) : FORMS_DEFAULT_PAGE_SIZE;
  const page = params.has('page') ? Number(params.get('page')) : 1;
  if (!Number.isInteger(size) || size < 1 || size > FORMS_MAX_PAGE_SIZE) {
    throw new TypeformHttpError(400, 'VALIDATION_ERROR', `page_size must be between 1 and ${FORMS_MAX_PAGE_SIZE}`);
  }
  if (!Number.isInteger(page) || page < 1) throw new TypeformHttpError(400, 'VALIDATION_ERROR', 'page must be 1 or more');
  const items = list.slice((page - 1) * size, page * size).map((entry) => ({ id: entry.id, title: entry.title, settings: { is_public: true } }));
  return { total_items: list.length, page_count: Math.max(1, Math.ceil(list.length / size)), items };
}

/** @param {string|null} value */
function parseTime(value) {
  const text = String(value ?? '');
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
  if (Number.isNaN(ms)) throw new TypeformHttpError(400, 'VALIDATION_ERROR', `cannot parse date "${text}"`);
  return ms;
}

/** A webhook's form_response → the Responses API item Typeform returns for it. */
function responseItem(fr, at) {
  const submitted = typeof fr.submitted_at === 'string' ? fr.submitted_at : isoSeconds(at);
  return {
    landing_id: fr.token, token: fr.token, response_id: fr.token,
    landed_at: typeof fr.landed_at === 'string' ? fr.landed_at : submitted, submitted_at: submitted,
    metadata: { user_agent: 'formqueue-local', platform: 'other', referer: '', network_id: '', browser: 'default' },
    hidden: fr.hidden ?? {}, calculated: fr.calculated ?? { score: 0 }, ...(Array.isArray(fr.variables) ? { variables: fr.variables } : {}),
    answers: Array.isArray(fr.answers) ? fr.answers : [],
  };
}



function randomToken() {
  const abc = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let i = 0; i < 32; i += 1) out += abc[Math.floor(Math.random() * abc.length)];
  return out;
}
