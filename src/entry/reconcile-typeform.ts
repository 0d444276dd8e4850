// The daily trigger's global: checks Typeform for submissions whose webhook never became a row (docs/reconciliation.md).
import { createServices } from '../gas/services';
import { runTypeformCheck } from '../gas/typeform-reconcile';

export function reconcileTypeform(): string {
  return runTypeformCheck(createServices()).join('\n');
}
