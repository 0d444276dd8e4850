// npm run typeform-outage: days of submissions through Typeform's own sender, one 1-hour 404 window and an outsider flood; prints what happened.
//
// The runtime's Typeform sender (emulator/typeform-sender.mjs) delivers each submission to the web app as Typeform's
// published policy says, with the web app's 302 followed or counted as a failure (`typeformRedirect`, both by
// default). formqueue runs as deployed: processQueue every step, the webhook watch every 15 modeled minutes, the daily
// Typeform check at 06:00, TYPEFORM_WEBHOOK_REENABLE on. Time is modeled: the runtime clock moves 15 minutes a step.
//   node bench/typeform-outage.mjs [--days 3] [--per-day 100] [--mode follow|fail|both] [--flood 200]
import { parseArgs } from 'node:util';
import { recipientOf, startRuntime, submission } from '../harness/runtime.mjs';

const FORM = 'Wr1tE5sy';
const MIN = 60_000;
const STEP = 15 * MIN;

const { values } = parseArgs({ options: { days: { type: 'string', default: '3' }, 'per-day': { type: 'string', default: '100' }, mode: { type: 'string', default: 'both' }, flood: { type: 'string', default: '200' } } });
const days = Number(values.days);
const perDay = Number(values['per-day']);
const flood = Number(values.flood);
const modes = values.mode === 'both' ? ['fail', 'follow'] : [values.mode];

/** One run in one reading of the 302; the figures. */
async function outage(mode) {
  const started = Date.now();
  const rt = await startRuntime({ typeform: true, worlds: { typeformRedirect: mode }, props: { TYPEFORM_WEBHOOK_REENABLE: 'true' } });
  const { server, host } = rt;
  await host.edit({ sheet: 'Config', a1: 'A2', value: FORM, user: 'owner@example.com' });
  server.typeform.setWebhook({ form_id: FORM, enabled: true });
  const post = (path, body) => fetch(`${server.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
  const t0 = host.now();
  const steps = (days * 24 * 60 * MIN) / STEP;
  const outageStep = Math.floor(steps / 2) - 2; // the 404 hour: the middle of the run
  const floodStep = Math.floor(steps / 3);
  let n = 0;
  for (let step = 0; step < steps; step += 1) {
    if (step === outageStep) await post('/api/deployment', { active: false });
    if (step === outageStep + 4) await post('/api/deployment', { active: true });
    if (step === floodStep) {
      // An outsider posts junk without the token: rejected, counted, bounded; nothing to do with Typeform.
      await Promise.all(Array.from({ length: flood }, (_, i) => rt.deliver(`{"junk":${i}}`, null, { typeform: false })));
    }
    const due = Math.floor(((step + 1) * STEP * perDay) / (24 * 60 * MIN));
    while (n < due) {
      const at = new Date(host.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
      server.sender.submit(submission(n, (body) => { body.form_response.submitted_at = at; body.form_response.landed_at = at; }));
      n += 1;
    }
    await server.sender.runDue();
    await rt.run('watchTypeformWebhook');
    // The daily check at 06:00 of the modeled day (the runtime's trigger fires every 1,440 ticks, not at an hour).
    if (new Date(host.now()).getUTCHours() === 6 && new Date(host.now()).getUTCMinutes() < 15) await rt.run('reconcileTypeform');
    await rt.run('processQueue');
    host.advanceClock(STEP);
    await server.sender.runDue();
  }
  for (let i = 0; i < 12; i += 1) {
    await rt.run('watchTypeformWebhook');
    await rt.run('processQueue');
    host.advanceClock(STEP);
    await server.sender.runDue();
  }
  const rows = rt.queue();
  const replies = new Map();
  for (const mail of host.outbox) replies.set(mail.to, (replies.get(mail.to) ?? 0) + 1);
  let once = 0;
  const notOnce = [];
  for (let i = 0; i < n; i += 1) {
    const count = replies.get(recipientOf(i)) ?? 0;
    if (count === 1) once += 1;
    else notOnce.push(`${i}:${count}`);
  }
  const incident = host.outbox.filter((mail) => String(mail.subject).includes('Typeform webhook disabled'));
  const firsts = incident.filter((mail) => !/Resolved|Still/.test(mail.subject));
  const disabledAt = server.sender.disables.map((entry) => entry.at);
  const figures = {
    mode, modeledDays: days, submissions: n, answeredExactlyOnce: once, notOnce: notOnce.slice(0, 10),
    deliveryAttempts: server.sender.totals.attempts, delivered: server.sender.totals.delivered, failedAttempts: server.sender.totals.failed,
    webhookDisabled: server.sender.totals.disabled, disabledAtHour: disabledAt.map((at) => ((at - t0) / 3_600_000).toFixed(2)),
    incidentFirstMails: firsts.length, incidentReminders: incident.filter((mail) => /Still/.test(mail.subject)).length,
    incidentRecoveryMails: incident.filter((mail) => /Resolved/.test(mail.subject)).length,
    detectionMinutes: firsts.map((mail, i) => (disabledAt[i] === undefined ? null : Math.round((Date.parse(mail.sentAt) - disabledAt[i]) / MIN))),
    webhookEnabledAtEnd: server.typeform.webhooksOf(FORM)[0]?.enabled,
    recoveredRows: rows.filter((row) => String(row.event_id).startsWith('reconciled:')).length,
    rowsInQueue: rows.length,
    rejectedJunk: flood, wallSeconds: Math.round((Date.now() - started) / 1000),
  };
  await rt.close();
  return figures;
}

for (const mode of modes) {
  const figures = await outage(mode);
  console.log(`\ntypeformRedirect=${mode}`);
  for (const [key, value] of Object.entries(figures)) console.log(`  ${key.padEnd(22)} ${Array.isArray(value) ? JSON.stringify(value) : value}`);
}
