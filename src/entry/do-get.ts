// doGet: the queue's health as JSON for an uptime checker, behind its own HEALTH_TOKEN (never the webhook's).
import { messageOf } from '../core/domain/failures/errors';
import { checkWebhookToken } from '../core/intake/token-check';
import { redact } from '../core/domain/failures/redact';
import { runGap } from '../core/domain/queue/run-gap';
import { secretValues } from '../core/domain/config/settings';
import { computeHealth, healthReport, healthWhenUnreadable, IncidentBook } from '../core/triage';
import { createSuppressionList } from '../gas/suppression-store';
import { mailFigures } from '../core/triage/mail-figures';
import { bouncesSince, readBounceCheckState } from '../core/processing/bounces';
import type { SuppressedEntry } from '../core/domain/mail/suppression';
import { DAY_MS } from '../core/domain/time';
import { effectiveUserEmail } from '../gas/self-test-probes';
import { createServices, type Services } from '../gas/services';

/** The secrets to redact from an internal error, when the properties can still be read. */
function secretsOrNone(services: Services): string[] {
  try {
    return secretValues(services.settings());
  } catch {
    return [];
  }
}

function json(value: unknown): GoogleAppsScript.Content.TextOutput {
  return ContentService.createTextOutput(JSON.stringify(value)).setMimeType(ContentService.MimeType.JSON);
}

export function doGet(e: GoogleAppsScript.Events.DoGet): GoogleAppsScript.Content.TextOutput {
  const services = createServices();
  try {
    const props = services.props();
    const snapshot = services.snapshot();
    const settings = services.settings();
    // Its own token: an uptime checker holding the URL can read the health, never post a delivery.
    const verdict = checkWebhookToken(e && e.parameter ? e.parameter.token : undefined, settings.healthToken, '');
    if (verdict !== 'current') return json({ ok: false, error: verdict === 'not_configured' || verdict === 'weak' ? 'not_configured' : 'unauthorized' });
    // The self-test asks who the web app runs as: only the web app itself can tell (docs/self-test.md#identity).
    if (e.parameter.view === 'identity') return json({ ok: true, runsAs: effectiveUserEmail() });
    const now = services.clock.now();
    const book = new IncidentBook(props, services.clock, { properties: snapshot });
    let health;
    let readSuppressed: (() => SuppressedEntry[]) | null = null;
    try {
      health = computeHealth(services.queue().readAll(), now, '', null, { approvalWaitHours: settings.approvalWaitHours });
      readSuppressed = () => createSuppressionList(services.spreadsheet()).read();
    } catch {
      // Sheets down: the last figures processQueue saw, marked as not read now.
      const lastKnown = book.lastKnownHealth(now);
      health = lastKnown ? healthWhenUnreadable(now, lastKnown) : null;
    }
    // Runs that stopped (e.g. the daily trigger runtime used up) are seen here at once: doPost still runs, processQueue does not.
    const gap = runGap(snapshot, now);
    if (!health) return json({ ok: false, error: 'queue_unreadable', checkedAt: new Date(now).toISOString() });
    // Bounces as the last check counted them (Script Properties); the Suppressed sheet only when Sheets answered.
    const mail = mailFigures(settings.reconcileBounces ? bouncesSince(readBounceCheckState(snapshot), now - DAY_MS) : null, readSuppressed);
    return json(healthReport(health, book.all(), now, { gap, typeformTokenSet: settings.typeformToken !== '', mail }));
  } catch (error) {
    return json({ ok: false, error: 'internal_error', detail: redact(messageOf(error), secretsOrNone(services)) });
  }
}
