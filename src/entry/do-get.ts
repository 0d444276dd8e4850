// doGet: the queue's health as JSON for an uptime checker, behind the same token as the webhook.
import { messageOf } from '../core/errors';
import { checkWebhookToken } from '../core/intake/token-check';
import { redact } from '../core/redact';
import { readSettings } from '../core/settings';
import { computeHealth, healthReport, healthWhenUnreadable, IncidentBook } from '../core/triage';
import { createQueueStore } from '../gas/queue-store';
import { createScriptPropertyStore } from '../gas/script-properties';
import { effectiveUserEmail } from '../gas/self-test-probes';
import { openSpreadsheet } from '../gas/spreadsheet';
import { systemClock } from '../gas/system-clock';

function json(value: unknown): GoogleAppsScript.Content.TextOutput {
  return ContentService.createTextOutput(JSON.stringify(value)).setMimeType(ContentService.MimeType.JSON);
}

export function doGet(e: GoogleAppsScript.Events.DoGet): GoogleAppsScript.Content.TextOutput {
  try {
    const props = createScriptPropertyStore();
    const snapshot = props.getAll();
    const { settings } = readSettings(snapshot);
    const verdict = checkWebhookToken(e && e.parameter ? e.parameter.token : undefined, settings.webhookToken, settings.webhookTokenPrevious);
    if (verdict !== 'current' && verdict !== 'previous') return json({ ok: false, error: verdict === 'not_configured' ? 'not_configured' : 'unauthorized' });
    // The self-test asks who the web app runs as: only the web app itself can tell (docs/self-test.md#identity).
    if (e.parameter.view === 'identity') return json({ ok: true, runsAs: effectiveUserEmail() });
    const now = systemClock.now();
    const book = new IncidentBook(props, systemClock, { properties: snapshot });
    let health;
    try {
      health = computeHealth(createQueueStore(openSpreadsheet(settings)).readAll(), now);
    } catch {
      // Sheets down: the last figures processQueue saw, marked as not read now.
      const lastKnown = book.lastKnownHealth(now);
      health = lastKnown ? healthWhenUnreadable(now, lastKnown) : null;
    }
    return json(health ? healthReport(health, book.all(), now) : { ok: false, error: 'queue_unreadable', checkedAt: new Date(now).toISOString() });
  } catch (error) {
    return json({ ok: false, error: 'internal_error', detail: redact(messageOf(error)) });
  }
}
