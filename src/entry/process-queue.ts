// The every-minute clock trigger's global (also what "Process now" runs, after marking the queue dirty).
import { runProcessQueue, type TickOutcome } from '../gas/queue-runner';
import { createServices } from '../gas/services';
import { runOutcomeText } from '../core/runs/run-text';

export function processQueue(): string {
  return describe(runProcessQueue(createServices()));
}

function describe(outcome: TickOutcome): string {
  if (!outcome.ran) return `Skipped: ${outcome.reason}.`;
  const s = outcome.summary;
  if (!s) return 'Ran; see the incidents mail for what went wrong.';
  return runOutcomeText(s);
}
