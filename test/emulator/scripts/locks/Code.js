// Lock probes: a holder parks inside a paused Gemini fetch so tests control exactly when it lets go.
function park() {
  try { UrlFetchApp.fetch('http://127.0.0.1:9/v1beta/models/m:generateContent', { method: 'post', payload: '{}' }); } catch (e) { /* refused after the pause ends */ }
}
function holdLock(which) {
  var lock = which === 'user' ? LockService.getUserLock() : LockService.getScriptLock();
  var ok = lock.tryLock(0);
  if (ok) park();
  return ok;
}
function tryLock(which) {
  var lock = which === 'user' ? LockService.getUserLock() : LockService.getScriptLock();
  return lock.tryLock(0);
}
function holdAndSpin() {
  LockService.getScriptLock().tryLock(0);
  while (true) { /* killed by the execution time limit */ }
}
function waitFor(ms) {
  try {
    LockService.getScriptLock().waitLock(ms);
    return { ok: true, has: LockService.getScriptLock().hasLock() };
  } catch (e) {
    return { ok: false, name: e.name, message: e.message, text: String(e) };
  }
}
function documentScoped() {
  return { lock: LockService.getDocumentLock() === null, cache: CacheService.getDocumentCache() === null, props: PropertiesService.getDocumentProperties() === null };
}
