// The webhook watch wired to Apps Script: each form's Typeform webhook read every 15 minutes, switched back on when allowed, responses recovered hourly while it is unhealthy.
import { readSettings } from '../core/domain/config/settings';
import { recoveredCount } from '../core/reconcile/typeform-reconcile';
import { MIN_REQUEST_GAP_MS, waitBeforeRequestMs } from '../core/reconcile/typeform-window';
import { WEBHOOK_WATCH_PROPERTY, afterRecovery, mayReenable, planWatch, readWatchRecord, watchedHook, type FormWatch } from '../core/reconcile/webhook-watch';
import { markQueueDirty } from '../core/domain/queue/tick-gate';
import type { Services } from './services';
import { systemClock } from './system-clock';
import { TYPEFORM_OFF_LINE, checkedFormIds, reconcileForms, typeformHttp } from './typeform-reconcile';

interface Looked {
  forms: FormWatch[];
  reenabled: string[];
  errors: string[];
}

/** The status a GET of this web app ends with after its redirect (200 when it is deployed); 200 when its URL is unknown. */
function webAppAnswers(webAppUrl: string): number {
  if (webAppUrl === '') return 200;
  try {
    return UrlFetchApp.fetch(webAppUrl, { method: 'get', muteHttpExceptions: true, followRedirects: true }).getResponseCode();
  } catch {
    return 0;
  }
}

/** One GET per form (and one PUT per disabled webhook when allowed), paced to Typeform's 2 requests a second. */
function lookAtWebhooks(settings: ReturnType<typeof readSettings>['settings'], formIds: readonly string[]): Looked {
  const http = typeformHttp(settings);
  const webAppUrl = ScriptApp.getService().getUrl() ?? '';
  const looked: Looked = { forms: [], reenabled: [], errors: [] };
  let last: number | null = null;
  const paced = <T>(request: () => T): T => {
    const wait = waitBeforeRequestMs(last, systemClock.now());
    if (wait > 0) Utilities.sleep(Math.min(wait, MIN_REQUEST_GAP_MS));
    last = systemClock.now();
    return request();
  };
  for (const formId of formIds) {
    const path = `/forms/${encodeURIComponent(formId)}/webhooks`;
    const answer = paced(() => http.get(path, {}));
    const hook = answer.status === 200 ? watchedHook(answer.text, webAppUrl) : { health: 'unknown' as const, tag: '', url: '' };
    if (answer.status !== 200) looked.errors.push(`${formId}: Typeform answered ${answer.status} for its webhooks`);
    looked.forms.push({ formId, health: hook.health });
    if (!settings.typeformWebhookReenable || !mayReenable(hook.health)) continue;
    // Switched on while the web app answers 404 (deployment removed), Typeform's next delivery would disable it again.
    const reachable = webAppAnswers(webAppUrl);
    if (reachable !== 200) {
      looked.errors.push(`${formId}: the webhook is left off: this web app answers ${reachable} (is the deployment still there?)`);
      continue;
    }
    const put = paced(() => http.put(`${path}/${encodeURIComponent(hook.tag)}`, { url: hook.url, enabled: true }));
    if (put.status === 200) looked.reenabled.push(formId);
    else looked.errors.push(`${formId}: the webhook could not be switched back on (Typeform answered ${put.status}${put.status === 403 ? ': TYPEFORM_TOKEN needs the webhooks:write scope' : ''})`);
  }
  return looked;
}

/** The watch trigger's run; its lines are logged. Without TYPEFORM_TOKEN it reads Script Properties once and stops. */
export function runWebhookWatch(services: Services): string[] {
  const props = services.props();
  const snapshot = services.snapshot();
  const settings = services.settings();
  if (settings.typeformToken === '') return [TYPEFORM_OFF_LINE];
  const formIds = checkedFormIds(services.spreadsheet());
  const looked = lookAtWebhooks(settings, formIds);
  const plan = planWatch(readWatchRecord(snapshot), services.clock.now(), looked.forms, looked.reenabled, looked.errors);
  let record = plan.record;
  let recovered = 0;
  if (plan.recovery !== null) {
    const report = reconcileForms(services, formIds, { window: plan.recovery, foundInRejected: [] });
    recovered = recoveredCount(report);
    record = afterRecovery(plan, services.clock.now(), recovered, report.complete && report.forms.every((form) => form.error === ''));
  }
  props.set(WEBHOOK_WATCH_PROPERTY, JSON.stringify(record));
  // processQueue raises or clears the incident, and generates what was recovered, on its next tick.
  if (plan.changed || recovered > 0) markQueueDirty(props, services.clock.now());
  const lines = [
    ...looked.forms.map((form) => `${form.formId}: webhook ${form.health}${looked.reenabled.includes(form.formId) ? ', switched back on' : ''}`),
    ...looked.errors,
    ...(plan.recovery !== null ? [`recovered ${recovered} submission(s) of ${plan.recovery.since}–${plan.recovery.until} UTC`] : []),
  ];
  console.log(lines.join('\n'));
  return lines;
}
