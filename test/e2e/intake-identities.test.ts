// Intake whoever else runs: doPost (the deployer) appending while a staff member's "Process now" drains the spill, in the runtime.
import { beforeEach, describe, expect, it } from 'vitest';
import { runtimePerFile, submission, type Runtime } from './runtime';

/** One runtime for the file, reset before each test (runtime.ts). */
const freshRuntime = runtimePerFile();

const STAFF = 'colleague@example.com';
const eventOf = (n: number) => JSON.parse(submission(n)).event_id as string;

describe('appends by executions running as different people', () => {
  let rt: Runtime;
  beforeEach(async () => {
    rt = await freshRuntime();
  });

  it('loses no delivery when doPost appends while a staff member’s Process now drains the spill (another user lock)', async () => {
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    const spilled = Array.from({ length: 20 }, (_, i) => 300 + i);
    for (const n of spilled) expect(await rt.deliver(submission(n))).toMatchObject({ queued: 'deferred' });
    rt.host.faults.clear();
    // Gemini waits, so the drain's appends are the only thing the staff run does while doPost appends.
    rt.host.faults.add({ target: 'gemini', pause: true });
    const direct = Array.from({ length: 20 }, (_, i) => 400 + i);
    const processNow = rt.host.run('menuProcessNow', [], { kind: 'menu', user: STAFF });
    const answers = await Promise.all(direct.map((n) => rt.deliver(submission(n))));
    expect(answers.every((a) => a.queued === true || a.queued === 'deferred')).toBe(true);
    rt.host.faults.clear();
    expect((await processNow).status).toBe('ok');
    await rt.run('processQueue');
    const ids = new Set(rt.queue().map((row) => row.event_id));
    for (const n of [...spilled, ...direct]) expect(ids.has(eventOf(n)), `event ${n} is in Queue`).toBe(true);
    expect(rt.queue()).toHaveLength(spilled.length + direct.length);
  });

  // With Google's latency (scaled) every service call takes its time, so doPost's duplicate check and append interleave
  // with the drain's: depending on the draw, the retries are answered as duplicates, or both copies are appended.
  it.each([1])('the same event from doPost while a staff member’s Process now drains its spilled copy ends as one answered row and one mail (latency seed %i)', async (seed) => {
    rt = await freshRuntime({ host: { latency: 'google:0.1', latencySeed: seed } });
    const body = submission(700);
    const eventId = eventOf(700);
    const recipient = String(JSON.parse(body).form_response.answers.find((a: { type: string }) => a.type === 'email').email);
    rt.host.faults.add({ target: 'sheets', error: 'Error code INTERNAL' });
    expect(await rt.deliver(body)).toMatchObject({ queued: 'deferred' });
    rt.host.faults.clear();
    // Typeform's retries of that delivery (the first answer was slow) reach doPost, as the deployer, while the staff
    // member's drain appends the spilled copy under their own user lock.
    rt.host.faults.add({ target: 'gemini', pause: true });
    const processNow = rt.host.run('menuProcessNow', [], { kind: 'menu', user: STAFF });
    const retries = await Promise.all(Array.from({ length: 4 }, (_, i) => new Promise((resolve) => setTimeout(resolve, i * 150)).then(() => rt.deliver(body))));
    for (const answer of retries as { queued?: unknown; duplicate?: unknown }[]) expect(answer.queued === true || answer.queued === 'deferred' || answer.duplicate === true, JSON.stringify(answer)).toBe(true);
    rt.host.faults.clear();
    expect((await processNow).status).toBe('ok');
    for (let i = 0; i < 3; i++) {
      rt.host.advanceClock(10 * 60_000);
      await rt.run('processQueue');
    }
    const rows = rt.queue().filter((row) => row.event_id === eventId);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.filter((row) => row.status !== 'DUPLICATE').map((row) => row.status)).toEqual(['SENT']);
    expect(rt.host.outbox.filter((mail: { to: string }) => mail.to === recipient)).toHaveLength(1);
  });

  it('keeps every Log line when two staff members’ edits and doPost’s deliveries write at once', async () => {
    const first = Array.from({ length: 12 }, (_, i) => 500 + i);
    for (const n of first) await rt.deliver(submission(n));
    const users = [STAFF, 'second.colleague@example.com'];
    const edits = first.map((_, i) => rt.host.edit({ sheet: 'Queue', a1: `A${i + 2}`, value: 'SKIPPED', user: users[i % 2] }));
    const deliveries = Array.from({ length: 8 }, (_, i) => rt.deliver(submission(600 + i)));
    await Promise.all([...edits, ...deliveries]);
    const log = rt.sheet('Log');
    const skipped = log.rows.filter((row) => String(row[log.header.indexOf('to')]) === 'SKIPPED');
    expect(new Set(skipped.map((row) => row[log.header.indexOf('event_id')]))).toEqual(new Set(first.map(eventOf)));
    expect(rt.queue()).toHaveLength(20);
  });

  it('Set up run by a colleague says whose the triggers are and installs nothing twice', async () => {
    expect(rt.host.properties.get('FQ_DEPLOYER')).toBe('owner@example.com');
    const before = rt.host.triggers.length;
    const run = await rt.host.run('setup', [], { kind: 'menu', user: STAFF });
    expect(run.status).toBe('ok');
    expect(String(run.value)).toMatch(/Triggers: not touched\. They belong to owner@example\.com/);
    expect(rt.host.triggers).toHaveLength(before);
    expect(rt.host.triggers.every((t: { owner?: string }) => (t.owner ?? 'owner@example.com') === 'owner@example.com')).toBe(true);
    // The deployer's own repair still finds its pair in place.
    const again = await rt.host.run('setup', [], { kind: 'menu' });
    expect(String(again.value)).toMatch(/processQueue \(every minute\), onEditInstallable \(on edit\), reconcileTypeform \(daily\), watchTypeformWebhook \(every 15 minutes\) are in place/);
    expect(rt.host.triggers).toHaveLength(before);
  });
});
