// Issue #29 end to end: a retired model gives way to the next of the list, every reply's tokens are kept, and a daily token budget.
import { describe, expect, it } from 'vitest';
import { fullRun, queueColumn, runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const STAFF = 'staff@example.com';
const RETIRED = 'gemini-2.0-flash';
const CURRENT = 'gemini-3.5-flash';

interface LogLine {
  event_id: string;
  from: string;
  to: string;
  by: string;
  detail: string;
}

function delivery(n: number): string {
  return submission(n, (body) => {
    body.form_response.answers[1].email = `r${n}@example.com`;
  });
}

describe('models that retire, token ledger and budget, in the runtime', () => {
  let rt: Runtime;

  const tick = () => fullRun(rt);
  const log = (): LogLine[] => {
    const sheet = rt.sheet('Log');
    return sheet.rows.map((cells) => Object.fromEntries(sheet.header.map((name, i) => [String(name), String(cells[i] ?? '')])) as unknown as LogLine);
  };
  const written = () => log().filter((line) => line.from === 'GENERATING' && (line.to === 'READY' || line.to === 'AWAITING_APPROVAL'));
  const staffMails = () => rt.host.outbox.filter((mail: any) => mail.to === STAFF);
  const respondentMails = () => rt.host.outbox.filter((mail: any) => mail.to !== STAFF);
  const incident = (code: string) => {
    const raw = rt.host.properties.get(`FQ_INCIDENT_${code}`);
    return raw === null ? null : JSON.parse(raw);
  };
  const retired404s = () => rt.host.faults.history.filter((use: any) => use.kind === 'status 404').length;

  it('a first model answering 404 gives way to the second in the same run: one incident, no attempt charged, the model on each row\'s Log line', async () => {
    rt = await freshRuntime({ props: { GEMINI_MODEL: `${RETIRED}, ${CURRENT}` } });
    rt.host.faults.add({ target: 'gemini', status: 404, model: RETIRED });
    for (const n of [1, 2, 3]) await rt.deliver(delivery(n));

    await tick();
    expect(rt.queue().map((row) => row.status)).toEqual(['SENT', 'SENT', 'SENT']);
    // One attempt each: the claim's, spent on the model that answered; the 404 charged nothing.
    expect(rt.queue().map((row) => Number(row.attempts))).toEqual([1, 1, 1]);
    expect(respondentMails()).toHaveLength(3);
    expect(written()).toHaveLength(3);
    for (const line of written()) expect(line.detail).toMatch(new RegExp(`model ${CURRENT}; tokens: prompt \\d+, output \\d+, thinking \\d+; est\\. \\$\\d`));
    const retiredMails = staffMails().filter((mail: any) => mail.subject.includes('Gemini model retired'));
    expect(retiredMails).toHaveLength(1);
    expect(retiredMails[0].body).toContain(`model ${RETIRED}`);
    expect(retiredMails[0].body).toContain(`now written by ${CURRENT}`);
    expect(incident('GEMINI_MODEL_NOT_FOUND')).toBeNull();
    const asked404 = retired404s();
    expect(asked404).toBeGreaterThanOrEqual(1);

    // The next runs skip the retired id (kept in FQ_MODELS_RETIRED): no 404 again, no second mail.
    for (const n of [4, 5]) await rt.deliver(delivery(n));
    await tick();
    await tick();
    expect(rt.queue().filter((row) => row.status === 'SENT')).toHaveLength(5);
    expect(retired404s()).toBe(asked404);
    expect(staffMails().filter((mail: any) => mail.subject.includes('Gemini model retired'))).toHaveLength(1);
    expect(JSON.parse(rt.host.properties.get('FQ_MODELS_RETIRED') as string)).toHaveProperty(RETIRED);
  });

  it('without a model left in the list a 404 still pauses generation with the row\'s attempt given back', async () => {
    rt = await freshRuntime({ props: { GEMINI_MODEL: RETIRED } });
    rt.host.faults.add({ target: 'gemini', status: 404, model: RETIRED });
    await rt.deliver(delivery(1));
    await tick();
    expect(rt.queue()[0]).toMatchObject({ status: 'PENDING' });
    expect(Number(rt.queue()[0].attempts)).toBe(0);
    expect(incident('GEMINI_MODEL_NOT_FOUND')).toMatchObject({ state: 'open' });
    expect(incident('GEMINI_MODEL_RETIRED')).toBeNull();
  });

  it('every generated row has its tokens in the Log, and the day\'s totals per form and model reach the daily summary', async () => {
    rt = await freshRuntime({ props: { DAILY_SUMMARY: 'true' } });
    // The first run of the day sends the (empty) summary; the replies below are in the next day's.
    await tick();
    for (const n of [1, 2, 3, 4, 5]) await rt.deliver(delivery(n));
    await tick();
    expect(written()).toHaveLength(5);
    const tokens = written().map((line) => {
      const m = /tokens: prompt (\d+), output (\d+), thinking (\d+)/.exec(line.detail);
      expect(m, line.detail).not.toBeNull();
      return m!.slice(1).map(Number);
    });
    for (const [prompt, output] of tokens) {
      expect(prompt).toBeGreaterThan(0);
      expect(output).toBeGreaterThan(0);
    }
    const stored = JSON.parse(rt.host.properties.get('FQ_TOKENS') as string);
    const [key] = Object.keys(stored.day);
    expect(key).toMatch(new RegExp(`\\|${CURRENT}$`));
    expect(stored.day[key]).toMatchObject({ replies: 5, calls: 5, prompt: tokens.reduce((s, t) => s + t[0], 0), output: tokens.reduce((s, t) => s + t[1], 0) });
    expect(stored.day[key].cost).toBeGreaterThan(0);
    expect(stored.month[key]).toEqual(stored.day[key]);

    // The next day's first run: its summary names yesterday's and the month's totals.
    rt.host.properties.set('FQ_DAILY_SUMMARY_SENT', '2000-01-01');
    await tick();
    const summaries = staffMails().filter((mail: any) => mail.subject.includes('Daily summary'));
    const last = summaries[summaries.length - 1];
    expect(last.body).toContain('Replies, tokens and estimated cost');
    expect(last.body).toMatch(new RegExp(`${CURRENT}: 5 replies \\(5 calls\\), tokens prompt`));
  });

  it('a daily token budget reached pauses generation (rows wait PENDING, an approved reply is still mailed) and the next day resumes by itself', async () => {
    rt = await freshRuntime({ props: { DAILY_TOKEN_BUDGET: '1', GEMINI_CONCURRENCY: '1' } });
    await rt.host.edit({ sheet: 'Config', a1: 'H2', value: 'TRUE', user: 'owner@example.com' });
    for (const n of [1, 2]) await rt.deliver(delivery(n));

    await tick();
    // The first round spends past the budget: the second row waits, unclaimed.
    expect(rt.queue().map((row) => row.status)).toEqual(['AWAITING_APPROVAL', 'PENDING']);
    expect(Number(rt.queue()[1].attempts)).toBe(0);
    expect(incident('GEMINI_BUDGET_REACHED')).toMatchObject({ state: 'open' });
    const requests = rt.gemini.requests.length;

    await rt.host.edit({ sheet: 'Queue', a1: `${queueColumn('status')}2`, value: 'APPROVED', user: 'ana@example.com' });
    await tick();
    expect(rt.queue().map((row) => row.status)).toEqual(['SENT', 'PENDING']);
    expect(respondentMails().map((mail: any) => mail.to)).toEqual(['r1@example.com']);
    expect(rt.gemini.requests).toHaveLength(requests); // no Gemini call while the budget holds
    expect(staffMails().filter((mail: any) => mail.subject.includes('Daily token budget reached'))).toHaveLength(1);

    // A new calendar day: what was spent belongs to yesterday (the script's day key moves on by itself).
    const stored = JSON.parse(rt.host.properties.get('FQ_TOKENS') as string);
    rt.host.properties.set('FQ_TOKENS', JSON.stringify({ ...stored, dayKey: '2000-01-01' }));
    await tick();
    expect(rt.queue()[1].status).toBe('AWAITING_APPROVAL');
    expect(incident('GEMINI_BUDGET_REACHED')).toMatchObject({ state: 'cleared' });
  });
});
