// The manifest the build writes: appsscript.json as committed, plus the Gmail read access RECONCILE_SENT_MAIL needs when
// the build is asked for it (`node scripts/build.mjs --reconcile-sent-mail`; docs/oauth-scopes.md).
export const GMAIL_READONLY = 'https://www.googleapis.com/auth/gmail.readonly';
// https://developers.google.com/apps-script/guides/services/advanced and …/manifest/dependencies
export const GMAIL_ADVANCED_SERVICE = { userSymbol: 'Gmail', serviceId: 'gmail', version: 'v1' };

/** `base` is appsscript.json's parsed content; the result is a new object (base is left as it is). */
export function manifestFor(base, { reconcileSentMail = false } = {}) {
  if (!reconcileSentMail) return base;
  const services = (base.dependencies?.enabledAdvancedServices ?? []).filter((s) => s.serviceId !== 'gmail');
  const scopes = (base.oauthScopes ?? []).filter((s) => s !== GMAIL_READONLY);
  return {
    ...base,
    oauthScopes: [...scopes, GMAIL_READONLY],
    dependencies: { ...(base.dependencies ?? {}), enabledAdvancedServices: [...services, GMAIL_ADVANCED_SERVICE] },
  };
}
