// The offline Typeform's webhooks: one per form seen, read and created-or-updated by tag, switched off by its sender.
//
// https://www.typeform.com/developers/webhooks/reference/retrieve-webhooks/ (GET /forms/{id}/webhooks: {items:[…]}),
// https://www.typeform.com/developers/webhooks/reference/create-or-update-webhook/ (PUT /forms/{id}/webhooks/{tag}
// {url, enabled, secret?, verify_ssl?}: creates the webhook of that tag or updates it, answers the webhook). A webhook:
// id, form_id, tag, url, enabled, verify_ssl, event_types, created_at, updated_at; Typeform's JS client sends
// enabled = false when it is left out (https://github.com/Typeform/js-api-client, webhooks.update).
// Scopes (https://www.typeform.com/developers/get-started/scopes/): reading webhooks needs webhooks:read, creating or
// updating one webhooks:write. Which status a token lacking a scope gets is not published: the runtime answers 403.

export class TypeformHttpError extends Error {
  /** @param {number} status @param {string} code @param {string} description */
  constructor(status, code, description) { super(description); this.status = status; this.code = code; }
}

/** @param {Set<string>} scopes @param {string} scope */
export function needScope(scopes, scope) {
  if (!scopes.has(scope)) throw new TypeformHttpError(403, 'FORBIDDEN', `the token has no ${scope} scope`);
}

export function isoSeconds(ms) { return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'); }

function webhookFor(formId, at, url) {
  return { id: `wh_${formId}`, form_id: formId, tag: 'formqueue', url, enabled: true, verify_ssl: true,
    event_types: { form_response: true }, created_at: isoSeconds(at), updated_at: isoSeconds(at) };
}

/**
 * The webhook methods of the store, over its forms map (`formOf` makes a form's entry when it is new).
 * @param {Map<string, { webhooks: any[] }>} forms @param {() => number} now @param {(formId: string) => { id: string, webhooks: any[] }} formOf
 */
export function createWebhookRegistry(forms, now, formOf) {
  /** The URL a webhook made for a form gets (the server sets it to its /exec with the webhook token). */
  let defaultUrl = () => 'http://127.0.0.1/exec';
  const hooksOf = (formId) => forms.get(formId)?.webhooks ?? [];
  const registry = {
    /** A form seen for the first time gets its webhook, as staff set it up in Typeform. @param {{ id: string, webhooks: any[] }} entry */
    ensureWebhook(entry) {
      if (entry.webhooks.length === 0) entry.webhooks.push(webhookFor(entry.id, now(), defaultUrl()));
    },
    /** POST /api/typeform/webhooks: {form_id, enabled, url?} sets the form's webhook. */
    setWebhook(input) {
      if (!input || typeof input.form_id !== 'string' || typeof input.enabled !== 'boolean') {
        throw new TypeformHttpError(400, 'BAD_REQUEST', 'POST /api/typeform/webhooks needs {"form_id":"…","enabled":false}');
      }
      const entry = formOf(input.form_id);
      registry.ensureWebhook(entry);
      for (const hook of entry.webhooks) {
        hook.enabled = input.enabled;
        if (typeof input.url === 'string') hook.url = input.url;
        hook.updated_at = isoSeconds(now());
      }
      return entry.webhooks;
    },
    /** @param {() => string} url */
    setDefaultWebhookUrl(url) { defaultUrl = url; },
    /** @param {string} formId */
    webhooksOf: hooksOf,
    /** @param {string} formId @param {string} tag */
    webhookByTag(formId, tag) { return hooksOf(formId).find((hook) => hook.tag === tag) ?? null; },
    /** Typeform's sender switching a webhook off (typeform-sender.mjs) or on. */
    setWebhookEnabled(formId, tag, enabled, at = now()) {
      const hook = registry.webhookByTag(formId, tag);
      if (hook) { hook.enabled = enabled; hook.updated_at = isoSeconds(at); }
      return hook;
    },
    /** Called after a PUT changed a webhook (the sender judges a re-enabled webhook afresh). */
    onWebhookUpdated: /** @type {(formId: string, tag: string) => void} */ (() => {}),
    /**
     * GET or PUT /forms/{id}/webhooks/{tag}; PUT needs `url` (create-or-update-webhook reference).
     * @param {string} method @param {string} formId @param {string} tag @param {Set<string>} scopes @param {string} requestBody
     */
    byTagRequest(method, formId, tag, scopes, requestBody) {
      needScope(scopes, method === 'GET' ? 'webhooks:read' : 'webhooks:write');
      const entry = forms.get(formId);
      if (!entry) throw new TypeformHttpError(404, 'FORM_NOT_FOUND', `Non existing form with uid ${formId}`);
      let hook = registry.webhookByTag(formId, tag);
      if (method === 'GET') {
        if (!hook) throw new TypeformHttpError(404, 'WEBHOOK_NOT_FOUND', `Non existing webhook with tag ${tag}`);
        return { status: 200, body: hook };
      }
      const input = parseWebhookInput(requestBody);
      if (!hook) {
        hook = { ...webhookFor(formId, now(), input.url), id: `wh_${formId}_${tag}`, tag };
        entry.webhooks.push(hook);
      }
      hook.url = input.url;
      hook.enabled = input.enabled === true;
      if (typeof input.verify_ssl === 'boolean') hook.verify_ssl = input.verify_ssl;
      hook.updated_at = isoSeconds(now());
      registry.onWebhookUpdated(formId, tag);
      return { status: 200, body: hook };
    },
  };
  return registry;
}

/** @param {string} requestBody */
function parseWebhookInput(requestBody) {
  let input;
  try { input = JSON.parse(requestBody || '{}'); } catch { throw new TypeformHttpError(400, 'VALIDATION_ERROR', 'the body is not JSON'); }
  if (typeof input?.url !== 'string' || !/^https?:\/\//.test(input.url)) throw new TypeformHttpError(400, 'VALIDATION_ERROR', '"url" is required and must be an http(s) URL');
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean') throw new TypeformHttpError(400, 'VALIDATION_ERROR', '"enabled" must be a boolean');
  return input;
}
