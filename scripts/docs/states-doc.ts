// The generated parts of docs/states.md: the states table and the lists the move table decides.
import {
  canStaffMove,
  isStaffMoveFromAnyUnfinished,
  isSystemMove,
  STAFF_MOVE_WORDS,
  SYSTEM_MOVE_NOTES,
  TRANSITIONS,
  UNCHECKED_KEEPS,
  type Actor,
} from '../../src/core/domain/queue/transitions';
import { FINISHED_STATUSES, STATUS_MEANING, STATUSES, type Status } from '../../src/core/domain/queue/statuses';
import { CLAIMED_FROM, OUTCOME_CLASSES, outcomeRule, type Outcome } from '../../src/core/domain/queue/outcomes';

function andList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** Targets in the order the table writes them, each with its note. */
function movesCell(from: Status, actor: Actor): string {
  const allowed = actor === 'system' ? isSystemMove : canStaffMove;
  const targets = (Object.keys(TRANSITIONS[from]) as Status[]).filter((to) => allowed(from, to));
  if (targets.length === 0) return '—';
  return targets
    .map((to) => {
      const note = actor === 'system' ? SYSTEM_MOVE_NOTES[from]?.[to] : STAFF_MOVE_WORDS[to]?.docs;
      return note === undefined ? to : `${to} (${note})`;
    })
    .join(', ');
}

export function statesTable(): string {
  const lines = ['| status | meaning | the system moves it to | staff may move it to |', '|---|---|---|---|'];
  for (const status of STATUSES) {
    lines.push(`| \`${status}\` | ${STATUS_MEANING[status]} | ${movesCell(status, 'system')} | ${movesCell(status, 'staff')} |`);
  }
  lines.push('', `${andList(FINISHED_STATUSES)} are final: nothing moves a row out of them.`);
  return lines.join('\n');
}

/** The staff move allowed from any unfinished state, and those states. */
export function anyUnfinishedMove(): string {
  const to = STATUSES.find((status) => STAFF_MOVE_WORDS[status] !== undefined && isStaffMoveFromAnyUnfinished(status)) as Status;
  const from = STATUSES.filter((status) => canStaffMove(status, to));
  return `- **any unfinished status → ${to}** (${from.join(', ')}).`;
}

export function uncheckedKeeps(): string {
  return (
    'A multi-cell edit of the status column (a paste, a fill) cannot be checked, because Sheets gives no previous\n' +
    `values: ${andList(UNCHECKED_KEEPS)} are kept as typed (with a note and a Log line): the system never moves a row\n` +
    'out of them because of its status (NEEDS_REVIEW only on the Log\'s send claim and the Sent folder, below), and they\n' +
    'are states a person moves rows into or out of. Anything else parks the row in NEEDS_REVIEW, so nothing is sent\n' +
    'until a person looks.'
  );
}

/** When the run's summary counts the outcome: as it happens, or once the row's write has landed. */
const COUNTED_WORDS: Record<Outcome['counted'], string> = { 'at once': 'at once', written: 'when written' };

/** The outcome table (outcomeRule in src/core/domain/queue/outcomes.ts), one line per class. */
export function outcomesTable(): string {
  const lines = ['| outcome | when | from | to | attempt | counter | incident | waits for |', '|---|---|---|---|---|---|---|---|'];
  for (const outcome of OUTCOME_CLASSES) {
    const rule = outcomeRule(outcome);
    const to = rule.to === CLAIMED_FROM ? 'back to READY/APPROVED (as claimed)' : rule.to;
    const attempt = rule.attempt === 'none' ? '—' : rule.attempt;
    const counter = rule.counter === null ? '—' : `${rule.counter} (${COUNTED_WORDS[rule.counted]})`;
    const incident = rule.incident === null ? '—' : rule.incident === 'named by the verdict' ? 'the one the verdict names' : `\`${rule.incident}\``;
    const pause = rule.pauses === null ? '' : `; ${rule.pauses} pauses`;
    lines.push(`| \`${outcome}\` | ${rule.when} | ${rule.from.join(', ')} | ${to} | ${attempt} | ${counter} | ${incident}${pause} | ${rule.waits ?? '—'} |`);
  }
  return lines.join('\n');
}

export function statesBlocks(): Record<string, string> {
  return { 'states-table': statesTable(), 'any-unfinished-move': anyUnfinishedMove(), 'unchecked-keeps': uncheckedKeeps(), 'outcomes-table': outcomesTable() };
}
