// The menu's "… selected" actions on a selection of Queue rows: row changes, Log entries and a summary for staff.
import type { LogEntry } from '../domain/sheet-ports';
import type { QueueRow } from '../domain/queue/queue-row';
import { isStaffMoveFromAnyUnfinished, sourcesOf, staffSourcesText } from '../domain/queue/transitions';
import type { Status } from '../domain/queue/statuses';
import { decideStaffMove, type StaffContext } from './staff-moves';

export const MENU_ACTIONS = ['approve', 'retry', 'skip', 'markSent'] as const;
export type MenuAction = (typeof MENU_ACTIONS)[number];

interface ActionSpec {
  target: Status;
  done: string;
}

/** Each item is one staff move of the table; the rows it acts on are the table's sources of that move. */
const SPECS: Readonly<Record<MenuAction, ActionSpec>> = {
  approve: { target: 'APPROVED', done: 'Approved' },
  retry: { target: 'PENDING', done: 'Queued for a new try' },
  skip: { target: 'SKIPPED', done: 'Skipped' },
  markSent: { target: 'SENT', done: 'Marked as sent' },
};

/** Why a selected row is not one this item acts on; null when it is (the move's own checks come after). */
function outOfScope(spec: ActionSpec, from: string): string | null {
  if (from === spec.target) return `already ${from}`;
  // A move allowed from every unfinished state leaves the refusal of finished rows to the move itself.
  if (isStaffMoveFromAnyUnfinished(spec.target)) return null;
  if ((sourcesOf(spec.target, 'staff') as readonly string[]).includes(from)) return null;
  return `is ${from || '(empty)'}; this item acts only on ${staffSourcesText(spec.target)} rows`;
}

export interface MenuOutcome {
  /** Rows to write back, already moved. */
  changed: QueueRow[];
  log: LogEntry[];
  /** Rows left as they were, with why. */
  refused: { rowNumber: number; reason: string }[];
  /** What staff read in the alert. */
  message: string;
}

/** How many refusals the message spells out; the rest are counted. */
const MAX_LISTED = 8;

/**
 * `awaitsApproval` tells, per form, whether a new reply will wait for approval (Config `approval_required`), so the
 * message says what will actually happen to the rows; without it the message does not promise a mail.
 */
export function applyMenuAction(
  action: MenuAction,
  rows: readonly QueueRow[],
  context: StaffContext,
  awaitsApproval: (formId: string) => boolean | null = () => null,
): MenuOutcome {
  const spec = SPECS[action];
  const outcome: Omit<MenuOutcome, 'message'> = { changed: [], log: [], refused: [] };
  for (const row of rows) {
    const from = String(row.status);
    const reason = outOfScope(spec, from);
    if (reason !== null) {
      outcome.refused.push({ rowNumber: row.rowNumber, reason });
      continue;
    }
    const decision = decideStaffMove(row, from, spec.target, context);
    if (decision.ok) {
      outcome.changed.push(decision.row);
      outcome.log.push(decision.log);
    } else {
      outcome.refused.push({ rowNumber: row.rowNumber, reason: decision.reason });
    }
  }
  return { ...outcome, message: summarise(spec, rows.length, outcome, awaitsApproval) };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function summarise(spec: ActionSpec, selected: number, outcome: Omit<MenuOutcome, 'message'>, awaitsApproval: (formId: string) => boolean | null): string {
  if (selected === 0) return 'Select one or more rows of the Queue sheet first (any cell of a row selects it).';
  const lines: string[] = [];
  const numbers = outcome.changed.map((row) => row.rowNumber).join(', ');
  lines.push(outcome.changed.length > 0 ? `${spec.done}: ${plural(outcome.changed.length, 'row')} (${numbers}).` : `${spec.done}: no rows.`);
  if (outcome.refused.length > 0) {
    lines.push(`Left as they were: ${plural(outcome.refused.length, 'row')}.`);
    for (const refusal of outcome.refused.slice(0, MAX_LISTED)) lines.push(`• row ${refusal.rowNumber}: ${refusal.reason}`);
    if (outcome.refused.length > MAX_LISTED) lines.push(`• … and ${outcome.refused.length - MAX_LISTED} more.`);
  }
  if (spec.target === 'PENDING' && outcome.changed.length > 0) lines.push(...nextRunLines(outcome.changed, awaitsApproval));
  return lines.join('\n');
}

/** "row 4" or "rows 4, 6" ("Row…" to start a sentence). */
function rowNumbers(rows: readonly QueueRow[], word: 'row' | 'Row' = 'row'): string {
  return `${word}${rows.length === 1 ? '' : 's'} ${rows.map((row) => row.rowNumber).join(', ')}`;
}

/**
 * What the next run does with rows sent back to PENDING: mailed, or written and held for approval, as their form says;
 * a row whose form's approval setting could not be read is named too (it gets a new reply, held or not as Config says
 * by then).
 */
function nextRunLines(rows: readonly QueueRow[], awaitsApproval: (formId: string) => boolean | null): string[] {
  const held = rows.filter((row) => awaitsApproval(row.formId) === true);
  const mailed = rows.filter((row) => awaitsApproval(row.formId) === false);
  const unknown = rows.filter((row) => awaitsApproval(row.formId) === null);
  if (held.length === 0 && mailed.length === 0) return ['A new reply will be written for them on the next run.'];
  const lines: string[] = [];
  if (mailed.length > 0) {
    const who = mailed.length === rows.length ? 'They' : rowNumbers(mailed, 'Row');
    lines.push(`${who} will be written and mailed on the next run.`);
  }
  if (held.length > 0) {
    const who = held.length === rows.length ? 'Their new replies' : `The new replies of ${rowNumbers(held)}`;
    lines.push(`${who} will be written on the next run and then wait for approval (approval is on for their form): nothing is mailed until someone approves.`);
  }
  if (unknown.length > 0) lines.push(`A new reply will be written for ${rowNumbers(unknown)} on the next run (Config could not be read, so whether it waits for approval is not known yet).`);
  return lines;
}
