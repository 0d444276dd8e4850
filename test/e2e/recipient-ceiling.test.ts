// A flood of submissions naming strangers (the public form used as a relay), end to end: at most the new-recipient ceiling is mailed, and one incident tells staff.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRuntime, submission, type Runtime } from './runtime';

const STAFF = 'staff@example.com';
const DIRTY = 'FQ_DIRTY';
const HOUR = 3_600_000;
const PER_HOUR = 20;
const PER_DAY = 30;
const FLOOD = 200;

interface Mail {
  to: string;
  subject: string;
}

let rt: Runtime;
const strangerMails = () => rt.host.outbox.filter((mail: Mail) => mail.to.startsWith('stranger'));
const ceilingMails = () => rt.host.outbox.filter((mail: Mail) => mail.to === STAFF && mail.subject.includes('Many new recipients at once'));

async function tick(): Promise<void> {
  rt.host.properties.set(DIRTY, String(Date.now()));
  const exec = await rt.run('processQueue');
  expect(exec.status, JSON.stringify(exec.error)).toBe('ok');
}

async function advance(ms: number): Promise<void> {
  const response = await fetch(`${rt.url}/api/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceMs: ms }) });
  expect(response.status).toBe(200);
}

beforeAll(async () => {
  rt = await startRuntime({
    props: {
      STAFF_EMAILS: STAFF,
      MAX_NEW_RECIPIENTS_PER_HOUR: String(PER_HOUR),
      MAX_NEW_RECIPIENTS_PER_DAY: String(PER_DAY),
      GEMINI_CONCURRENCY: '20',
      MAX_MAILS_PER_RUN: '500',
      // No reminder within the test's two hours: every mail about the ceiling would be a new incident.
      TRIAGE_REMINDER_MINUTES: '10080',
    },
  });
  // Ten deliveries at a time, as Typeform may send them (doPost runs concurrently).
  for (let from = 0; from < FLOOD; from += 10) {
    const batch = Array.from({ length: 10 }, (_v, i) => from + i);
    const answers = await Promise.all(batch.map((n) => rt.deliver(submission(`flood${n}`, (b) => (b.form_response.answers[1].email = `stranger${n}@example.net`)))));
    for (const answer of answers) expect(answer.ok, JSON.stringify(answer)).toBe(true);
  }
  expect(rt.queue()).toHaveLength(FLOOD);
  for (let i = 0; i < 6 && rt.queue().some((row) => ['PENDING', 'GENERATING'].includes(String(row.status))); i++) await tick();
}, 300_000);

afterAll(async () => {
  await rt?.close();
});

describe('a flood of submissions naming strangers', () => {
  it('mails at most the hourly ceiling of new addresses; the rest wait READY; one incident tells staff', async () => {
    expect(rt.queue().filter((row) => row.status === 'PENDING' || row.status === 'GENERATING')).toEqual([]);
    expect(strangerMails()).toHaveLength(PER_HOUR);
    expect(rt.queue().filter((row) => row.status === 'READY')).toHaveLength(FLOOD - PER_HOUR);
    await advance(10 * 60_000);
    await tick();
    expect(strangerMails()).toHaveLength(PER_HOUR);
    expect(ceilingMails()).toHaveLength(1);
    expect(JSON.parse(rt.host.properties.get('FQ_INCIDENT_NEW_RECIPIENT_CEILING') ?? '{}').state).toBe('open');
  });

  it('an hour on, only the daily ceiling is reached, each address mailed once, still one incident', async () => {
    await advance(HOUR);
    await tick();
    await tick();
    const mailed = strangerMails().map((mail: Mail) => mail.to);
    expect(mailed).toHaveLength(PER_DAY);
    expect(new Set(mailed).size).toBe(PER_DAY);
    expect(ceilingMails()).toHaveLength(1);
  });
});
