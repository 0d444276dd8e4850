// The day's count of rejected deliveries and the room their bodies take: exact under concurrency, whoever runs.
import type { PropertyStore } from '../ports';
import type { TallyRow, TallyStore } from '../sheet-ports';
import { claimsRoom, isRejectionKind, type DeliveryKind, type KindCounts, type UnreadKind } from './rejection-kinds';

/**
 * What rejections may keep per calendar day, in UTF-8 bytes: every body, reason and id written to Rejected and
 * Payloads, plus ROW_COST_BYTES per row. About 400 Typeform deliveries of 4 KB, and never more than 2,000 rows a day.
 */
export const REJECTED_BYTES_PER_DAY = 2_000_000;
/** Charged per kept rejection for its row's cells, so tiny junk bodies cannot add rows without bound either. */
export const ROW_COST_BYTES = 1000;
/** The day's totals folded from Tally, written only by processQueue with the script lock held. */
export const REJECTED_TOTALS_PROPERTY = 'FQ_REJECTED_DAY';

export interface RejectedTotals {
  day: string;
  /** Rejections counted. */
  count: number;
  /** Of them, recorded without keeping anything (past the day's room). */
  dropped: number;
  /** The count by kind (rows counted before kinds were kept are in `count` only). */
  kinds: KindCounts;
  /** Room claimed, net of claims given back: at least what the day's kept rejections take. */
  bytes: number;
  /** The id of the last Tally row folded in: rows up to it are already counted (a fold stopped before its delete). */
  through: string;
  /** The last earlier day that had rejections, as it ended: for the daily summary (the incident has no reminder). */
  previous?: { day: string; count: number; dropped: number; kinds: KindCounts };
}

/** What a day that is over leaves for the summary: itself if it had rejections, else what it carried. */
function ended(totals: RejectedTotals): RejectedTotals['previous'] {
  return totals.count > 0 ? { day: totals.day, count: totals.count, dropped: totals.dropped, kinds: totals.kinds } : totals.previous;
}

function emptyTotals(day: string): RejectedTotals {
  return { day, count: 0, dropped: 0, kinds: {}, bytes: 0, through: '' };
}

/** Stored kinds as counts of known kinds only (a garbled or renamed one is dropped, never a crash). */
function parseKinds(raw: unknown): KindCounts {
  const kinds: KindCounts = {};
  if (!raw || typeof raw !== 'object') return kinds;
  for (const [kind, count] of Object.entries(raw as Record<string, unknown>)) {
    if (isRejectionKind(kind) && Number.isFinite(count) && (count as number) > 0) kinds[kind] = count as number;
  }
  return kinds;
}

/** The stored totals as they are (any day), or none when absent or garbled. */
function parseTotals(json: string | undefined): RejectedTotals | null {
  if (!json) return null;
  try {
    const raw = JSON.parse(json) as Partial<RejectedTotals> | null;
    if (!raw || typeof raw.day !== 'string') return null;
    const number = (value: unknown) => (Number.isFinite(value) ? (value as number) : 0);
    const previous =
      raw.previous && typeof raw.previous.day === 'string'
        ? { day: raw.previous.day, count: number(raw.previous.count), dropped: number(raw.previous.dropped), kinds: parseKinds(raw.previous.kinds) }
        : undefined;
    const through = typeof raw.through === 'string' ? raw.through : '';
    return { day: raw.day, count: number(raw.count), dropped: number(raw.dropped), kinds: parseKinds(raw.kinds), bytes: number(raw.bytes), through, previous };
  } catch {
    return null;
  }
}

/** The rows not yet in `totals`: those after its `through` row, or all of them when that row is gone (counting twice is the safe side). */
function unfolded(rows: readonly TallyRow[], through: string): readonly TallyRow[] {
  // No row has a blank id, so '' (nothing folded yet) and a row gone alike find -1: every row.
  return rows.slice(rows.findIndex((row) => row.id === through) + 1);
}

function addRow(totals: RejectedTotals, row: TallyRow): RejectedTotals {
  if (row.day < totals.day) return totals; // a day that is over: nothing reads it any more
  const base = row.day > totals.day ? { ...emptyTotals(row.day), previous: ended(totals) } : totals;
  if (row.bytes < 0) return { ...base, bytes: base.bytes + row.bytes, dropped: base.dropped + 1 };
  // A delivery kind claims no room: its 0 means kept whatever the room, not dropped.
  const dropped = row.bytes === 0 && claimsRoom(row.kind) ? 1 : 0;
  const kinds = row.kind === undefined ? base.kinds : { ...base.kinds, [row.kind]: (base.kinds[row.kind] ?? 0) + 1 };
  return { ...base, count: base.count + 1, bytes: base.bytes + row.bytes, dropped: base.dropped + dropped, kinds };
}

