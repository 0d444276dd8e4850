// Triage end to end: the built bundle's processQueue and doGet in the local runtime, with injected faults.
// Time: host.advanceClock moves Date.now() inside executions too (the newer tests use it); the older ones make "a
// minute pass" with letTimePass(), which moves every time formqueue stored in Script Properties one minute back.
import { afterEach, describe, expect, it } from 'vitest';
import { DIRTY_PROPERTY } from '../../src/core/domain/queue/tick-gate';
import { GEMINI_KEY, getHealth, letTimePass, runtimePerFile, submission, TOKEN, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const MINUTE = 60_000;
const STAFF = 'staff@example.com';

interface Mail {
  to: string;
  subject: string;
  body: string;
  htmlBody: string;
}

function triageMails(rt: Runtime): Mail[] {
  return rt.host.outbox.filter((mail: Mail) => mail.to === STAFF && mail.subject.startsWith('[formqueue]'));
}

function incident(rt: Runtime, code: string): any {
  const json = rt.host.properties.get(`FQ_INCIDENT_${code}`);
  return json ? JSON.parse(json) : null;
}

/** The labelled lines a person reads first, in order, up to the Details section. */
function firstLines(mail: Mail): string[] {
  return mail.body.split('\n\nDetails')[0].split('\n');
}

/** The operator's footer: the code, the class, event_ids, the last error; nothing of it above, where staff read. */
function footerLines(mail: Mail): string[] {
  const [staff, footer = ''] = mail.body.split('\nFor the person who set this up\n');
  expect(staff).not.toMatch(/Class:|Code:|\b(docs|src)\/\S+\.(md|ts)/);
  return footer.split('\n');
}

async function tick(rt: Runtime): Promise<string> {
  const execution = await rt.run('processQueue');
  expect(execution.status, JSON.stringify(execution.error)).toBe('ok');
  return String(execution.value);
}

describe('triage mail in the local runtime', () => {
  let rt: Runtime | undefined;
  afterEach(async () => {
    if (!rt) return;
    // No secret in any triage mail, whatever the test did.
    for (const mail of triageMails(rt)) {
      for (const secret of [TOKEN, GEMINI_KEY]) {
        expect(mail.subject + mail.body + mail.htmlBody).not.toContain(secret);
      }
    }
    rt = undefined;
  });

  it('ten minutes of "Error code INTERNAL" with no PENDING rows: one incident mail saying no user impact, then one recovery mail saying how long it lasted', async () => {
    rt = await freshRuntime();
    expect(await tick(rt)).toMatch(/^Generated 0, sent 0/); // a healthy run: the last known figures are 0 waiting
    letTimePass(rt.host, 15 * MINUTE); // an idle queue touches Sheets only at the 15-minute safety sweep
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    for (let minute = 0; minute < 10; minute++) {
      await tick(rt);
      letTimePass(rt.host, MINUTE);
    }
    expect(incident(rt, 'SHEETS_UNAVAILABLE')).toMatchObject({ state: 'open', count: 10, runs: 10, mailsSent: 1 });
    const mails = triageMails(rt);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('[formqueue] Sheets unavailable — 0 waiting, no user impact');
    const lines = firstLines(mails[0]);
    expect(lines[0]).toBe("What happened: Google's spreadsheet service failed when formqueue read or wrote the Queue sheet. (Error code INTERNAL)");
    expect(footerLines(mails[0])).toContain('Code: SHEETS_UNAVAILABLE (class: Google platform outage)');
    expect(lines[1]).toMatch(/^Respondents affected: No\. A Google error with no PENDING rows means no user impact: 0 PENDING, nothing else waiting \(the queue could not be read; figures as last read \d+ min ago\)\.$/);
    expect(lines[2]).toMatch(/^Queue: PENDING 0, GENERATING 0, READY 0, .* \(could not be read; as last read \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/);
    expect(lines[3]).toBe('Oldest PENDING: none');
    expect(lines[4]).toBe('Rows that need a person: 0');
    expect(lines[5]).toMatch(/^Next step: Nothing to do while it is short: Google's spreadsheet service is failing/);
    expect(lines[6]).toBe('Repeats fold into this incident: at most one reminder every 1 h, and one mail when it clears.');

    // While it lasts, the health endpoint says so from the last figures.
    const during = await getHealth(rt);
    expect(during).toMatchObject({ ok: false, readable: false, waiting: 0, openIncidents: [{ code: 'SHEETS_UNAVAILABLE', count: 10 }] });

    rt.host.faults.clear();
    for (let minute = 0; minute < 4; minute++) {
      await tick(rt);
      letTimePass(rt.host, MINUTE);
    }
    expect(incident(rt, 'SHEETS_UNAVAILABLE')).toMatchObject({ state: 'cleared' });
    expect(triageMails(rt)).toHaveLength(1); // cleared, but not yet quiet for 5 minutes
    letTimePass(rt.host, MINUTE);
    await tick(rt); // 5 minutes after it cleared: this tick is due by itself and sends the recovery mail
    await tick(rt);
    const after = triageMails(rt);
    expect(after).toHaveLength(2);
    expect(after[1].subject).toBe('[formqueue] Resolved: Sheets unavailable (lasted 10 min)');
    expect(after[1].body.split('\n')[0]).toMatch(/^What happened: Sheets unavailable is over\. It lasted 10 min \(first seen .* UTC, cleared .* UTC\), seen 10 times\.$/);
    expect(after[1].body).toContain('Respondents affected: No.');
    expect(after[1].body).toContain('Next step: Nothing: this incident is over.');
    expect(incident(rt, 'SHEETS_UNAVAILABLE')).toBeNull();
    expect(await getHealth(rt)).toMatchObject({ ok: true, readable: true, openIncidents: [] });
  });

  it('an outage with PENDING rows: one mail saying respondents wait, and the recovery mail counts the replies caught up', async () => {
    rt = await freshRuntime({ props: { PAUSED: 'true' } });
    await rt.deliver(submission(1));
    await rt.deliver(submission(2));
    expect(await tick(rt)).toMatch(/paused/); // the figures now on record: 2 PENDING
    rt.host.properties.delete('PAUSED');
    letTimePass(rt.host, 15 * MINUTE); // the safety sweep: the first tick to meet the outage
    rt.host.faults.add({ target: 'sheets', error: 'Exception: Error code INTERNAL' });
    for (let minute = 0; minute < 10; minute++) {
      await tick(rt);
      letTimePass(rt.host, MINUTE);
    }
    const mails = triageMails(rt);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('[formqueue] Sheets unavailable — 2 waiting, oldest 15 min');
    const lines = firstLines(mails[0]);
    expect(lines[1]).toMatch(/^Respondents affected: Yes\. A Google error with PENDING rows delays replies: 2 respondents are waiting for a reply \(PENDING 2; the oldest has waited 15 min\)/);
    expect(lines[3]).toMatch(/^Oldest PENDING: /);
    expect(rt.queue().map((row) => row.status)).toEqual(['PENDING', 'PENDING']);

    rt.host.faults.clear();
    await tick(rt); // Sheets answers again: both replies go out
    expect(rt.queue().map((row) => row.status)).toEqual(['SENT', 'SENT']);
    letTimePass(rt.host, 5 * MINUTE);
    await tick(rt);
    const after = triageMails(rt);
    expect(after).toHaveLength(2);
    expect(after[1].subject).toBe('[formqueue] Resolved: Sheets unavailable (lasted 10 min) — 2 caught up');
    expect(after[1].body).toContain('Caught up: 2 replies sent');
  });

  it('a bad Gemini key over six ticks: one mail, rows kept PENDING with no attempt burned', async () => {
    rt = await freshRuntime({ props: { MAX_MAILS_PER_RECIPIENT_PER_DAY: '20' } }); // every submission has the same respondent
    rt.host.faults.add({ target: 'gemini', status: 400 });
    for (let n = 1; n <= 6; n++) {
      await rt.deliver(submission(n)); // deliveries keep coming while the key is bad; each makes the next tick due
      await tick(rt);
      letTimePass(rt.host, MINUTE);
    }
    expect(incident(rt, 'GEMINI_KEY_INVALID')).toMatchObject({ state: 'open', runs: 6, mailsSent: 1 });
    const mails = triageMails(rt);
    expect(mails).toHaveLength(1);
    // The first mail goes at the first refusal, when one row waited.
    expect(mails[0].subject).toMatch(/^\[formqueue\] Gemini API key invalid — 1 waiting, oldest \d+ s$/);
    const lines = firstLines(mails[0]);
    expect(lines[0]).toMatch(/^What happened: Gemini refused the API key \(400 API_KEY_INVALID, 401 or 403\): no reply can be generated\. \(.*API key not valid/);
    expect(footerLines(mails[0])).toContain('Code: GEMINI_KEY_INVALID (class: configuration)');
    expect(lines[1]).toMatch(/^Respondents affected: Yes\. 1 respondent is waiting for a reply \(PENDING 1/);
    expect(firstLines(mails[0]).find((line) => line.startsWith('Next step:'))).toBe(
      'Next step: Create a key in Google AI Studio and set Script Property GEMINI_API_KEY; rows keep their place and will be generated once the key works.',
    );
    const rows = rt.queue();
    expect(rows.map((row) => row.status)).toEqual(Array(6).fill('PENDING'));
    expect(rows.map((row) => Number(row.attempts || 0))).toEqual(Array(6).fill(0));
    // Each run stops after its first round of (at most GEMINI_CONCURRENCY = 4) calls instead of trying every row.
    const callsPerRun = new Map<string, number>();
    for (const use of rt.host.faults.history) callsPerRun.set(use.executionId, (callsPerRun.get(use.executionId) ?? 0) + 1);
    expect([...callsPerRun.values()]).toEqual([1, 2, 3, 4, 4, 4]);

    // An hour after the mail, still refused: exactly one reminder.
    letTimePass(rt.host, 54 * MINUTE);
    await rt.deliver(submission(7));
    await tick(rt);
    await rt.deliver(submission(8));
    await tick(rt);
    const later = triageMails(rt);
    expect(later).toHaveLength(2);
    expect(later[1].subject).toMatch(/^\[formqueue\] Still: Gemini API key invalid \(for 1 h, 7 times\) — 7 waiting/);

    // A working key again: the rows kept their place and go out; one recovery mail after 5 quiet minutes.
    rt.host.faults.clear();
    letTimePass(rt.host, 5 * MINUTE); // the paused generation is looked at again after 5 minutes
    await tick(rt);
    expect(rt.queue().map((row) => row.status)).toEqual(Array(8).fill('SENT'));
    letTimePass(rt.host, 5 * MINUTE);
    await tick(rt);
    const recovered = triageMails(rt);
    expect(recovered).toHaveLength(3);
    expect(recovered[2].subject).toBe('[formqueue] Resolved: Gemini API key invalid (lasted 1 h 5 min) — 8 caught up');
    expect(recovered[2].body).toContain('Caught up: 8 replies sent');
  });

  it('a Gemini 503 outage of 40 minutes: rows keep their attempts instead of turning FAILED, one GEMINI_UNAVAILABLE mail, doGet ok:false, then they go out by themselves with one recovery mail', async () => {
    rt = await freshRuntime();
    rt.host.faults.add({ target: 'gemini', status: 503, body: '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}' });
    for (let n = 1; n <= 3; n++) await rt.deliver(submission(n));
    for (let minute = 0; minute < 40; minute++) {
      await tick(rt);
      rt.host.advanceClock(MINUTE); // script time: back-offs and the 5-minute recheck expire as they would
    }
    const rows = rt.queue();
    expect(rows.map((row) => row.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    // Only the first outage run charges an attempt; 40 minutes used to be 5 attempts each and FAILED.
    for (const row of rows) expect(Number(row.attempts || 0)).toBeLessThanOrEqual(1);
    expect(String(rows[0].error)).toMatch(/^GEMINI_UNAVAILABLE: Gemini HTTP 503/);
    expect(incident(rt, 'GEMINI_UNAVAILABLE')).toMatchObject({ state: 'open', mailsSent: 1 });
    const mails = triageMails(rt);
    expect(mails.map((mail) => mail.subject)).toEqual([expect.stringMatching(/^\[formqueue\] Gemini unavailable — 3 waiting/)]);
    expect(footerLines(mails[0])).toContain('Code: GEMINI_UNAVAILABLE (class: Google platform outage)');
    expect(await getHealth(rt)).toMatchObject({ ok: false, openIncidents: [expect.objectContaining({ code: 'GEMINI_UNAVAILABLE' })] });

    rt.host.faults.clear();
    for (let minute = 0; minute < 12; minute++) {
      await tick(rt);
      rt.host.advanceClock(MINUTE);
    }
    expect(rt.queue().map((row) => row.status)).toEqual(['SENT', 'SENT', 'SENT']);
    const after = triageMails(rt);
    expect(after).toHaveLength(2);
    expect(after[1].subject).toMatch(/^\[formqueue\] Resolved: Gemini unavailable \(lasted .*\) — 3 caught up$/);
    expect(incident(rt, 'GEMINI_UNAVAILABLE')).toBeNull();
  });

  it('a timeout outage with a single waiting row is charged as usual and ends FAILED (one row is not a systemic outage)', async () => {
    rt = await freshRuntime();
    rt.host.faults.add({ target: 'gemini', timeout: true });
    await rt.deliver(submission(1));
    for (let minute = 0; minute < 40; minute++) {
      await tick(rt);
      rt.host.advanceClock(MINUTE);
    }
    const [row] = rt.queue();
    expect(row.status).toBe('FAILED');
    expect(String(row.error)).toMatch(/^GEMINI_RETRYABLE: gave up after 5 attempts/);
  });

  it('an unexpected exception: one mail with the stack (its frames naming formqueue functions in the minified bundle), secrets in it redacted, rows left untouched', async () => {
    rt = await freshRuntime();
    await rt.deliver(submission(1));
    // An error no classifier knows, thrown from inside the run, whose message carries both secrets.
    rt.host.faults.add({ target: 'sheets', error: `TypeError: Cannot read properties of undefined (reading 'status') key=${GEMINI_KEY} token=${TOKEN}` });
    for (let minute = 0; minute < 3; minute++) {
      await tick(rt);
      letTimePass(rt.host, MINUTE);
    }
    const mails = triageMails(rt);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toMatch(/^\[formqueue\] Unexpected error \(code bug\) — /);
    const lines = firstLines(mails[0]);
    expect(lines[0]).toMatch(/^What happened: formqueue hit an error it did not expect\. \(.*key=\[redacted\] token=\[redacted\]/);
    expect(footerLines(mails[0])).toContain('Code: CODE_BUG (class: code bug)');
    expect(firstLines(mails[0]).find((line) => line.startsWith('Next step:'))).toMatch(/^Next step: Rows were left untouched\. Forward this mail \(the stack is redacted\)/);
    const lastError = mails[0].body.split('Last error:\n')[1];
    expect(lastError).toMatch(/\n\s+at /); // the stack, frames included
    // The bundle is minified with keepNames: its frames still name formqueue's own functions for the maintainer.
    expect(lastError).toMatch(/\n\s+at openSpreadsheet \(/);
    expect(lastError).toMatch(/\n\s+at processQueue \(/);
    expect(incident(rt, 'CODE_BUG')).toMatchObject({ state: 'open', runs: 3, mailsSent: 1 });
    const rows = rt.queue();
    expect(rows.map((row) => [row.status, Number(row.attempts || 0)])).toEqual([['PENDING', 0]]);
  });

  it('a deleted Config sheet is a configuration incident naming Set up / repair, not a code bug', async () => {
    rt = await freshRuntime();
    await rt.deliver(submission(1));
    rt.host.ss.sheets = rt.host.ss.sheets.filter((sheet: { name: string }) => sheet.name !== 'Config');
    await tick(rt);
    await tick(rt);
    expect(incident(rt, 'CODE_BUG')).toBeNull();
    expect(incident(rt, 'CONFIG_MISSING')).toMatchObject({ state: 'open' });
    const mails = triageMails(rt);
    expect(mails).toHaveLength(1);
    expect(mails[0].body).toContain('Set up / repair');
    expect(rt.queue().map((row) => row.status)).toEqual(['PENDING']);
  });

  it('mail quota 0: the incident mail waits, and goes out once when the quota returns', async () => {
    rt = await freshRuntime();
    await tick(rt);
    letTimePass(rt.host, 15 * MINUTE);
    rt.host.setMailQuota(0);
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    for (let minute = 0; minute < 3; minute++) {
      await tick(rt);
      letTimePass(rt.host, MINUTE);
    }
    expect(rt.host.outbox).toHaveLength(0);
    expect(incident(rt, 'SHEETS_UNAVAILABLE')).toMatchObject({ state: 'open', count: 3, mailsSent: 0, lastMailedAt: null });
    rt.host.setMailQuota(100);
    for (let minute = 0; minute < 3; minute++) {
      await tick(rt);
      letTimePass(rt.host, MINUTE);
    }
    const mails = triageMails(rt);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('[formqueue] Sheets unavailable — 0 waiting, no user impact');
    expect(incident(rt, 'SHEETS_UNAVAILABLE')).toMatchObject({ count: 6, mailsSent: 1 });
  });

  it('a junk flood Google partly refuses, with nothing waiting: the mail never says "no user impact"; it says a respondent may be affected and what to check', { timeout: 240_000 }, async () => {
    rt = await freshRuntime({ host: { latency: 'google:0.1', latencySeed: 11 } });
    // Past 30 at once Google refuses the rest before formqueue runs: one of them could have been Typeform's.
    const answers = await Promise.all(Array.from({ length: 40 }, (_, n) => rt!.deliver(`{"junk":${n}}`, null)));
    const refused = answers.filter((answer) => answer.unparsed !== undefined).length;
    expect(refused).toBeGreaterThan(0);
    expect(((await (await fetch(`${rt.url}/api/health`)).json()) as { refusedExecutions: number }).refusedExecutions).toBe(refused);
    rt.host.latency = null;
    await tick(rt);
    const [mail] = triageMails(rt);
    expect(mail.subject).toBe('[formqueue] Deliveries rejected — 0 waiting, a respondent may be affected');
    expect(mail.subject + mail.body).not.toContain('no user impact');
    const affected = firstLines(mail).find((line) => line.startsWith('Respondents affected:'));
    expect(affected).toMatch(/^Respondents affected: Possibly\. A respondent may be affected even so: past 30 simultaneous executions Google refuses the rest before formqueue runs/);
    expect(affected).toContain("Check the webhook's delivery log in Typeform (the form → Connect → Webhooks → View deliveries)");
    expect(affected).toContain('with Script Property TYPEFORM_TOKEN set, a daily Typeform check would find them');
  });

  it('one delivery with our token for a form Config does not enable is counted: one "Deliveries rejected" mail saying that respondent waits in Rejected', async () => {
    rt = await freshRuntime();
    await rt.host.edit({ sheet: 'Config', a1: 'A2', value: 'OnlyThisForm', user: 'owner@example.com' });
    expect(await rt.deliver(submission(1))).toMatchObject({ ok: false, error: 'unknown_form' });
    await tick(rt);
    expect(JSON.parse(rt.host.properties.get('FQ_REJECTED_DAY'))).toMatchObject({ count: 1, dropped: 0, kinds: { unknown_form: 1 } });
    expect(incident(rt, 'REJECTED_DELIVERIES')).toMatchObject({ detail: '1 delivery was rejected today (0 without their body): unknown form 1; see the Rejected sheet', mailsSent: 1 });
    const [mail] = triageMails(rt);
    expect(mail.subject).toBe('[formqueue] Deliveries rejected — 0 waiting');
    expect(firstLines(mail)).toContain(
      'Respondents affected: Yes. 1 finished submission came with the webhook token and was refused today (the detail says why): those respondents get no reply until staff accept them from the Rejected sheet (formqueue → Accept rejected delivery). ' +
        "A respondent may be affected even so: past 30 simultaneous executions Google refuses the rest before formqueue runs, and Typeform counts that answer as delivered, so during a burst of rejected requests a real delivery may have been refused without a trace here. Check the webhook's delivery log in Typeform (the form → Connect → Webhooks → View deliveries) for answers that are not formqueue's JSON; with Script Property TYPEFORM_TOKEN set, a daily Typeform check would find them and queue them for approval.",
    );
    expect(footerLines(mail)).toContain('In the repository: docs/reconciliation.md');
    // A second one the same day is counted by the next full run (here woken as a delivery wakes it), and mails nothing more.
    expect(await rt.deliver(submission(2))).toMatchObject({ error: 'unknown_form' });
    rt.host.properties.set(DIRTY_PROPERTY, String(rt.host.now()));
    await tick(rt);
    expect(incident(rt, 'REJECTED_DELIVERIES')).toMatchObject({ detail: expect.stringMatching(/^2 deliveries were rejected today/), mailsSent: 1 });
    expect(triageMails(rt)).toHaveLength(1);
  });

  it('doGet answers the health JSON with the token and {"ok":false,"error":"unauthorized"} without it', async () => {
    rt = await freshRuntime();
    rt.host.faults.add({ target: 'gemini', status: 400 });
    await rt.deliver(submission(1));
    await rt.deliver(submission(2));
    await tick(rt);
    const health = await getHealth(rt);
    expect(health).toMatchObject({
      ok: false,
      readable: true,
      waiting: 2,
      oldestPendingMinutes: 0,
      needsPerson: 0,
      openIncidents: [{ code: 'GEMINI_KEY_INVALID', count: 1 }],
    });
    expect(health.counts).toMatchObject({ PENDING: 2, SENT: 0, FAILED: 0, NEEDS_REVIEW: 0 });
    expect(Date.parse(health.checkedAt)).not.toBeNaN();
    expect(JSON.stringify(health)).not.toContain(TOKEN);
    expect(await getHealth(rt, null)).toEqual({ ok: false, error: 'unauthorized' });
    expect(await getHealth(rt, 'not-the-token')).toEqual({ ok: false, error: 'unauthorized' });
  });

  it('doGet has its own HEALTH_TOKEN: the webhook token does not open it, and a health check without one set is not_configured', async () => {
    rt = await freshRuntime();
    expect(await getHealth(rt)).toMatchObject({ readable: true });
    expect(await getHealth(rt, TOKEN)).toEqual({ ok: false, error: 'unauthorized' });
    rt.host.properties.delete('HEALTH_TOKEN');
    expect(await getHealth(rt, TOKEN)).toEqual({ ok: false, error: 'not_configured' });
  });
});
