// Probe script for the warm-thread contract: globals of one execution, a run that never ends.
var counted = 0;
function countGlobal() {
  counted += 1;
  globalThis.leaked = (globalThis.leaked || 0) + 1;
  return { counted: counted, leaked: globalThis.leaked };
}
function spin() {
  for (;;) {}
}
