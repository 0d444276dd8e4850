// Config that cannot be misread, end to end: approval switched on holds written replies, and Config mistakes are named as such.
import { describe, expect, it } from 'vitest';
import { runtimePerFile, submission, type Runtime, type Mail } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const STAFF = 'staff@example.com';
const OWNER = 'owner@example.com';

let rt: Runtime | undefined;

function runtime(): Runtime {
  if (!rt) throw new Error('no runtime');
  return rt;
}

async function tick(): Promise<string> {
  const execution = await runtime().run('processQueue');
  expect(execution.status, JSON.stringify(execution.error)).toBe('ok');
  return String(execution.value);
}

function triageMails(): Mail[] {
  return runtime().host.outbox.filter((mail: Mail) => mail.to === STAFF && mail.subject.startsWith('[formqueue]'));
}

function replies(): Mail[] {
  return runtime().host.outbox.filter((mail: Mail) => mail.to !== STAFF);
}

/** The A1 address of a Config column in row `row`. */
function configCell(header: string, row = 2): string {
  return `${String.fromCharCode(65 + configColumn(header) - 1)}${row}`;
}

function configColumn(header: string): number {
  const at = runtime().sheet('Config').header.indexOf(header);
  expect(at, header).toBeGreaterThanOrEqual(0);
  return at + 1;
}

function configNote(header: string, row = 2): string {
  return runtime().host.ss.byName('Config').note(row, configColumn(header));
}

function incident(code: string): any {
  const json = runtime().host.properties.get(`FQ_INCIDENT_${code}`);
  return json ? JSON.parse(json) : null;
}

