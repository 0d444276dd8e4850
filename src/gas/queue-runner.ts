// processQueue's gas side: the tick gate and the script lock, then core's runQueueTick with the ports of the composition root.
import { messageOf } from '../core/domain/failures/errors';
import type { ProcessingSummary } from '../core/processing/process-run';
import { runQueueTick } from '../core/runs/queue-tick';
import { redact } from '../core/domain/failures/redact';
import { decideTick, DIRTY_PROPERTY } from '../core/domain/queue/tick-gate';
import { scriptLock } from './locks';
import type { Services } from './services';

export interface TickOutcome {
  ran: boolean;
  reason: string;
  summary?: ProcessingSummary;
}

/**
 * Never throws: an uncaught error in a clock trigger makes Google mail its own failure notice every
 * minute (see docs/platform.md#transient-service-errors), which is the flood triage exists to replace.
 */
export function runProcessQueue(services: Services, options: { force?: boolean } = {}): TickOutcome {
  const startedAt = services.clock.now();
  try {
    const props = services.props();
    const snapshot = services.snapshot();
    const gate = decideTick(snapshot, startedAt);
    if (!options.force && !gate.due) return { ran: false, reason: gate.reason };
    const lock = scriptLock();
    if (!lock.tryLock(0)) return { ran: false, reason: 'another processQueue run holds the script lock' };
    try {
      // Cleared before the Queue is read: a delivery landing during this run sets it again for the next tick.
      if (snapshot[DIRTY_PROPERTY] !== undefined) props.delete(DIRTY_PROPERTY);
      return { ran: true, reason: gate.reason, summary: runQueueTick(services.tickPorts(), snapshot, startedAt).summary };
    } finally {
      lock.release();
    }
  } catch (error) {
    console.error(`processQueue failed outside its guarded steps: ${redact(messageOf(error))}`);
    return { ran: false, reason: `error: ${redact(messageOf(error))}` };
  }
}
