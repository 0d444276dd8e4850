// Intake's copy of Config in Script Properties, end to end: a run writes it, a person's Config edit ends it at once.
import { beforeEach, describe, expect, it } from 'vitest';
import { letTimePass, runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const lastDoPost = (rt: Runtime) => [...rt.host.executions].reverse().find((e: any) => e.functionName === 'doPost');
const OWNER = 'owner@example.com';

describe('intake reads Config from the copy a run left in Script Properties', () => {
  let rt: Runtime;
  beforeEach(async () => {
    rt = await freshRuntime();
    // A delivery and a run: the run reads Config and leaves the copy.
    expect(await rt.deliver(submission(1))).toMatchObject({ ok: true, queued: true });
    expect((await rt.run('processQueue')).status).toBe('ok');
    expect(rt.host.properties.get('FQ_INTAKE_FORMS')).toMatch(/"forms":\[\["\*",1,""\]\]/);
  });

  it('queues the next delivery without reading the Config sheet', async () => {
    // Submitted a minute ago, as Typeform sends it: no Archive lookup either (it cannot be archived yet).
    const fresh = submission(2, (b) => void (b.form_response.submitted_at = new Date(Date.now() - 60_000).toISOString()));
    expect(await rt.deliver(fresh)).toMatchObject({ ok: true, queued: true });
    expect(lastDoPost(rt).calls['Sheet.getSheetValues']).toBe(1); // the Queue header only
    expect(lastDoPost(rt).calls['Spreadsheet.getSheetByName']).toBe(2); // Queue and the Journal, neither Config nor Archive
  });

  it('refuses the very next delivery after a person disables the form in Config (the edit ends the copy)', async () => {
    const header = rt.sheet('Config').header.map(String);
    const enabled = String.fromCharCode(65 + header.indexOf('enabled'));
    await rt.host.edit({ sheet: 'Config', a1: `${enabled}2`, value: 'FALSE', user: OWNER });
    expect(await rt.deliver(submission(3))).toMatchObject({ ok: false, error: 'unknown_form' });
    expect(rt.queue()).toHaveLength(1);
  });

  it('takes a new recipient field from Config at once after a person types it', async () => {
    const header = rt.sheet('Config').header.map(String);
    const field = String.fromCharCode(65 + header.indexOf('recipient_field'));
    await rt.host.edit({ sheet: 'Config', a1: `${field}2`, value: 'name', user: OWNER });
    expect(await rt.deliver(submission(4))).toMatchObject({ ok: true, queued: true });
    const name = JSON.parse(submission(4)).form_response.answers.find((a: any) => a.field.ref === 'name').text;
    expect(rt.queue().at(-1)?.recipient).toBe(name);
  });

  it('stops trusting a copy older than five minutes: a Config row deleted without an edit event is honoured then', async () => {
    // Deleting a row fires on-change only, not on-edit: the copy still accepts the form until it is too old.
    await rt.host.edit({ sheet: 'Config', op: 'deleteRows', row: 2, count: 1, user: OWNER });
    expect(await rt.deliver(submission(5))).toMatchObject({ ok: true, queued: true });
    letTimePass(rt.host, 5 * 60_000 + 1);
    expect(await rt.deliver(submission(6))).toMatchObject({ ok: false, error: 'unknown_form' });
  });
});