describe('Config that cannot be misread, in the local runtime', () => {

  it('approval switched on after replies were written: the READY rows wait for approval instead of going out unreviewed', async () => {
    rt = await freshRuntime({ props: { MAX_MAILS_PER_RECIPIENT_PER_DAY: '20' } });
    runtime().host.setMailQuota(0); // replies are written but cannot be mailed yet
    for (let n = 1; n <= 3; n++) await runtime().deliver(submission(n));
    await tick();
    expect(runtime().queue().map((row) => row.status)).toEqual(['READY', 'READY', 'READY']);
    await runtime().host.edit({ sheet: 'Config', a1: configCell('approval_required'), value: 'TRUE', user: OWNER });
    runtime().host.setMailQuota(100);
    runtime().host.advanceClock(6 * 60_000); // past the 5 minutes a used-up quota holds sending back
    await tick();
    expect(runtime().queue().map((row) => row.status)).toEqual(['AWAITING_APPROVAL', 'AWAITING_APPROVAL', 'AWAITING_APPROVAL']);
    expect(replies()).toEqual([]);
    const log = runtime().sheet('Log');
    const detail = log.header.indexOf('detail');
    expect(log.rows.filter((line) => String(line[detail]).startsWith('approval is on for this form'))).toHaveLength(3);
  }, 60_000);

  it('a prompt changed in Config after replies were written: the READY rows wait for a person with the reason, nothing stale is mailed; a reply written after the change goes', async () => {
    rt = await freshRuntime({ props: { MAX_MAILS_PER_RECIPIENT_PER_DAY: '20' } });
    runtime().host.setMailQuota(0); // replies are written but cannot be mailed yet
    for (let n = 1; n <= 2; n++) await runtime().deliver(submission(n));
    await tick();
    expect(runtime().queue().map((row) => row.status)).toEqual(['READY', 'READY']);
    await runtime().host.edit({ sheet: 'Config', a1: configCell('prompt'), value: 'Thank them and give the new opening hours: 9 to 5.', user: STAFF });
    runtime().host.setMailQuota(100);
    runtime().host.advanceClock(6 * 60_000); // past the 5 minutes a used-up quota holds sending back
    await tick();
    const rows = runtime().queue();
    expect(rows.map((row) => row.status)).toEqual(['AWAITING_APPROVAL', 'AWAITING_APPROVAL']);
    for (const row of rows) {
      expect(String(row.error)).toMatch(/^TEMPLATE_CHANGED: the form's template \(prompt, subject or body\) changed in Config after this reply was written/);
      expect(String(row.result)).not.toBe('');
    }
    expect(replies()).toEqual([]);
    const log = runtime().sheet('Log');
    const detail = log.header.indexOf('detail');
    expect(log.rows.filter((line) => String(line[detail]).startsWith("held for a person: the form's template"))).toHaveLength(2);

    // A submission after the change is written with the new prompt and mailed as usual; the held rows stay held.
    await runtime().deliver(submission(3));
    await tick();
    expect(runtime().queue().map((row) => row.status)).toEqual(['AWAITING_APPROVAL', 'AWAITING_APPROVAL', 'SENT']);
    expect(replies()).toHaveLength(1);
  }, 60_000);

  it('Set up puts checkboxes on enabled and approval_required: the default row holds TRUE/FALSE, and "yes please" is refused as Sheets refuses it', async () => {
    rt = await freshRuntime();
    const config = runtime().sheet('Config');
    const row = config.rows[0];
    expect([row[configColumn('enabled') - 1], row[configColumn('approval_required') - 1]]).toEqual([true, false]);
    await expect(runtime().host.edit({ sheet: 'Config', a1: configCell('approval_required'), value: 'yes please', user: OWNER })).rejects.toThrow(/violates the data validation rules/);
    await runtime().host.edit({ sheet: 'Config', a1: configCell('approval_required'), value: 'TRUE', user: OWNER });
    // Typed into a plain-text cell TRUE stays text; either way it reads as yes (config-check.ts).
    expect([true, 'TRUE']).toContain(runtime().sheet('Config').rows[0][configColumn('approval_required') - 1]);
    expect(configNote('approval_required')).toBe('');
  }, 60_000);

  it('TRUE typed into reply_to: the cell gets a note naming the problem, and the run mails "Config sheet entry invalid", not "Template invalid"; fixed, the reply goes', async () => {
    rt = await freshRuntime();
    await runtime().host.edit({ sheet: 'Config', a1: configCell('reply_to'), value: 'TRUE', user: OWNER });
    expect(configNote('reply_to')).toBe('formqueue: reply_to "TRUE" is not an email address; write address(es) separated by commas, or leave it empty.');
    await runtime().deliver(submission(1));
    await tick();
    expect(runtime().queue()[0].status).toBe('READY');
    expect(String(runtime().queue()[0].error)).toMatch(/^CONFIG_INVALID: Config for form "\*"|^CONFIG_INVALID: Config for form/);
    expect(replies()).toEqual([]);
    expect(incident('TEMPLATE_INVALID')).toBeNull();
    const subjects = triageMails().map((mail) => mail.subject);
    expect(subjects).toEqual([expect.stringMatching(/^\[formqueue\] Config sheet entry invalid — /)]);
    expect(triageMails()[0].body).toMatch(/reply_to "TRUE" is not (a valid|an) email address/);

    await runtime().host.edit({ sheet: 'Config', a1: configCell('reply_to'), value: '', user: OWNER });
    expect(configNote('reply_to')).toBe('');
    runtime().host.advanceClock(6 * 60_000);
    await tick();
    expect(runtime().queue()[0].status).toBe('SENT');
  }, 60_000);

  it('a model that is not a Gemini model id and a prompt naming {{result}} get notes as they are typed, cleared once fixed', async () => {
    rt = await freshRuntime();
    await runtime().host.edit({ sheet: 'Config', a1: configCell('model'), value: 'gpt-4o', user: OWNER });
    expect(configNote('model')).toBe('formqueue: model "gpt-4o" is not a Gemini model id (like gemini-2.5-flash; several are separated by commas); leave it empty for GEMINI_MODEL.');
    await runtime().host.edit({ sheet: 'Config', a1: configCell('model'), value: 'gemini-2.5-flash', user: OWNER });
    expect(configNote('model')).toBe('');
    await runtime().host.edit({ sheet: 'Config', a1: configCell('prompt'), value: 'Improve on {{result}} for {{answers}}', user: OWNER });
    expect(configNote('prompt')).toMatch(/^formqueue: prompt uses \{\{result\}\}, which only exists once the reply is written/);
  }, 60_000);

  it('a Config from before the checkboxes with "yes please" in approval_required: replies wait for approval, and staff are told what could not be read', async () => {
    rt = await freshRuntime();
    const config = runtime().sheet('Config');
    const row = config.rows[0].slice();
    row[configColumn('approval_required') - 1] = 'yes please';
    runtime().host.loadSheet('Config', config.header, [row]);
    await runtime().deliver(submission(1));
    await tick();
    expect(runtime().queue()[0].status).toBe('AWAITING_APPROVAL');
    expect(replies()).toEqual([]);
    const mails = triageMails();
    expect(mails.map((mail) => mail.subject)).toEqual([expect.stringMatching(/^\[formqueue\] Config sheet entry invalid — /)]);
    expect(mails[0].body).toContain('approval_required "yes please" is neither yes nor no');
    expect(mails[0].body).toContain("until it is fixed the form's replies wait for approval");
  }, 60_000);

  it('"Retry selected" with approval on says the new reply waits for approval, not that it will be mailed', async () => {
    rt = await freshRuntime();
    await runtime().host.edit({ sheet: 'Config', a1: configCell('approval_required'), value: 'TRUE', user: OWNER });
    await runtime().deliver(submission(1, (body) => {
      body.form_response.answers.find((answer: any) => answer.type === 'email').email = 'mina.okafor@example';
    }));
    await tick();
    expect(runtime().queue()[0].status).toBe('FAILED');
    const run = await runtime().host.run('menuRetrySelected', [], { kind: 'menu', user: OWNER, activeRange: { sheet: 'Queue', a1: 'B2' } });
    expect(run.status).toBe('ok');
    const message = String(runtime().host.ui.dialogs.at(-1).prompt);
    expect(message).toMatch(/^Queued for a new try: 1 row \(2\)\./);
    expect(message).toContain('will be written on the next run and then wait for approval');
    expect(message).not.toContain('mailed on the next run');
  }, 60_000);
});
