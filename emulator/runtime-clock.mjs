// The runtime's time: real time plus a forward-only offset every execution shares, and the minute ticks clock triggers fire on.
import { setInterval, clearInterval } from 'node:timers';

/** A clock trigger's period in ticks (minutes). */
export function periodMinutes(t) {
  return t.everyMinutes ?? (t.everyHours ?? 1) * 60;
}

/** A time-driven event object (https://developers.google.com/apps-script/guides/triggers/events). */
export function clockEvent(t, ms, tz) {
  const d = new Date(ms);
  return {
    authMode: 'FULL', triggerUid: t.id, timezone: tz, year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, 'day-of-month': d.getUTCDate(),
    'day-of-week': d.getUTCDay() === 0 ? 7 : d.getUTCDay(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(),
  };
}

export class RuntimeClock {
  constructor() {
    // The offset lives in shared memory: each execution's Date reads it at every Date.now / new Date, so a move
    // reaches executions already running.
    this.cell = new Float64Array(new SharedArrayBuffer(8));
    this.ticks = 0; // minutes ticked (each startClock interval is one; skipped minutes count too)
    this.carryMs = 0; // advanced time not yet a whole minute
    this.owed = new Set(); // ids of clock triggers a skipped span made due
    this.interval = null;
  }

  get offsetMs() { return this.cell[0]; }
  get buffer() { return this.cell.buffer; }
  now() { return Date.now() + this.cell[0]; }

  /**
   * Moves time forward by ms. Each clock trigger due at least once in the skipped minutes is owed one run on the next
   * tick: Google does not replay the runs a span missed one by one.
   */
  advance(ms, clockTriggers) {
    this.cell[0] += ms;
    this.carryMs += ms;
    const skippedMinutes = Math.floor(this.carryMs / 60000);
    this.carryMs -= skippedMinutes * 60000;
    for (const t of clockTriggers) {
      const p = periodMinutes(t), firstDue = Math.ceil(this.ticks / p) * p;
      if (firstDue < this.ticks + skippedMinutes) this.owed.add(t.id);
    }
    this.ticks += skippedMinutes;
    return { skippedMinutes, dueOnNextTick: this.dueNext(clockTriggers).map((t) => t.id) };
  }

  /** The clock triggers the next tick fires: those its minute is due for, and those a skipped span owes. */
  dueNext(clockTriggers) {
    return clockTriggers.filter((t) => this.owed.has(t.id) || this.ticks % periodMinutes(t) === 0);
  }

  /** One tick: what it fires (`all`: every clock trigger, the "fire once now" of tests), then the next minute. */
  takeTick(clockTriggers, all) {
    const due = all ? clockTriggers : this.dueNext(clockTriggers);
    this.ticks += 1;
    this.owed.clear();
    return due;
  }

  /** Calls onTick every intervalSeconds (one "minute" each); 0 stops it. */
  start(intervalSeconds, onTick) {
    this.stop();
    if (intervalSeconds > 0) this.interval = setInterval(onTick, intervalSeconds * 1000);
  }
  stop() { if (this.interval) clearInterval(this.interval); this.interval = null; }

  toJSON() { return { offsetMs: this.offsetMs, ticks: this.ticks }; }
  restore({ offsetMs = 0, ticks = 0 } = {}) { this.cell[0] = offsetMs; this.ticks = ticks; }
}
