// Cache port over the script cache (the document cache is null in a web app, see docs/platform.md#web-apps).
import type { Cache } from '../core/ports';

export function createScriptCache(): Cache {
  const cache = CacheService.getScriptCache();
  return {
    get: (key) => cache.get(key),
    put: (key, value, ttlSeconds) => cache.put(key, value, ttlSeconds),
  };
}
