// One identity, one record staff cannot erase: deleted and pasted-over rows come back for a person, a tidied-up SENT row is never answered again.
import { describe, expect, it } from 'vitest';
import { LOCAL_TYPEFORM_TOKEN } from '../../emulator/offline-typeform.mjs';
import { QUEUE_HEADERS } from '../../src/core/domain/queue/queue-row';
import { runtimePerFile, submission, type QueueObject, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const FORM = 'Wr1tE5sy';
const STAFF = 'staff@example.com';
const ANA = 'ana@example.com';
const HOUR_MS = 3600 * 1000;

let rt: Runtime;

/** Submission n, submitted now (runtime time), to its own respondent r<n>@example.com. */
function delivery(n: number): string {
  const at = new Date(rt.host.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return submission(n, (body) => {
    body.form_response.submitted_at = at;
    for (const answer of body.form_response.answers) if (answer.type === 'email') answer.email = `r${n}@example.com`;
  });
}
const tokenOf = (body: string) => JSON.parse(body).form_response.token as string;
const mailsTo = (n: number): any[] => rt.host.outbox.filter((mail: any) => mail.to === `r${n}@example.com`);
const staffMails = (subject: string): any[] => rt.host.outbox.filter((mail: any) => mail.to === STAFF && String(mail.subject).includes(subject));
const rowsOf = (body: string): QueueObject[] => rt.queue().filter((row) => row.response_token === tokenOf(body));
const sheetRowOf = (body: string): number => 2 + rt.queue().findIndex((row) => row.response_token === tokenOf(body));
const letter = (header: string) => String.fromCharCode(65 + QUEUE_HEADERS.indexOf(header as never));

async function tick(): Promise<void> {
  rt.host.properties.set('FQ_DIRTY', String(rt.host.now()));
  const run = await rt.run('processQueue');
  expect(run.status, JSON.stringify(run.error)).toBe('ok');
}

async function approveAll(): Promise<void> {
  for (const [i, row] of rt.queue().entries()) {
    if (row.status === 'AWAITING_APPROVAL') await rt.host.edit({ sheet: 'Queue', a1: `${letter('status')}${i + 2}`, value: 'APPROVED', user: ANA });
  }
}

describe('a submission is one identity with one record staff edits cannot erase', () => {
  it('a SENT row deleted by staff is not brought back by the Typeform check under a new key: after approvals and runs the respondent has one reply', async () => {
    rt = await freshRuntime({ props: { TYPEFORM_TOKEN: LOCAL_TYPEFORM_TOKEN } });
    rt.host.properties.set('TYPEFORM_BASE_URL', `${rt.url}/typeform`);
    await rt.host.edit({ sheet: 'Config', a1: 'A2', value: FORM, user: 'owner@example.com' });
    const body = delivery(1);
    expect(await rt.deliver(body)).toMatchObject({ ok: true, queued: true });
    await tick();
    expect(rowsOf(body).map((row) => row.status)).toEqual(['SENT']);
    await rt.host.edit({ sheet: 'Queue', op: 'deleteRows', row: sheetRowOf(body), count: 1, user: ANA });
    expect(rt.queue()).toHaveLength(0);

    rt.host.advanceClock(13 * HOUR_MS); // the nightly check's window: 48 h to 12 h ago
    const check = await rt.run('reconcileTypeform');
    expect(String(check.value)).toContain('1 in Typeform, 1 already here');
    expect(String(check.value)).toContain('0 recovered');
    await tick();
    await approveAll();
    await tick();
    expect(rt.queue()).toHaveLength(0); // a finished row deleted is a tidy-up: nothing is put back
    expect(mailsTo(1)).toHaveLength(1);
    expect(staffMails('Missed submissions recovered')).toHaveLength(0);
    expect(staffMails('Removed submissions restored')).toHaveLength(0);
  });

  it('a whole row pasted over another PENDING row: the overwritten submission is put back for a person with its answers, one incident mail, and nobody is mailed twice', async () => {
    rt = await freshRuntime();
    const first = delivery(1), second = delivery(2);
    await rt.deliver(first);
    await rt.deliver(second);
    const source = rt.sheet('Queue').rows[0];
    await rt.host.edit({ sheet: 'Queue', op: 'paste', a1: 'A3', values: [source.map((cell) => (cell instanceof Date ? cell.toISOString() : cell))], user: ANA });
    expect(rowsOf(second)).toHaveLength(0);
    await tick();
    await tick();
    expect(rowsOf(first).map((row) => row.status).sort()).toEqual(['DUPLICATE', 'SENT']);
    const [back] = rowsOf(second);
    expect(back).toMatchObject({ status: 'NEEDS_REVIEW', recipient: 'r2@example.com', event_id: JSON.parse(second).event_id });
    expect(String(back.error)).toMatch(/^RESTORED: its row was removed from Queue by hand/);
    expect(String(back.submission)).toContain('Mina Okafor');
    expect(mailsTo(1)).toHaveLength(1);
    expect(mailsTo(2)).toHaveLength(0);
    const restoredMails = staffMails('Removed submissions restored');
    expect(restoredMails).toHaveLength(1);
    expect(String(restoredMails[0].body)).toContain('1 submission(s) were removed from Queue by hand and restored');

    // A person answers it: one reply.
    await rt.host.edit({ sheet: 'Queue', a1: `${letter('status')}${sheetRowOf(second)}`, value: 'PENDING', user: ANA });
    await tick();
    expect(rowsOf(second).map((row) => row.status)).toEqual(['SENT']);
    expect(mailsTo(2)).toHaveLength(1);
  });

  it.each([
    ['PENDING', async () => undefined],
    ['READY', async () => rt.host.properties.set('PAUSED', 'false')],
  ])('a %s row deleted by staff comes back in NEEDS_REVIEW, once, and is never mailed without a person', async (status, _unused) => {
    rt = await freshRuntime({ props: status === 'READY' ? { MAX_MAILS_PER_RUN: '1' } : {} });
    const keep = delivery(1), gone = delivery(2);
    await rt.deliver(keep);
    await rt.deliver(gone);
    if (status === 'READY') {
      // One mail per run: the first run writes both replies and mails row 1 only, leaving row 2 READY.
      await tick();
      expect(rowsOf(gone).map((row) => row.status)).toEqual(['READY']);
    }
    await rt.host.edit({ sheet: 'Queue', op: 'deleteRows', row: sheetRowOf(gone), count: 1, user: ANA });
    await tick();
    await tick();
    expect(rowsOf(gone).map((row) => row.status)).toEqual(['NEEDS_REVIEW']);
    expect(mailsTo(2)).toHaveLength(0);
    expect(staffMails('Removed submissions restored')).toHaveLength(1);
  });

  it('deleting is not how a submission is dropped: SKIPPED is, and a skipped row deleted stays gone', async () => {
    rt = await freshRuntime({ props: { PAUSED: 'true' } });
    const body = delivery(3);
    await rt.deliver(body);
    await rt.host.edit({ sheet: 'Queue', a1: `${letter('status')}${sheetRowOf(body)}`, value: 'SKIPPED', user: ANA });
    await rt.host.edit({ sheet: 'Queue', op: 'deleteRows', row: sheetRowOf(body), count: 1, user: ANA });
    rt.host.properties.set('PAUSED', 'false');
    await tick();
    await tick();
    expect(rowsOf(body)).toHaveLength(0);
    expect(mailsTo(3)).toHaveLength(0);
    expect(staffMails('Removed submissions restored')).toHaveLength(0);
  });

  it('a Log made before the submission column keeps its lines (found by event_id) until Set up adds the column, and mails once', async () => {
    rt = await freshRuntime();
    // What a deployment set up by an earlier release has: Set up trimmed the Log's grid to its six columns.
    rt.host.ss.byName('Log').spliceColumns(6, 1);
    expect(rt.sheet('Log').header).toEqual(['at', 'event_id', 'from', 'to', 'by', 'detail']);
    const body = delivery(5);
    await rt.deliver(body);
    await tick();
    expect(rowsOf(body).map((row) => row.status)).toEqual(['SENT']);
    expect(rt.sheet('Log').rows.every((cells) => cells.length === 6)).toBe(true);
    await tick();
    expect(mailsTo(5)).toHaveLength(1);
    const setup = await rt.host.run('setup', [], { kind: 'editor' });
    expect(String(setup.value)).toContain('Log: added missing columns submission at the right.');
    const next = delivery(6);
    await rt.deliver(next);
    await tick();
    expect(rt.sheet('Log').rows.filter((cells) => cells[1] === JSON.parse(next).event_id).map((cells) => cells[6])).toContain(`tf:${FORM}:${tokenOf(next)}`);
  });

  it('every accepted delivery leaves one Journal line under its identity, which Set up protects for its own account only', async () => {
    rt = await freshRuntime();
    const body = delivery(4);
    await rt.deliver(body);
    await rt.deliver(body); // Typeform's redelivery
    const journal = rt.sheet('Journal');
    expect(journal.header).toEqual(['received_at', 'submission', 'event_id', 'payload']);
    expect(journal.rows.map((cells) => cells[1])).toEqual([`tf:${FORM}:${tokenOf(body)}`]);
    expect(journal.rows[0][2]).toBe(`ev:${JSON.parse(body).event_id}`);
    expect(JSON.parse(String(journal.rows[0][3])).form_response.token).toBe(tokenOf(body));
    const protection = rt.host.ss.byName('Journal').protections.find((p: any) => p.type === 'SHEET');
    expect(protection).toMatchObject({ warningOnly: false });
    expect(protection.editors).toEqual([rt.host.owner]);
    // A staff member cannot delete or change its lines; the Log (warning-only) stays editable after the warning.
    await expect(rt.host.edit({ sheet: 'Journal', op: 'deleteRows', row: 2, count: 1, user: ANA })).rejects.toThrow('You are trying to edit a protected cell or object.');
    await expect(rt.host.edit({ sheet: 'Journal', a1: 'B2', value: 'x', user: ANA })).rejects.toThrow('protected');
    expect(rt.sheet('Journal').rows).toHaveLength(1);
  });
});
