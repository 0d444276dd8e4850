// The run's bounce check (RECONCILE_BOUNCES): at most every BOUNCE_CHECK_MINUTES, Gmail's delivery-failure notices for
// sent replies mark their rows (BOUNCED) and put the address on the Suppressed sheet, so it is never mailed again.
import { codeOf, messageOf } from '../domain/failures/errors';
import type { BounceMailbox, BounceNotice } from '../domain/ports';
import { errorSummary } from '../domain/failures/redact';
import { ADDED_BY_BOUNCE, suppressionOf, type SuppressedEntry } from '../domain/mail/suppression';
import { mailboxOf } from '../domain/mail/mail-addresses';
import { isOverBudget, isoTime, markGone, newBatch, raiseIncident, suppressedOf, type Run } from './run-context';
import { commitBatch, noteRow } from './run-writes';
import {
  BOUNCE_OVERLAP_MS,
  bouncedDetail,
  bounceQuery,
  FIRST_LOOKBACK_MS,
  matchBounce,
  MAX_NOTICES_PER_CHECK,
  MAX_SEEN_IDS,
  readBounce,
  tallyBounces,
  type BounceCheckState,
} from './bounces';

/** The inbox the check reads: null when RECONCILE_BOUNCES is off or no inbox is wired. */
function bounceMailbox(run: Run): BounceMailbox | null {
  return run.settings.reconcileBounces ? (run.deps.bounceMail ?? null) : null;
}

/** Whether a check is due now: never before BOUNCE_CHECK_MINUTES after the last one, so most runs cost nothing. */
export function bounceCheckDue(last: BounceCheckState | null, now: number, minutes: number): boolean {
  return last === null || now - last.at >= minutes * 60_000;
}

/**
 * Reads the notices that arrived since the last check (less an overlap; those already read are skipped without a read),
 * and for each failure about a reply of ours: the row gets BOUNCED in `error` (status kept: the mail went), and the
 * address goes on the Suppressed sheet once. A failing search changes nothing and is retried at the next run.
 */
export function runBounceCheck(run: Run): void {
  const mailbox = bounceMailbox(run);
  if (mailbox === null) return;
  const now = run.deps.clock.now();
  const last = run.deps.bounceCheck ?? null;
  if (!bounceCheckDue(last, now, run.settings.bounceCheckMinutes) || isOverBudget(run)) return;
  const since = last === null ? now - FIRST_LOOKBACK_MS : last.at - BOUNCE_OVERLAP_MS;
  const seen = new Set(last?.seen ?? []);
  let listed: string[];
  const read: BounceNotice[] = [];
  const readIds: string[] = [];
  try {
    listed = mailbox.list(bounceQuery(since));
    for (const id of listed.filter((id) => !seen.has(id)).slice(0, MAX_NOTICES_PER_CHECK)) {
      read.push(mailbox.read(id));
      readIds.push(id);
    }
  } catch (error) {
    // Only Gmail is called in here: whatever it throws (scope, service off, outage) is the check's failure.
    raiseIncident(run, 'BOUNCE_CHECK_FAILED', `the inbox could not be searched for delivery-failure notices (${messageOf(error)}); it is tried again at the next run`);
    return;
  }
  markGone(run, ['BOUNCE_CHECK_FAILED']);
  const batch = newBatch();
  const additions: SuppressedEntry[] = [];
  const bouncedAt: number[] = [];
  for (const notice of read) {
    const bounce = readBounce(notice);
    if (bounce === null) continue;
    const match = matchBounce(bounce, run.rows);
    if (match.kind === 'none') continue;
    bouncedAt.push(bounce.receivedAt);
    const detail = bouncedDetail(match.address, bounce, isoTime);
    if (match.kind === 'row' && match.row.status === 'SENT' && !match.row.error.startsWith('BOUNCED: ')) {
      const error = errorSummary('BOUNCED', detail, run.secrets);
      noteRow(run, batch, match.row, error, { error });
    }
    const suppressed = suppressedOf(run);
    if (suppressionOf(match.address, suppressed) === null) {
      const entry: SuppressedEntry = { address: match.address, reason: `bounced: ${bounce.reason}`, addedBy: ADDED_BY_BOUNCE, addedAt: now };
      additions.push(entry);
      // This run's sends see it at once.
      suppressed.set(mailboxOf(match.address), entry);
    }
  }
  // Suppressed first: a row marked but an address not suppressed would let the next reply go.
  const added = additions.length === 0 || addSuppressed(run, additions);
  commitBatch(run, batch);
  // Not recorded when the addresses could not be kept: the next run reads the same notices again and adds them.
  if (added) run.summary.bounceCheck = checkRecord(last, now, { readIds, listed, bouncedAt });
}

/**
 * What this check leaves for the next: the ids of this window (older ones are before its `since` anyway), the ones
 * read now first, and the tally. Past MAX_SEEN_IDS the oldest go: dropping the ids just read instead would have the
 * next check read them again and count their bounces twice.
 */
function checkRecord(last: BounceCheckState | null, now: number, read: { readIds: string[]; listed: string[]; bouncedAt: number[] }): BounceCheckState {
  const ids = [...new Set([...read.readIds, ...(last?.seen ?? [])])];
  const state: BounceCheckState = { at: now, seen: ids.filter((id) => read.listed.includes(id)).slice(0, MAX_SEEN_IDS) };
  const bounced = tallyBounces(last?.bounced ?? [], read.bouncedAt, now);
  return bounced.length === 0 ? state : { ...state, bounced };
}

/** False when there is no Suppressed sheet to add them to (the addresses hold for this run only). */
function addSuppressed(run: Run, entries: SuppressedEntry[]): boolean {
  try {
    run.deps.suppression?.add(entries);
    return true;
  } catch (error) {
    if (codeOf(error) !== 'CONFIG_MISSING') throw error;
    // CONFIG_MISSING tells staff to run Set up, which makes the sheet.
    raiseIncident(run, 'CONFIG_MISSING', messageOf(error));
    return false;
  }
}
