// What staff do whose trigger event Google does not document (a single-cell paste, a sort), end to end in every
// world the runtime offers for it (emulator/worlds.mjs): the record that a reply went out survives, and nothing is
// mailed twice.
import { describe, expect, it } from 'vitest';
import { QUEUE_HEADERS, type QueueHeader } from '../../src/core/domain/queue/queue-row';
import { runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const DIRTY = 'FQ_DIRTY';
const ANA = 'ana@example.org';
interface Mail { to: string }

const delivery = (n: number): string => submission(n, (body) => { body.form_response.answers[1].email = `r${n}@example.com`; });
const eventIdOf = (body: string): string => JSON.parse(body).event_id;
const col = (header: QueueHeader): string => String.fromCharCode(65 + QUEUE_HEADERS.indexOf(header));
const time = (cell: unknown): number | null => (cell === '' || cell === null || cell === undefined ? null : new Date(String(cell)).getTime());

let rt: Runtime;

const respondentMails = (): Mail[] => rt.host.outbox.filter((m: Mail) => m.to !== 'staff@example.com');
const rowOf = (eventId: string) => rt.queue().find((r) => r.event_id === eventId)!;
const tick = async () => {
  rt.host.properties.set(DIRTY, String(Date.now()));
  const exec = await rt.run('processQueue');
  expect(exec.status, JSON.stringify(exec.error)).toBe('ok');
};
/** Ticks until every row is SENT (or six ticks passed), moving time on so stale claims are swept. */
const settle = async () => {
  for (let i = 0; i < 6 && rt.queue().some((r) => r.status !== 'SENT'); i++) {
    rt.host.advanceClock(10 * 60_000);
    await tick();
  }
};
/** A row's record of its sent reply: status, sent_at, mail_ref, and no claim left standing. */
const recordOf = (eventId: string) => {
  const row = rowOf(eventId);
  return { status: row.status, sentAt: time(row.sent_at), mailRef: row.mail_ref, claimedAt: time(row.claimed_at) };
};

// Google documents e.value/e.oldValue for a single typed cell and says nothing of a paste (guides/triggers/events#edit);
// tanaikech/GetEditType lists a pasted cell with neither (paste=none) and with a value and no oldValue
// (paste=value-only). In the second shape a guard that takes the missing oldValue for an empty cell "puts back" an
// empty sent_at, mail_ref or status: it would erase the record that the reply went out.
describe.each(['none', 'value-only'])('paste=%s', (paste) => {
  const PASTES: Array<[QueueHeader, string]> = [
    ['status', 'PENDING'],
    ['sent_at', '2026-01-01'],
    ['mail_ref', 'FQ-PASTED'],
    ['claimed_at', '2026-01-01'],
    ['sent_at', ''],
    ['mail_ref', ''],
  ];

  it('a single-cell paste over sent_at, mail_ref, claimed_at and status of a SENT row leaves its record of the sent reply; nothing is mailed twice', async () => {
    rt = await freshRuntime({ worlds: { paste } });
    const body = delivery(301);
    await rt.deliver(body);
    await settle();
    const id = eventIdOf(body);
    const sent = recordOf(id);
    expect(sent).toMatchObject({ status: 'SENT', claimedAt: null });
    expect([sent.sentAt, sent.mailRef]).not.toContain(null);
    expect(respondentMails()).toHaveLength(1);
    for (const [header, value] of PASTES) {
      const [guard] = await rt.host.edit({ op: 'paste', sheet: 'Queue', a1: `${col(header)}2`, values: [[value]], user: ANA });
      expect(guard.status, JSON.stringify(guard.error)).toBe('ok');
      expect(recordOf(id), `after pasting ${JSON.stringify(value)} over ${header}`).toEqual(sent);
    }
    await tick();
    expect(recordOf(id)).toEqual(sent);
    expect(respondentMails()).toHaveLength(1);
  });

  // A run that died right after its mail left keeps the row SENDING: its mail_ref is how the sweep (or a person)
  // finds that mail in Sent, and claimed_at when the claim went stale. Both stand in the claim's ledger line.
  it('a single-cell paste over mail_ref and claimed_at of a row whose run died after mailing leaves the claim; nothing is mailed again', async () => {
    rt = await freshRuntime({ worlds: { paste } });
    const body = delivery(302);
    await rt.deliver(body);
    const id = eventIdOf(body);
    rt.host.faults.add({ target: 'mail', crashAfterSend: 1 });
    rt.host.properties.set(DIRTY, String(Date.now()));
    expect((await rt.run('processQueue')).status).toBe('crash');
    const claimed = rowOf(id);
    expect([claimed.status, respondentMails().length]).toEqual(['SENDING', 1]);
    for (const [header, value] of [['mail_ref', 'FQ-PASTED'], ['claimed_at', '2026-01-01'], ['mail_ref', '']] as Array<[QueueHeader, string]>) {
      const [guard] = await rt.host.edit({ op: 'paste', sheet: 'Queue', a1: `${col(header)}2`, values: [[value]], user: ANA });
      expect(guard.status, JSON.stringify(guard.error)).toBe('ok');
      const row = rowOf(id);
      expect([row.status, row.mail_ref, time(row.claimed_at)], `after pasting ${JSON.stringify(value)} over ${header}`)
        .toEqual(['SENDING', claimed.mail_ref, time(claimed.claimed_at)]);
    }
    rt.host.advanceClock(60 * 60_000);
    await tick(); // the stale claim is swept: its mail may have gone, so it is never sent again by itself
    expect(rowOf(id).mail_ref).toBe(claimed.mail_ref);
    expect(respondentMails()).toHaveLength(1);
  });
});

// No Google page says what a sort fires: on-edit and on-change OTHER (theappsscriptlab.com's "Move a column or row
// with data"), on-change only, or nothing. The guard judges nothing of a sort it is not told of, and processing finds
// each row by its event_id, so in every reading each submission is mailed once, from its own row.
describe.each(['edit-other', 'change-only', 'none'])('sort=%s', (sort) => {
  it('sorting a Queue of sent and waiting rows leaves every row its own status and each submission is mailed once', async () => {
    rt = await freshRuntime({ worlds: { sort } });
    const first = [delivery(311), delivery(312)];
    for (const body of first) await rt.deliver(body);
    await settle();
    const waiting = [delivery(313), delivery(314)];
    for (const body of waiting) await rt.deliver(body);
    const before = new Map(rt.queue().map((r) => [String(r.event_id), [r.status, r.mail_ref]]));
    const runs = await rt.host.edit({ op: 'sort', sheet: 'Queue', column: 'recipient', ascending: false, user: ANA });
    expect(runs.map((r: any) => r.status)).toEqual(sort === 'edit-other' ? ['ok'] : []);
    expect(rt.queue().map((r) => r.recipient)).toEqual(['r314@example.com', 'r313@example.com', 'r312@example.com', 'r311@example.com']);
    expect(new Map(rt.queue().map((r) => [String(r.event_id), [r.status, r.mail_ref]]))).toEqual(before);
    await settle();
    for (const body of [...first, ...waiting]) expect(rowOf(eventIdOf(body)).status).toBe('SENT');
    expect(respondentMails().map((m) => m.to).sort()).toEqual(['r311@example.com', 'r312@example.com', 'r313@example.com', 'r314@example.com']);
  });
});
