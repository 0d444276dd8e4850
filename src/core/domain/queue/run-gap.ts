// Whether processQueue's runs stopped happening while work waited: told by doGet at once and by one incident after.
//
// A clock trigger fires processQueue every minute, and the tick gate makes a full run at least every 15 minutes
// (SAFETY_SWEEP_MS) and within a minute of a delivery. So a full run long overdue while a delivery waits means Apps
// Script ran no trigger: its daily trigger runtime is used up ("Service using too much computer time for one day",
// https://developers.google.com/apps-script/guides/services/quotas), the trigger was removed or disabled, or Google
// failed. doPost runs as a web app and keeps recording deliveries meanwhile, so nothing is lost; replies wait.
import { DIRTY_PROPERTY, LAST_SWEEP_PROPERTY, hasSpilledDeliveries } from './tick-gate';
import { HOUR_MS, MINUTE_MS } from '../time';

/** Four safety sweeps missed: no run this long while work waits is no passing delay. */
export const RUNS_OVERDUE_AFTER_MS = HOUR_MS;

export interface RunGap {
  /** The last full run (FQ_LAST_SWEEP_AT). */
  lastRunAt: number;
  /** Whole minutes since then. */
  minutes: number;
}

/**
 * The gap since the last full run, when it is longer than RUNS_OVERDUE_AFTER_MS and work waits: a delivery or a
 * staff edit marked the queue (FQ_DIRTY; each full run clears it) or deliveries wait in the spill. Null when there is
 * no gap, nothing waits, or no full run was ever recorded (before the first one nothing says runs stopped).
 */
export function runGap(props: Readonly<Record<string, string>>, now: number): RunGap | null {
  const recorded = props[LAST_SWEEP_PROPERTY];
  const lastRunAt = Number(recorded);
  if (recorded === undefined || recorded === '' || !Number.isFinite(lastRunAt)) return null;
  const waiting = props[DIRTY_PROPERTY] !== undefined || hasSpilledDeliveries(props);
  if (!waiting || now - lastRunAt <= RUNS_OVERDUE_AFTER_MS) return null;
  return { lastRunAt, minutes: Math.floor((now - lastRunAt) / MINUTE_MS) };
}

/** "7 h 12 min", "45 min". */
export function spanText(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}

const LIKELY_CAUSES =
  'Apps Script ran no processQueue trigger: most often the account\'s daily trigger runtime is used up ' +
  '("Service using too much computer time for one day"; 90 min a day on a consumer account, 6 h on Workspace), ' +
  'otherwise the trigger was removed or disabled, or Google failed';

/** What doGet says while runs are overdue. */
export function overdueReason(gap: RunGap, iso: (ms: number) => string): string {
  return `no processQueue run for ${spanText(gap.minutes)} (last ${iso(gap.lastRunAt)}) while deliveries wait. ${LIKELY_CAUSES}. ` +
    'Deliveries are still recorded; replies wait until runs are possible again';
}

/** The incident the first run after the gap raises. */
export function missedRunsDetail(gap: RunGap, now: number, iso: (ms: number) => string): string {
  return `processQueue did not run from ${iso(gap.lastRunAt)} to ${iso(now)} (${spanText(gap.minutes)}) while deliveries waited. ${LIKELY_CAUSES}. ` +
    'doPost kept recording deliveries meanwhile; this run works through them';
}
