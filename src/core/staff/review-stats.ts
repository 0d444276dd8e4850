// The day's approvals counted for the daily summary: approved as written, edited, skipped, and the waits for approval.

/** Script Property the approval moves add to (the on-edit trigger and the menu); the daily summary reads it. */
export const REVIEWS_PROPERTY = 'FQ_REVIEWS';

/** At most this many waits are kept a day for the median (a property holds 9 KB). */
const MAX_WAITS = 400;

export interface DayReviews {
  day: string;
  asWritten: number;
  edited: number;
  skipped: number;
  /** Minutes from the reply written to the approval, in the order approved. */
  waits: number[];
}

export interface StoredReviews {
  today: DayReviews | null;
  /** The last earlier day with any review, for the summary sent at the next day's first run. */
  previous: DayReviews | null;
}

export type ReviewOutcome = { kind: 'approved'; edited: boolean; waitedMs: number | null } | { kind: 'skipped' };

function isDay(value: unknown): value is DayReviews {
  const day = value as DayReviews;
  return typeof value === 'object' && value !== null && typeof day.day === 'string' && Array.isArray(day.waits);
}

export function readReviews(stored: string | null | undefined): StoredReviews {
  try {
    const parsed = JSON.parse(stored ?? '') as Partial<StoredReviews>;
    return { today: isDay(parsed.today) ? parsed.today : null, previous: isDay(parsed.previous) ? parsed.previous : null };
  } catch {
    return { today: null, previous: null };
  }
}

/** The stored value with these outcomes added on `dayKey`; a new day moves the old one to `previous`. */
export function addReviews(stored: string | null | undefined, dayKey: string, outcomes: readonly ReviewOutcome[]): string {
  const reviews = readReviews(stored);
  if (reviews.today !== null && reviews.today.day !== dayKey) reviews.previous = reviews.today;
  const today: DayReviews = reviews.today?.day === dayKey ? reviews.today : { day: dayKey, asWritten: 0, edited: 0, skipped: 0, waits: [] };
  for (const outcome of outcomes) {
    if (outcome.kind === 'skipped') {
      today.skipped++;
      continue;
    }
    if (outcome.edited) today.edited++;
    else today.asWritten++;
    if (outcome.waitedMs !== null && today.waits.length < MAX_WAITS) today.waits.push(Math.round(outcome.waitedMs / 60000));
  }
  return JSON.stringify({ today, previous: reviews.previous });
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
}

/** "2026-12-01: 7 approved as written, 3 edited, 1 skipped; median wait for approval 42 min", for each day kept; [] when none. */
export function reviewLines(reviews: StoredReviews): string[] {
  return [reviews.previous, reviews.today]
    .filter((day): day is DayReviews => day !== null)
    .map((day) => {
      const wait = median(day.waits);
      const waited = wait === null ? '' : `; median wait for approval ${wait} min`;
      return `${day.day}: ${day.asWritten} approved as written, ${day.edited} edited, ${day.skipped} skipped${waited}`;
    });
}
