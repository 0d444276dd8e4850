// Reports the script-visible time, for the advanceClock contract tests; a handler per clock trigger.
function now() { var d = new Date(); return [Date.now(), d instanceof Date, d.getTime(), new Date(0).getTime()]; }
/** Reads the time, parks in a (paused) Gemini fetch while the test moves the clock, then reads it again. */
function acrossAdvance() {
  var before = Date.now();
  try { UrlFetchApp.fetch('http://127.0.0.1:9/v1beta/models/m:generateContent', { method: 'post', payload: '{}' }); } catch (e) { /* refused after the pause */ }
  return [before, Date.now(), new Date().getTime()];
}
function everyMinute(e) { return e.minute; }
function everyFive(e) { return e.minute; }
function hourly(e) { return e.minute; }
