// Cache port over the script cache (the document cache is null in a web app, see docs/platform.md#web-apps), every key hashed.
import type { Cache } from '../core/domain/ports';

/**
 * CacheService refuses keys over 250 characters ("Argument too large: key",
 * https://developers.google.com/apps-script/reference/cache/cache), and keys carry values from outside
 * (an event_id). A SHA-256 of the key is 44 characters in base64 whatever the key, and two keys never meet.
 */
function hashedKey(key: string): string {
  const digest = Utilities.computeDigest(Utilities.DigestAlgorithm.SHA_256, key, Utilities.Charset.UTF_8);
  return `fq:${Utilities.base64Encode(digest)}`;
}

export function createScriptCache(): Cache {
  const cache = CacheService.getScriptCache();
  return {
    get: (key) => cache.get(hashedKey(key)),
    put: (key, value, ttlSeconds) => cache.put(hashedKey(key), value, ttlSeconds),
  };
}
