// Typeform as it behaves: its sender (302 followed or counted as a failure), a 1-hour 404 window, the 15-minute webhook watch.
import { describe, expect, it } from 'vitest';
import { LOCAL_TYPEFORM_TOKEN } from '../../emulator/offline-typeform.mjs';
import { runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const FORM = 'Wr1tE5sy';
const MIN = 60_000;
const STEP = 15 * MIN;

let rt: Runtime;

async function post(path: string, body: unknown): Promise<any> {
  const response = await fetch(`${rt.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return response.json();
}

/** Submission n, submitted now (runtime time), by a respondent of its own. */
function submittedNow(n: number): string {
  const at = new Date(rt.host.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return submission(`out${n}`, (body) => {
    body.form_response.submitted_at = at;
    for (const answer of body.form_response.answers) if (answer.type === 'email') answer.email = `student${n}@example.com`;
  });
}

interface Outage {
  submitted: number;
  disabledAt: number[];
  incidentMails: { subject: string; at: number }[];
  attempts: number;
}

/**
 * `hours` modeled hours in 15-minute steps, `perStep` submissions at the start of each; the web app answers 404 from
 * hour 2 to hour 3. Each step: submissions (Typeform's sender delivers at once), the watch, a processQueue run, then
 * the clock moves on (the sender's retries due meanwhile are made).
 */
async function runOutage(mode: 'follow' | 'fail', hours: number, perStep: number): Promise<Outage> {
  rt = await freshRuntime({ props: { TYPEFORM_TOKEN: LOCAL_TYPEFORM_TOKEN, TYPEFORM_WEBHOOK_REENABLE: 'true' }, worlds: { typeformRedirect: mode } });
  rt.host.properties.set('TYPEFORM_BASE_URL', `${rt.url}/typeform`);
  await rt.host.edit({ sheet: 'Config', a1: 'A2', value: FORM, user: 'owner@example.com' });
  await post('/api/typeform/webhooks', { form_id: FORM, enabled: true }); // staff set the webhook up in Typeform
  let n = 0;
  const steps = (hours * 60 * MIN) / STEP;
  for (let step = 0; step < steps; step += 1) {
    if (step === 8) await post('/api/deployment', { active: false }); // hour 2: the deployment is removed
    if (step === 12) await post('/api/deployment', { active: true }); // hour 3: deployed again
    for (let i = 0; i < perStep; i += 1) await post('/api/typeform/submit', submittedNow(n++));
    expect((await rt.run('watchTypeformWebhook')).status).toBe('ok');
    await rt.run('processQueue');
    await post('/api/clock', { advanceMs: STEP });
  }
  // Drain: replies for everything queued, the last recovery, the recovery mail.
  for (let i = 0; i < 3; i += 1) {
    await rt.run('watchTypeformWebhook');
    await rt.run('processQueue');
    await post('/api/clock', { advanceMs: STEP });
  }
  const log = (await (await fetch(`${rt.url}/api/typeform/deliveries?form_id=${FORM}`)).json()) as { items: { at: string; outcome: string }[]; totals: { attempts: number } };
  const disabledAt = disabledTimes(log.items);
  const incidentMails = (rt.host.outbox as any[])
    .filter((mail) => String(mail.subject).includes('Typeform webhook disabled'))
    .map((mail) => ({ subject: String(mail.subject), at: Date.parse(mail.sentAt) }));
  return { submitted: n, disabledAt, incidentMails, attempts: log.totals.attempts };
}

function disabledTimes(items: { at: string; outcome: string }[]): number[] {
  return items.filter((item) => item.outcome.startsWith('failed: webhook disabled')).map((item) => Date.parse(item.at));
}

function expectEveryResponseAnsweredOnce(submitted: number): void {
  const rows = rt.queue();
  for (let n = 0; n < submitted; n += 1) {
    const token = JSON.parse(submission(`out${n}`)).form_response.token as string;
    expect(rows.filter((row) => row.response_token === token), `response ${n}`).toHaveLength(1);
    const mails = (rt.host.outbox as any[]).filter((mail) => mail.to === `student${n}@example.com`);
    expect(mails, `replies to respondent ${n}`).toHaveLength(1);
  }
}

describe('a Typeform webhook disabled by a 404 window is watched, switched back on, and what it missed is answered once', () => {
  it.each(['fail', 'follow'] as const)('typeformRedirect=%s: 4 modeled hours, a submission every 15 minutes', async (mode) => {
    const outage = await runOutage(mode, 4, 1);
    expectEveryResponseAnsweredOnce(outage.submitted);
    // The 404 disabled the webhook at once (it may be disabled again if switched on inside the window: it is not).
    expect(outage.disabledAt).toHaveLength(1);
    const first = outage.incidentMails.filter((mail) => !mail.subject.includes('Resolved') && !mail.subject.includes('Still'));
    const resolved = outage.incidentMails.filter((mail) => mail.subject.includes('Resolved'));
    expect(first).toHaveLength(1);
    expect(resolved).toHaveLength(1);
    expect(first[0].at - outage.disabledAt[0]).toBeLessThanOrEqual(15 * MIN);
    expect(rt.typeform.webhooksOf(FORM)[0].enabled).toBe(true);
    console.log(`[typeform-outage ${mode}] ${outage.submitted} submissions, ${outage.attempts} delivery attempts, disabled at ${new Date(outage.disabledAt[0]).toISOString()}, incident mailed ${(first[0].at - outage.disabledAt[0]) / MIN} min later, ${outage.incidentMails.length} incident mails`);
  }, 240_000); // about 40–70 s alone; the machine is shared
});
