// The every-minute clock trigger's global (also what "Process now" runs, after marking the queue dirty).
import { runQueueTick } from '../gas/queue-runner';
import { runOutcomeText } from '../core/runs/run-text';

export function processQueue(): string {
  const outcome = runQueueTick();
  return describe(outcome);
}

function describe(outcome: ReturnType<typeof runQueueTick>): string {
  if (!outcome.ran) return `Skipped: ${outcome.reason}.`;
  const s = outcome.summary;
  if (!s) return 'Ran; see the incidents mail for what went wrong.';
  return runOutcomeText(s);
}
