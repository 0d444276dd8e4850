// How full the spreadsheet's grid is, how fast it grows, and when staff are warned (GRID_NEARLY_FULL).
import { DAY_MS, HOUR_MS } from '../time';

/** Sheets' limit counts every grid cell of every sheet, empty or not (docs/platform.md#quotas). */
export const SPREADSHEET_CELL_LIMIT = 10000000;
/** Staff are warned from this share of the limit on. */
export const GRID_WARN_RATIO = 0.8;
/** Script Property holding the recent measurements: [[at, cells], …], oldest first. */
export const GRID_SAMPLES_PROPERTY = 'FQ_GRID_SAMPLES';
/** The grid is measured at most this often (13 service calls each time); a week of samples is about 800 characters. */
export const GRID_CHECK_EVERY_MS = 6 * HOUR_MS;
const RATE_WINDOW_MS = 7 * DAY_MS;
const MAX_SAMPLES = 30;

export type GridSample = [at: number, cells: number];

export function parseGridSamples(json: string | undefined): GridSample[] {
  try {
    const parsed = JSON.parse(json ?? '[]') as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((s): s is GridSample => Array.isArray(s) && Number.isFinite(s[0]) && Number.isFinite(s[1]));
  } catch {
    return [];
  }
}

/** True when the last measurement is older than GRID_CHECK_EVERY_MS (or there is none). */
export function isGridCheckDue(samples: readonly GridSample[], now: number): boolean {
  const last = samples[samples.length - 1];
  return !last || now - last[0] >= GRID_CHECK_EVERY_MS;
}

export interface GridAssessment {
  /** The samples to store, this one included, trimmed to the rate window. */
  samples: GridSample[];
  ratio: number;
  /** Grid cells added per day over the window, or null with less than an hour of history. */
  perDay: number | null;
  /** Days until the limit at that rate; null when it is not growing or the rate is unknown. */
  daysLeft: number | null;
  /** Set when staff must be warned: the incident's detail. */
  warning: string | null;
}

export function assessGrid(previous: readonly GridSample[], cells: number, now: number): GridAssessment {
  const samples = [...previous.filter((s) => now - s[0] <= RATE_WINDOW_MS && s[0] < now), [now, cells] as GridSample].slice(-MAX_SAMPLES);
  const oldest = samples[0];
  const span = now - oldest[0];
  const perDay = span >= HOUR_MS ? ((cells - oldest[1]) / span) * DAY_MS : null;
  const daysLeft = perDay !== null && perDay > 0 ? Math.max(0, (SPREADSHEET_CELL_LIMIT - cells) / perDay) : null;
  const ratio = cells / SPREADSHEET_CELL_LIMIT;
  const warning = ratio >= GRID_WARN_RATIO ? gridWarning(cells, ratio, perDay, daysLeft, span) : null;
  return { samples, ratio, perDay, daysLeft, warning };
}

function gridWarning(cells: number, ratio: number, perDay: number | null, daysLeft: number | null, span: number): string {
  const used = `The spreadsheet's grid has ${cells.toLocaleString('en-US')} of its ${SPREADSHEET_CELL_LIMIT.toLocaleString('en-US')} cells (${Math.floor(ratio * 100)} %).`;
  if (perDay === null) return `${used} Its growth rate is not known yet (measured every 6 hours).`;
  const window = span >= DAY_MS ? `${Math.round(span / DAY_MS)} day(s)` : `${Math.round(span / HOUR_MS)} hour(s)`;
  if (daysLeft === null) return `${used} It did not grow over the last ${window}.`;
  const when = daysLeft < 1 ? 'in less than a day' : `in about ${Math.floor(daysLeft)} day(s)`;
  return `${used} At the rate of the last ${window} (${Math.round(perDay).toLocaleString('en-US')} cells a day) it is full ${when}.`;
}