/** What is known of `today` from the stored totals alone (doPost's cheap first look; the fold's result between folds). */
export function totalsOn(json: string | undefined, today: string): RejectedTotals {
  const stored = parseTotals(json);
  if (stored && stored.day === today) return stored;
  return { ...emptyTotals(today), through: stored?.through ?? '', previous: stored && stored.day < today ? ended(stored) : stored?.previous };
}

/**
 * The totals with `rows` folded in, for `today` (pure: processQueue stores the result, then deletes the rows).
 * Rows of a day before the totals' day are dropped; a newer day starts over.
 */
export function foldRows(storedJson: string | undefined, rows: readonly TallyRow[], today: string): RejectedTotals {
  // Nothing stored yet: the first row's day starts the count ("" sorts before every day).
  let totals = parseTotals(storedJson) ?? emptyTotals('');
  for (const row of unfolded(rows, totals.through)) totals = addRow(totals, row);
  const through = rows.length > 0 ? rows[rows.length - 1].id : totals.through;
  return totals.day < today ? { ...emptyTotals(today), through, previous: ended(totals) } : { ...totals, through };
}

/**
 * processQueue's step, under the script lock: the day's totals exact, and Tally emptied of what they now hold. The
 * property is written before the rows are deleted, so a reader in between counts them twice (safe), never not at all;
 * it is read fresh here, since only a run holding the lock writes it and the run's snapshot predates the lock.
 */
export function foldTally(store: TallyStore, props: PropertyStore, today: string): RejectedTotals {
  const rows = store.read();
  const stored = props.get(REJECTED_TOTALS_PROPERTY);
  const totals = foldRows(stored, rows, today);
  if (rows.length === 0) return totals;
  props.set(REJECTED_TOTALS_PROPERTY, JSON.stringify(totals));
  store.deleteFirst(rows.length);
  return totals;
}

/** Room claimed on `today` that a reader can see: the folded totals plus the rows not folded yet (own claim included). */
export function visibleBytes(rows: readonly TallyRow[], storedJson: string | undefined, today: string): number {
  const totals = totalsOn(storedJson, today);
  return unfolded(rows, totals.through).reduce((sum, row) => (row.day === today ? sum + row.bytes : sum), totals.bytes);
}

/**
 * Counts one rejection and says whether it may keep `bytes` (> 0). Claim first, then look: append the claim, read
 * Tally and the totals back, and keep only if everything visible, the claim included, is within the day's room;
 * otherwise give the claim back. Exact without a lock: of the claims that keep, the one appended last saw every
 * other keeper's claim (appended before it, so before its read), and claims given back only ever lower what it saw;
 * so what is kept never passes REJECTED_BYTES_PER_DAY (docs/architecture.md#rejected-deliveries-exact-without-a-lock).
 * Every rejection is one row, so the count loses none. A day already full costs one append and no read-back.
 * The first look is at `storedAtStart`, the totals as read with the settings when doPost began: it only saves the
 * read-back on a full day, so it needs no read of its own; the read-back is what keeps the room exact.
 */
export function claimRejectedRoom(
  store: TallyStore,
  props: PropertyStore,
  claim: { today: string; bytes: number; kind: UnreadKind },
  storedAtStart: string | undefined,
): boolean {
  const { today, bytes, kind } = claim;
  const known = totalsOn(storedAtStart, today);
  if (bytes <= 0 || known.bytes + bytes > REJECTED_BYTES_PER_DAY) {
    store.append({ day: today, bytes: 0, kind });
    return false;
  }
  store.append({ day: today, bytes, kind });
  const rows = store.read();
  // After the rows: a fold that deleted rows this read missed has stored them first.
  const visible = visibleBytes(rows, props.get(REJECTED_TOTALS_PROPERTY), today);
  if (visible <= REJECTED_BYTES_PER_DAY) return true;
  store.append({ day: today, bytes: -bytes });
  return false;
}

/**
 * Counts a delivery refused after it was read (unknown form, field too large, internal error, partial): one row of
 * its kind and no claim, since it is kept whatever the day's room (rejections.ts says why).
 */
export function countKeptRejection(store: TallyStore, today: string, kind: DeliveryKind): void {
  store.append({ day: today, bytes: 0, kind });
}
