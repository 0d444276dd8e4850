// The one function that moves a row by the outcome table (domain/queue/outcomes.ts): its state, attempts, counter, incident and pause.
import type { IncidentCode } from '../domain/failures/codes';
import { attemptsAfter, outcomeRule, outcomeTarget, type OutcomeClass } from '../domain/queue/outcomes';
import type { QueueRow } from '../domain/queue/queue-row';
import type { Status } from '../domain/queue/statuses';
import { countWhenWritten, type Batch, type Run } from './run-context';
import { moveRow } from './run-writes';

/** Incidents an outcome named, with the rows it held back: raised by the step once its writes are committed. */
export type OutcomeFindings = Map<IncidentCode, { detail: string; rows: number[] }>;

/** One outcome's move: the Log detail, the outcome's own cells, and what the table needs to apply it. */
export interface OutcomeMove {
  /** The Log line's detail. */
  detail: string;
  /** The outcome's own cells (error, result, nextAttemptAt, sentAt …). */
  patch?: Partial<QueueRow>;
  /** The state the row's send claim came from, for outcomes that go back (CLAIMED_FROM). */
  claimedFrom?: Status;
  /** Where the incident the outcome names is gathered (absent: the step raises its own, e.g. the mail quota). */
  findings?: OutcomeFindings;
  /** The incident, when the table says the verdict names it (systemic). */
  incident?: IncidentCode;
  /** The incident's detail when it is first found; default: the row's Log detail. */
  incidentDetail?: string;
}

/**
 * Moves `row` as the table says for `outcome`: the target state, the attempts its claim started settled (charged or
 * not), the counter, the incident noted with the row, and the step paused. Returns the moved copy.
 */
export function applyOutcome(run: Run, batch: Batch, row: QueueRow, outcome: OutcomeClass, move: OutcomeMove): QueueRow {
  const { detail, patch = {}, ...context } = move;
  const rule = outcomeRule(outcome);
  // An outcome that charges no attempt leaves the count as it is (attemptsAfter), which the write then leaves alone.
  const attempts = attemptsAfter(row.attempts, outcome);
  const moved = moveRow(run, batch, row, outcomeTarget(outcome, context.claimedFrom), detail, { claimedAt: null, attempts, ...patch });
  if (rule.counter !== null) {
    if (rule.counted === 'at once') run.summary[rule.counter]++;
    else countWhenWritten(batch, rule.counter);
  }
  const incident = rule.incident === 'named by the verdict' ? context.incident : (rule.incident ?? undefined);
  if (incident !== undefined && context.findings !== undefined) {
    const found = context.findings.get(incident) ?? { detail: context.incidentDetail ?? detail, rows: [] };
    found.rows.push(row.rowNumber);
    context.findings.set(incident, found);
  }
  if (rule.pauses === 'generation' && incident !== undefined) run.summary.generationHaltedBy = run.summary.generationHaltedBy ?? incident;
  return moved;
}
