// The review trail end to end: an edited approval keeps the model's draft beside what was sent, and the Log names the approver and the change.
import { describe, expect, it } from 'vitest';
import { fullRun, queueColumn, runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const ANA = 'ana@example.com';
describe('the review trail in the runtime', () => {
  let rt: Runtime;

  const tick = () => fullRun(rt);
  const logOf = (eventId: string) => {
    const sheet = rt.sheet('Log');
    const col = (name: string) => sheet.header.indexOf(name);
    return sheet.rows.filter((cells) => cells[col('event_id')] === eventId).map((cells) => ({
      from: String(cells[col('from')]), to: String(cells[col('to')]), by: String(cells[col('by')]), detail: String(cells[col('detail')]),
    }));
  };

  it('an edited approval keeps the model\'s text in Payloads and the reply sent in Queue; the Log names the approver and how much changed', async () => {
    rt = await freshRuntime({ props: { DAILY_SUMMARY: 'true' } });
    await rt.host.edit({ sheet: 'Config', a1: 'H2', value: 'TRUE', user: 'owner@example.com' });
    const bodies = [1, 2].map((n) => submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; }));
    for (const body of bodies) await rt.deliver(body);
    await tick();
    const [edited, asWritten] = rt.queue();
    expect([edited.status, asWritten.status]).toEqual(['AWAITING_APPROVAL', 'AWAITING_APPROVAL']);
    const draft = String(edited.result);
    const sent = `${draft.slice(0, 40)} — and well argued.${draft.slice(40)}`;

    await rt.host.edit({ sheet: 'Queue', a1: `${queueColumn('result')}2`, value: sent, user: ANA });
    await rt.host.edit({ sheet: 'Queue', a1: `${queueColumn('result')}2`, value: `${sent}\n— Ana`, user: ANA }); // a second edit keeps the first draft
    await rt.host.edit({ sheet: 'Queue', a1: `${queueColumn('status')}2`, value: 'APPROVED', user: ANA });
    await rt.host.edit({ sheet: 'Queue', a1: `${queueColumn('status')}3`, value: 'APPROVED', user: ANA });
    await tick();

    expect(rt.queue().map((row) => row.status)).toEqual(['SENT', 'SENT']);
    expect(rt.queue()[0].result).toBe(`${sent}\n— Ana`);
    const payloads = rt.sheet('Payloads').rows.filter((cells) => cells[0] === `draft:${edited.event_id}`);
    expect(payloads).toHaveLength(1);
    expect(payloads[0][3]).toBe(draft);
    expect(rt.host.outbox.find((mail: any) => mail.to === 'r1@example.com').body).toContain('— Ana');

    const approval = logOf(String(edited.event_id)).find((line) => line.to === 'APPROVED');
    expect(approval?.by).toBe(ANA);
    const change = /^approved; reply edited by staff: ([\d,]+) characters changed \(removed and added lines\) against the model's draft of ([\d,]+) \(the draft is in Payloads as draft:(\w+)\); waited .* for approval$/.exec(approval?.detail ?? '');
    expect(change, approval?.detail).not.toBeNull();
    expect(Number(change![2].replace(/,/g, ''))).toBe(draft.length);
    expect(change![3]).toBe(edited.event_id);
    // The line holding the insertion counts removed and added, plus the line added at the end; the other lines not at all.
    const touched = draft.split('\n')[draft.slice(0, 40).split('\n').length - 1];
    const expected = touched.length + 1 + (touched.length + ' — and well argued.'.length) + 1 + '— Ana'.length + 1;
    expect(Number(change![1].replace(/,/g, ''))).toBe(expected);
    expect(expected).toBeLessThan(draft.length + sent.length); // a rewrite would count both texts whole
    const plain = logOf(String(asWritten.event_id)).find((line) => line.to === 'APPROVED');
    expect(plain?.by).toBe(ANA);
    expect(plain?.detail).toMatch(/^approved; reply as Gemini wrote it; waited .* for approval$/);
    expect(rt.sheet('Payloads').rows.some((cells) => cells[0] === `draft:${asWritten.event_id}`)).toBe(false);

    // The next daily summary counts them: one approved as written, one edited, with the median wait.
    rt.host.properties.set('FQ_DAILY_SUMMARY_SENT', '2000-01-01');
    await tick();
    const summaries = rt.host.outbox.filter((mail: any) => mail.subject.includes('Daily summary'));
    expect(summaries[summaries.length - 1].body).toMatch(/Replies that waited for approval[\s\S]*: 1 approved as written, 1 edited, 0 skipped; median wait for approval \d+ min/);
  });

  it('Preview reply shows the selected row\'s reply with its model, tokens and cost, and changes nothing', async () => {
    rt = await freshRuntime({ props: { GEMINI_MODEL: 'gemini-2.0-flash, gemini-3.5-flash' } });
    rt.host.faults.add({ target: 'gemini', status: 404, model: 'gemini-2.0-flash' });
    await rt.host.edit({ sheet: 'Config', a1: 'H2', value: 'TRUE', user: 'owner@example.com' });
    await rt.deliver(submission(7, (body) => { body.form_response.answers[1].email = 'r7@example.com'; }));
    await tick();
    const before = rt.queue()[0];
    expect(before.status).toBe('AWAITING_APPROVAL');
    const logLines = rt.sheet('Log').rows.length;
    const mails = rt.host.outbox.length;

    const run = await rt.host.run('menuPreviewReply', [], { kind: 'menu', user: ANA, activeRange: { sheet: 'Queue', a1: 'C2' } });
    expect(run.status, JSON.stringify(run.error)).toBe('ok');
    const dialog = rt.host.ui.dialogs.at(-1);
    expect(dialog.title).toBe('formqueue: reply preview for row 2');
    expect(dialog.content).toContain('Model gemini-2.0-flash: not found (404)');
    expect(dialog.content).toContain('Dear Mina Okafor');
    expect(dialog.content).toMatch(/Model: gemini-3\.5-flash\nTokens: prompt \d+, output \d+, thinking \d+\nEstimated cost: \$0\.\d{5}/);
    expect(rt.queue()[0]).toEqual(before);
    expect(rt.sheet('Log').rows).toHaveLength(logLines);
    expect(rt.host.outbox).toHaveLength(mails);
  });
});
