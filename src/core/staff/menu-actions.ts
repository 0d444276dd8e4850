// The menu's "… selected" actions on a selection of Queue rows: row changes, Log entries and a summary for staff.
import type { LogEntry } from '../ports';
import type { QueueRow } from '../queue-row';
import type { Status } from '../statuses';
import { decideStaffMove, type StaffContext } from './staff-moves';

export const MENU_ACTIONS = ['approve', 'retry', 'skip', 'markSent'] as const;
export type MenuAction = (typeof MENU_ACTIONS)[number];

interface ActionSpec {
  target: Status;
  /** Statuses the menu item acts on; narrower than the move table where the item's name promises more. */
  from: readonly Status[] | 'any';
  done: string;
}

const SPECS: Readonly<Record<MenuAction, ActionSpec>> = {
  approve: { target: 'APPROVED', from: ['AWAITING_APPROVAL'], done: 'Approved' },
  retry: { target: 'PENDING', from: ['FAILED', 'NEEDS_REVIEW'], done: 'Queued for a new try' },
  skip: { target: 'SKIPPED', from: 'any', done: 'Skipped' },
  markSent: { target: 'SENT', from: ['FAILED', 'NEEDS_REVIEW'], done: 'Marked as sent' },
};

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

export function applyMenuAction(action: MenuAction, rows: readonly QueueRow[], context: StaffContext): MenuOutcome {
  const spec = SPECS[action];
  const outcome: MenuOutcome = { changed: [], log: [], refused: [], message: '' };
  for (const row of rows) {
    const from = String(row.status);
    if (spec.from !== 'any' && !(spec.from as readonly string[]).includes(from)) {
      const allowed = spec.from.join(' or ');
      const reason = from === spec.target ? `already ${from}` : `is ${from || '(empty)'}; this item acts only on ${allowed} rows`;
      outcome.refused.push({ rowNumber: row.rowNumber, reason });
      continue;
    }
    if (from === spec.target) {
      outcome.refused.push({ rowNumber: row.rowNumber, reason: `already ${from}` });
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
  outcome.message = summarise(spec, rows.length, outcome);
  return outcome;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function summarise(spec: ActionSpec, selected: number, outcome: MenuOutcome): string {
  if (selected === 0) return 'Select one or more rows of the Queue sheet first (any cell of a row selects it).';
  const lines: string[] = [];
  const numbers = outcome.changed.map((row) => row.rowNumber).join(', ');
  lines.push(outcome.changed.length > 0 ? `${spec.done}: ${plural(outcome.changed.length, 'row')} (${numbers}).` : `${spec.done}: no rows.`);
  if (outcome.refused.length > 0) {
    lines.push(`Left as they were: ${plural(outcome.refused.length, 'row')}.`);
    for (const refusal of outcome.refused.slice(0, MAX_LISTED)) lines.push(`• row ${refusal.rowNumber}: ${refusal.reason}`);
    if (outcome.refused.length > MAX_LISTED) lines.push(`• … and ${outcome.refused.length - MAX_LISTED} more.`);
  }
  if (spec.target === 'PENDING' && outcome.changed.length > 0) lines.push('They will be generated and mailed on the next run.');
  return lines.join('\n');
}
