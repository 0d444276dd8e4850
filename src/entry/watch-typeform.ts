// The 15-minute trigger's global: reads each form's Typeform webhook and recovers what it missed (docs/reconciliation.md).
import { createServices } from '../gas/services';
import { runWebhookWatch } from '../gas/webhook-watch';

export function watchTypeformWebhook(): string {
  return runWebhookWatch(createServices()).join('\n');
}
