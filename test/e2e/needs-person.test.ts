// Rows needing a person end to end: the built bundle's processQueue, doGet and staff edits in the local runtime, with
// time moved by the runtime's own clock (POST /api/clock), which executions read as Date.now().
import { describe, expect, it } from 'vitest';
import { QUEUE_HEADERS } from '../../src/core/domain/queue/queue-row';
import { getHealth, runtimePerFile, submission, type Runtime, type Mail } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const STAFF = 'staff@example.com';
const ANA = 'ana@example.com';

let rt: Runtime | undefined;

function runtime(): Runtime {
  if (!rt) throw new Error('no runtime');
  return rt;
}

async function api(path: string, body: unknown): Promise<any> {
  const response = await fetch(`${runtime().url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json();
  expect(response.status, JSON.stringify(answer)).toBe(200);
  return answer;
}

const advance = (ms: number) => api('/api/clock', { advanceMs: ms });

/** A staff member types into one cell, as in the spreadsheet (the on-edit guard runs). */
function edit(header: (typeof QUEUE_HEADERS)[number], rowNumber: number, value: string, sheet = 'Queue'): Promise<unknown> {
  const column = String.fromCharCode(65 + QUEUE_HEADERS.indexOf(header));
  return api('/api/edit', { sheet, a1: `${column}${rowNumber}`, value, user: ANA });
}

async function tick(): Promise<string> {
  const execution = await runtime().run('processQueue');
  expect(execution.status, JSON.stringify(execution.error)).toBe('ok');
  return String(execution.value);
}

function triageMails(): Mail[] {
  return runtime().host.outbox.filter((mail: Mail) => mail.to === STAFF && mail.subject.startsWith('[formqueue]'));
}

/** Approval on for every form (Config's `*` row, column H), then one submission written and waiting for approval. */
async function awaitingApproval(): Promise<void> {
  await api('/api/edit', { sheet: 'Config', a1: 'H2', value: 'TRUE', user: 'owner@example.com' });
  expect(runtime().sheet('Config').header[7]).toBe('approval_required');
  await runtime().deliver(submission(1));
  await tick();
  await tick();
  expect(runtime().queue()[0].status).toBe('AWAITING_APPROVAL');
}

describe('rows needing a person in the local runtime', () => {

  it('a FAILED row: one mail linking it with its mail_ref and error, doGet ok:false, no reminder hours later; fixed, one recovery mail and ok:true', async () => {
    rt = await freshRuntime();
    await awaitingApproval();
    const mailRef = String(runtime().queue()[0].mail_ref);
    expect(mailRef).toMatch(/^FQ-[A-Z0-9]{6}$/);
    // A typo in the address, then approval: the send refuses it for good.
    await edit('recipient', 2, 'mina.okafor@example');
    await edit('status', 2, 'APPROVED');
    await tick();
    const [failed] = runtime().queue();
    expect(failed).toMatchObject({ status: 'FAILED', mail_ref: mailRef });
    expect(String(failed.error)).toMatch(/^MAIL_PERMANENT: not a valid email address: mina\.okafor@example/);

    const mails = triageMails();
    expect(mails.map((mail) => mail.subject)).toEqual(['[formqueue] Rows need a person — 1 row needs a person']);
    const lines = mails[0].body.split('\n');
    const listed = lines.findIndex((line) => line.startsWith('  row 2 '));
    expect(lines[listed]).toMatch(new RegExp(`^  row 2 \\(FAILED, mail_ref ${mailRef}\\): https?://\\S+#gid=\\d+&range=A2$`));
    expect(lines[listed + 1]).toBe('      mail refused · MAIL_PERMANENT: not a valid email address: mina.okafor@example');
    // The row's event_id is for whoever set formqueue up, in the footer after everything staff read.
    const footer = lines.indexOf('For the person who set this up');
    expect(footer).toBeGreaterThan(listed);
    expect(lines.slice(footer)).toContain(`Rows by event_id: row 2: ${failed.event_id}`);
    expect(lines.slice(0, footer).join('\n')).not.toContain(String(failed.event_id));
    expect(lines).toContain('Mail refused (row 2): The mail was refused for good; the error cell says why (usually the address). Correct recipient and set PENDING, or SKIPPED.');
    expect(await getHealth(runtime())).toMatchObject({ ok: false, readable: true, needsPerson: 1, counts: { FAILED: 1 } });

    // Three hours on, past TRIAGE_REMINDER_MINUTES (60): the open incident is seen again, and nobody is mailed again.
    for (let hour = 0; hour < 3; hour++) {
      await advance(HOUR);
      await tick();
    }
    expect(triageMails()).toHaveLength(1);

    // Staff correct the address and retry; the new reply waits for approval (young: nobody is needed yet), then goes.
    await edit('recipient', 2, 'mina.okafor@example.com');
    await edit('status', 2, 'PENDING');
    await tick();
    expect(runtime().queue()[0].status).toBe('AWAITING_APPROVAL');
    expect(await getHealth(runtime())).toMatchObject({ ok: true, needsPerson: 0 });
    await edit('status', 2, 'APPROVED');
    await tick();
    expect(runtime().queue()[0].status).toBe('SENT');
    await advance(6 * MINUTE); // the recovery mail waits 5 quiet minutes
    await tick();
    const after = triageMails();
    expect(after).toHaveLength(2);
    expect(after[1].subject).toMatch(/^\[formqueue\] Resolved: Rows need a person \(lasted 3 h( \d+ min)?\)$/);
    expect(after[1].body).toContain('Rows that need a person: 0\n');
    expect(await getHealth(runtime())).toMatchObject({ ok: true, needsPerson: 0, openIncidents: [] });
  }, 60_000);

  it('an AWAITING_APPROVAL row is no one\'s problem for APPROVAL_WAIT_HOURS (24), then raises the incident once and doGet says ok:false', async () => {
    rt = await freshRuntime();
    await awaitingApproval();
    const mailRef = String(runtime().queue()[0].mail_ref);

    await advance(23 * HOUR + 50 * MINUTE);
    await tick();
    expect(triageMails()).toEqual([]);
    expect(await getHealth(runtime())).toMatchObject({ ok: true, needsPerson: 0, counts: { AWAITING_APPROVAL: 1 } });

    await advance(15 * MINUTE); // the next safety sweep, now past 24 h
    await tick();
    const mails = triageMails();
    expect(mails.map((mail) => mail.subject)).toEqual(['[formqueue] Rows need a person — 1 row needs a person']);
    expect(mails[0].body).toMatch(new RegExp(`\\n  row 2 \\(AWAITING_APPROVAL for 24 h \\d+ min, mail_ref ${mailRef}\\): \\S+range=A2\\n`));
    expect(mails[0].body).toContain('Waiting for approval (row 2): The reply waits for approval.');
    expect(await getHealth(runtime())).toMatchObject({ ok: false, needsPerson: 1 });

    await advance(2 * HOUR);
    await tick();
    expect(triageMails()).toHaveLength(1);
  }, 60_000);
});
