// One incident per root cause, end to end: no Gemini call without a key, an outage ended by Gemini's answer, and doGet agreeing with open incidents.
import { describe, expect, it } from 'vitest';
import { GEMINI_KEY, getHealth, runtimePerFile, submission, type Runtime, type Mail } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const MINUTE = 60_000;
const STAFF = 'staff@example.com';

let rt: Runtime | undefined;

function runtime(): Runtime {
  if (!rt) throw new Error('no runtime');
  return rt;
}

function triageSubjects(): string[] {
  return runtime()
    .host.outbox.filter((mail: Mail) => mail.to === STAFF && mail.subject.startsWith('[formqueue]'))
    .map((mail: Mail) => mail.subject);
}

function incident(code: string): any {
  const json = runtime().host.properties.get(`FQ_INCIDENT_${code}`);
  return json ? JSON.parse(json) : null;
}

async function tick(): Promise<string> {
  const execution = await runtime().run('processQueue');
  expect(execution.status, JSON.stringify(execution.error)).toBe('ok');
  return String(execution.value);
}

async function minutes(count: number): Promise<void> {
  for (let minute = 0; minute < count; minute++) {
    await tick();
    runtime().host.advanceClock(MINUTE);
  }
}

describe('one incident per root cause in the local runtime', () => {

  it('GEMINI_API_KEY removed: "Setting missing" only, no Gemini call and no "API key invalid"; the key back, one Resolved mail', async () => {
    rt = await freshRuntime();
    runtime().host.properties.delete('GEMINI_API_KEY');
    await runtime().deliver(submission(1));
    const asked = runtime().gemini.requests.length;
    await minutes(6);
    expect(runtime().gemini.requests.length).toBe(asked);
    expect(runtime().queue().map((row) => [row.status, Number(row.attempts || 0)])).toEqual([['PENDING', 0]]);
    expect(incident('GEMINI_KEY_INVALID')).toBeNull();
    expect(triageSubjects()).toEqual([expect.stringMatching(/^\[formqueue\] Setting missing — /)]);

    runtime().host.properties.set('GEMINI_API_KEY', GEMINI_KEY);
    await minutes(12);
    expect(runtime().queue().map((row) => row.status)).toEqual(['SENT']);
    const subjects = triageSubjects();
    expect(subjects).toHaveLength(2);
    expect(subjects[1]).toMatch(/^\[formqueue\] Resolved: Setting missing/);
  }, 60_000);

  it('a recovery run killed after Gemini answered still ends "Gemini unavailable" at that answer: no reminder, and the outage lasts as long as it did', async () => {
    rt = await freshRuntime();
    runtime().host.faults.add({ target: 'gemini', status: 503, body: '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}' });
    for (let n = 1; n <= 3; n++) await runtime().deliver(submission(n));
    await minutes(20);
    expect(incident('GEMINI_UNAVAILABLE')).toMatchObject({ state: 'open', mailsSent: 1 });
    runtime().host.faults.clear();
    // Gemini answers again, and the run dies inside its first mail (Apps Script kills it: nothing after runs).
    runtime().host.faults.add({ target: 'mail', crashBeforeSend: 1 });
    // The paused generation is looked at again within minutes: the first run that asks Gemini is the one killed.
    let killed = await runtime().run('processQueue');
    for (let minute = 0; minute < 10 && killed.status === 'ok'; minute++) {
      runtime().host.advanceClock(MINUTE);
      killed = await runtime().run('processQueue');
    }
    expect(killed.status).not.toBe('ok');
    const answeredAt = runtime().host.now();
    expect(incident('GEMINI_UNAVAILABLE')).toMatchObject({ state: 'cleared' });
    expect(incident('GEMINI_UNAVAILABLE').clearedAt).toBeLessThanOrEqual(answeredAt);
    // How many minutes that is depends on the back-off's random jitter (which later run is the first to ask Gemini
    // again): 20 minutes of outage plus one or two, so the Resolved mail must say exactly what the incident held then.
    const atAnswer = incident('GEMINI_UNAVAILABLE');
    const lastedMinutes = Math.floor((atAnswer.clearedAt - atAnswer.firstSeen) / MINUTE);
    expect(lastedMinutes).toBeGreaterThanOrEqual(19);
    expect(lastedMinutes).toBeLessThanOrEqual(30); // the outage's 20 minutes and at most the 10 the loop above waits

    // An hour on, the rows the killed run held are long sorted out: one Resolved mail, no "Still" reminder.
    await minutes(60);
    const subjects = triageSubjects().filter((subject) => subject.includes('Gemini unavailable'));
    expect(subjects).toEqual([expect.stringMatching(/^\[formqueue\] Gemini unavailable — /), expect.stringMatching(new RegExp(`^\\[formqueue\\] Resolved: Gemini unavailable \\(lasted ${lastedMinutes} min\\)`))]);
  }, 120_000);

  it('doGet agrees with the incidents it lists: ROWS_NEED_A_PERSON open and listed while a row needs a person, neither once staff fixed it', async () => {
    rt = await freshRuntime();
    await runtime().deliver(submission(1, (body) => {
      body.form_response.answers.find((answer: any) => answer.type === 'email').email = 'mina.okafor@example';
    }));
    await tick();
    expect(runtime().queue()[0].status).toBe('FAILED');
    expect(incident('ROWS_NEED_A_PERSON')).toMatchObject({ state: 'open' });
    expect(await getHealth(runtime())).toMatchObject({ ok: false, needsPerson: 1, openIncidents: [expect.objectContaining({ code: 'ROWS_NEED_A_PERSON' })] });
    const header = runtime().sheet('Queue').header;
    const column = String.fromCharCode(65 + header.indexOf('status'));
    await runtime().host.edit({ sheet: 'Queue', a1: `${column}2`, value: 'SKIPPED', user: 'ana@example.com' });
    expect(runtime().queue()[0].status).toBe('SKIPPED');
    // The incident is still stored open (the next run clears it), but the answer lists nothing it does not count.
    expect(incident('ROWS_NEED_A_PERSON')).toMatchObject({ state: 'open' });
    expect(await getHealth(runtime())).toMatchObject({ ok: true, needsPerson: 0, openIncidents: [] });
  }, 60_000);
});
