// Reports the script-visible time, for the advanceClock contract test.
function now() { var d = new Date(); return [Date.now(), d instanceof Date, d.getTime(), new Date(0).getTime()]; }
