// The manifest the build writes: appsscript.json as committed, plus the Gmail read access RECONCILE_SENT_MAIL needs when
// the build is asked for it (`node scripts/build.mjs --reconcile-sent-mail`; docs/oauth-scopes.md), and the script's
// time zone when one is given (FORMQUEUE_TIME_ZONE or --time-zone; docs/configuration.md#the-scripts-time-zone).
export const GMAIL_READONLY = 'https://www.googleapis.com/auth/gmail.readonly';
// https://developers.google.com/apps-script/guides/services/advanced and …/manifest/dependencies
export const GMAIL_ADVANCED_SERVICE = { userSymbol: 'Gmail', serviceId: 'gmail', version: 'v1' };

/**
 * An IANA time zone id ("Europe/Berlin", "America/New_York", "Etc/UTC"), as Apps Script's manifest `timeZone` takes it
 * (https://developers.google.com/apps-script/manifest#Manifest.FIELDS.timeZone): the id itself, or an Error saying
 * what is wrong. Checked against this Node's time zone database (Intl), which Apps Script's ids come from as well.
 * @param {string} value @returns {string}
 */
export function checkedTimeZone(value) {
  const id = value.trim();
  try {
    if (id === '' || /^[+-]?\d/.test(id)) throw new RangeError('not an id');
    new Intl.DateTimeFormat('en', { timeZone: id });
    return id;
  } catch {
    throw new Error(`"${value}" is not a time zone id: use one like Europe/Berlin, America/New_York or Etc/UTC (the "TZ identifier" column of https://en.wikipedia.org/wiki/List_of_tz_database_time_zones)`);
  }
}

/** `base` is appsscript.json's parsed content; the result is a new object (base is left as it is). */
export function manifestFor(base, { reconcileSentMail = false, timeZone = '' } = {}) {
  const zoned = timeZone === '' ? base : { ...base, timeZone: checkedTimeZone(timeZone) };
  return withSentMailAccess(zoned, reconcileSentMail);
}

function withSentMailAccess(base, reconcileSentMail) {
  if (!reconcileSentMail) return base;
  const services = (base.dependencies?.enabledAdvancedServices ?? []).filter((s) => s.serviceId !== 'gmail');
  const scopes = (base.oauthScopes ?? []).filter((s) => s !== GMAIL_READONLY);
  return {
    ...base,
    oauthScopes: [...scopes, GMAIL_READONLY],
    dependencies: { ...(base.dependencies ?? {}), enabledAdvancedServices: [...services, GMAIL_ADVANCED_SERVICE] },
  };
}
