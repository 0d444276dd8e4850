// Missed webhooks found in Typeform: a burst Google partly refuses, then reconcileTypeform queues each lost one for approval.
import { describe, expect, it } from 'vitest';
import { LOCAL_TYPEFORM_TOKEN } from '../../emulator/offline-typeform.mjs';
import { runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const FORM = 'Wr1tE5sy';
const HOUR_MS = 3600 * 1000;

let rt: Runtime;

async function runtimeWithTypeform(host: Record<string, unknown> = {}): Promise<Runtime> {
  // Recovered 13 h after submission: older than RECOVERED_AUTO_SEND_HOURS here, so each waits for a person.
  rt = await freshRuntime({ props: { TYPEFORM_TOKEN: LOCAL_TYPEFORM_TOKEN, RECOVERED_AUTO_SEND_HOURS: '12' }, host });
  rt.host.properties.set('TYPEFORM_BASE_URL', `${rt.url}/typeform`);
  // Reconciliation asks Typeform about the forms Config names (the * row names none).
  await rt.host.edit({ sheet: 'Config', a1: 'A2', value: FORM, user: 'owner@example.com' });
  return rt;
}

async function api(path: string, body: unknown): Promise<any> {
  const response = await fetch(`${rt.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return response.json();
}

/** A submission made now (runtime time), so the check's window finds it once 12 h have passed. */
function submittedNow(n: number): string {
  const at = new Date(rt.host.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return submission(`burst${n}`, (body) => {
    body.form_response.submitted_at = at;
    // one recipient each: the per-recipient daily cap is not what this test is about
    for (const answer of body.form_response.answers) if (answer.type === 'email') answer.email = `student${n}@example.com`;
  });
}

const tokenOf = (n: number) => JSON.parse(submittedNow(n)).form_response.token as string;

describe('reconcileTypeform', () => {
  it('after a 40-delivery burst Google partly refuses (HTML 200), every submission is in Queue exactly once and none recovered is mailed unapproved', async () => {
    await runtimeWithTypeform({ latency: 'google:0.1', latencySeed: 11 });
    const bodies = Array.from({ length: 40 }, (_, n) => submittedNow(n));
    const answers = await Promise.all(bodies.map((body) => rt.deliver(body)));
    const refused = answers.filter((answer) => answer.unparsed !== undefined);
    // Google's refusal is a 200 with its HTML error page: Typeform counts it as delivered and never retries.
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) expect(answer.unparsed).toContain('Service invoked too many times');
    const health = (await (await fetch(`${rt.url}/api/health`)).json()) as { refusedExecutions: number };
    expect(health.refusedExecutions).toBe(refused.length);
    expect(rt.queue()).toHaveLength(40 - refused.length);

    // Typeform's own retries are over after 10 h; the check reads from 48 h to 12 h ago.
    await api('/api/clock', { advanceMs: 13 * HOUR_MS });
    rt.host.latency = null; // the burst needed Google's timings; the rest of the check does not
    const run = await api('/api/run/reconcileTypeform', {});
    expect(run.status).toBe('ok');
    expect(String(run.value)).toContain(`${refused.length} recovered, waiting for approval in Queue`);

    const rows = rt.queue();
    const tokens = Array.from({ length: 40 }, (_, n) => tokenOf(n));
    for (const token of tokens) expect(rows.filter((row) => row.response_token === token)).toHaveLength(1);
    const recovered = rows.filter((row) => String(row.event_id).startsWith('reconciled:'));
    expect(recovered).toHaveLength(refused.length);
    for (const row of recovered) expect(row.event_id).toBe(`reconciled:${row.response_token}`);

    // Replies are written for every row, but a recovered one waits for a person.
    for (let i = 0; i < 8 && rt.queue().some((row) => row.status === 'PENDING' || row.status === 'READY'); i += 1) await rt.run('processQueue');
    const after = rt.queue();
    const recoveredAfter = after.filter((row) => String(row.event_id).startsWith('reconciled:'));
    for (const row of recoveredAfter) expect(row.status).toBe('AWAITING_APPROVAL');
    expect(after.filter((row) => row.status === 'SENT')).toHaveLength(40 - refused.length);
    const recoveredRefs = new Set(recoveredAfter.map((row) => String(row.mail_ref)));
    const mailed = rt.host.outbox.filter((mail: any) => [...recoveredRefs].some((ref) => ref !== '' && JSON.stringify(mail).includes(ref)));
    expect(mailed).toEqual([]);

    // A second check finds nothing new: everything is here now.
    const again = await api('/api/run/reconcileTypeform', {});
    expect(String(again.value)).toContain('40 in Typeform, 40 already here');
    expect(String(again.value)).toContain('0 recovered');
  }, 240_000);

  it('a late webhook for a recovered submission is answered as a duplicate', async () => {
    await runtimeWithTypeform();
    const at = new Date(rt.host.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const late = JSON.parse(submission('late1'));
    // Stored in Typeform, never delivered (as a refused call leaves it).
    await api('/api/typeform/responses', { form_id: FORM, token: late.form_response.token, submitted_at: at, answers: late.form_response.answers,
      fields: late.form_response.definition.fields, hidden: late.form_response.hidden });
    await api('/api/clock', { advanceMs: 13 * HOUR_MS });
    const run = await api('/api/run/reconcileTypeform', {});
    expect(String(run.value)).toContain('1 recovered');
    const [row] = rt.queue();
    expect(row).toMatchObject({ event_id: `reconciled:${late.form_response.token}`, recipient: 'mina.okafor@example.com', status: 'PENDING' });
    expect(String(row.submission)).toContain('Email for your feedback');

    const answer = await rt.deliver(JSON.stringify(late));
    expect(answer).toMatchObject({ ok: true, duplicate: true });
    expect(rt.queue()).toHaveLength(1);
  });

  it('a finished response whose partial alone sits in Rejected is recovered: a partial never counts as holding the response', async () => {
    await runtimeWithTypeform();
    const partial = JSON.parse(submittedNow(7));
    partial.event_type = 'form_response_partial';
    expect(await rt.deliver(JSON.stringify(partial))).toMatchObject({ ok: true, partial: true });
    expect(rt.sheet('Rejected').rows).toHaveLength(1);
    // The finished response: stored in Typeform, its webhook never came (Google refused it).
    const finished = JSON.parse(submittedNow(7)).form_response;
    await api('/api/typeform/responses', { form_id: FORM, token: finished.token, submitted_at: finished.submitted_at, answers: finished.answers, fields: finished.definition.fields, hidden: finished.hidden });
    await api('/api/clock', { advanceMs: 13 * HOUR_MS });
    const run = await api('/api/run/reconcileTypeform', {});
    expect(String(run.value)).toContain(`${FORM}: 1 in Typeform, 0 already here, 1 recovered, waiting for approval in Queue.`);
    expect(rt.queue().map((row) => row.event_id)).toEqual([`reconciled:${tokenOf(7)}`]);
    expect(JSON.parse(rt.host.properties.get('FQ_TYPEFORM_CHECK'))).toMatchObject({ recovered: 1, inRejected: 0 });
  });

  it('only a Rejected body that is a delivery of the response counts as holding it (never a mention of its token), and staff are mailed what waits there', async () => {
    await runtimeWithTypeform();
    // 1: refused as an unknown form while Config named another form; 2: refused for a missing token. Both are
    // deliveries of their responses that staff can accept from Rejected.
    await rt.host.edit({ sheet: 'Config', a1: 'A2', value: 'SomeOtherForm', user: 'owner@example.com' });
    expect(await rt.deliver(submittedNow(1))).toMatchObject({ error: 'unknown_form' });
    await rt.host.edit({ sheet: 'Config', a1: 'A2', value: FORM, user: 'owner@example.com' });
    expect(await rt.deliver(submittedNow(2), null)).toMatchObject({ error: 'unauthorized' });
    // 3: only quoted by junk (and inside a longer token), its own webhook never came.
    expect(await rt.deliver(JSON.stringify({ note: `see x${tokenOf(3)}x and ${tokenOf(3)}` }), null)).toMatchObject({ error: 'unauthorized' });
    const third = JSON.parse(submittedNow(3)).form_response;
    await api('/api/typeform/responses', { form_id: FORM, token: third.token, submitted_at: third.submitted_at, answers: third.answers, fields: third.definition.fields, hidden: third.hidden });

    await api('/api/clock', { advanceMs: 13 * HOUR_MS });
    const run = await api('/api/run/reconcileTypeform', {});
    expect(String(run.value)).toContain(`${FORM}: 3 in Typeform, 0 already here, 2 in Rejected (accept them there), 1 recovered, waiting for approval in Queue.`);
    expect(rt.queue().map((row) => row.event_id)).toEqual([`reconciled:${tokenOf(3)}`]);
    const record = JSON.parse(rt.host.properties.get('FQ_TYPEFORM_CHECK'));
    expect(record).toMatchObject({ inRejected: 2 });
    expect([...record.inRejectedTokens].sort()).toEqual([tokenOf(1), tokenOf(2)].sort());

    // The next processQueue tells staff, once.
    expect((await rt.run('processQueue')).status).toBe('ok');
    await rt.run('processQueue');
    const mails = rt.host.outbox.filter((mail: any) => String(mail.subject).includes('Submissions waiting in Rejected'));
    expect(mails).toHaveLength(1);
    const body = String(mails[0].body);
    expect(body).toContain('are in Rejected only: accept them there (response tokens ');
    for (const n of [1, 2]) expect(body).toContain(tokenOf(n));
    expect(body).toContain('formqueue → Accept rejected delivery');
  });

  it('a disabled Typeform webhook is one WEBHOOK_DISABLED incident, mailed once', async () => {
    await runtimeWithTypeform();
    await rt.deliver(submittedNow(1));
    await api('/api/typeform/webhooks', { form_id: FORM, enabled: false });
    const run = await api('/api/run/reconcileTypeform', {});
    expect(String(run.value)).toContain('its Typeform webhook is disabled');
    await rt.run('processQueue');
    await rt.run('processQueue');
    const incidentMails = rt.host.outbox.filter((mail: any) => String(mail.subject).includes('Typeform webhook disabled'));
    expect(incidentMails).toHaveLength(1);
    expect(String(incidentMails[0].body ?? incidentMails[0].text ?? JSON.stringify(incidentMails[0]))).toContain('Connect → Webhooks');
  });

  it('without TYPEFORM_TOKEN the daily trigger does nothing and says so', async () => {
    rt = await freshRuntime();
    const run = await api('/api/run/reconcileTypeform', {});
    expect(run.status).toBe('ok');
    expect(String(run.value)).toContain('TYPEFORM_TOKEN is not set');
    expect(rt.typeform.forms.size).toBe(0);
  });
});
