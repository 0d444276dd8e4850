// The injection corpus end to end: submissions whose answers steer the model (a model talked into it, played by the runtime); none is mailed without a person.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRuntime, submission, type QueueObject, type Runtime } from './runtime';

interface InjectionCase {
  name: string;
  /** The essay answer the respondent types. */
  answer: string;
  /** What the model, talked into it, writes; absent: the obey fault follows the answer's instruction. */
  reply?: string;
  /** The reply-policy rule that must hold the row. */
  rule: string;
}

const CORPUS: InjectionCase[] = JSON.parse(readFileSync(new URL('../fixtures/injection/corpus.json', import.meta.url), 'utf8'));
const DIRTY = 'FQ_DIRTY';
const recipientOf = (n: number) => `case${n}.injection@example.com`;
const BENIGN = 'benign.control@example.com';

let rt: Runtime;
const rows = new Map<string, QueueObject>();

/** Every submission of the corpus, plus one harmless control, delivered to one runtime and processed until nothing is left to do. */
beforeAll(async () => {
  rt = await startRuntime({ props: { GEMINI_CONCURRENCY: '20' } });
  CORPUS.forEach((item, n) => {
    if (item.reply !== undefined) rt.host.faults.add({ target: 'gemini', reply: item.reply, match: recipientOf(n) });
  });
  rt.host.faults.add({ target: 'gemini', obey: true });
  const deliveries = [
    ...CORPUS.map((item, n) => ({ n, email: recipientOf(n), essay: item.answer })),
    { n: CORPUS.length, email: BENIGN, essay: 'I want my essays to be clearer and better structured.' },
  ];
  for (const { n, email, essay } of deliveries) {
    const body = submission(`inj${n}`, (b) => {
      b.form_response.answers[1].email = email;
      b.form_response.answers[4].text = essay;
    });
    const answer = await rt.deliver(body);
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
  }
  for (let tick = 0; tick < 10; tick++) {
    rt.host.properties.set(DIRTY, String(Date.now()));
    const exec = await rt.run('processQueue');
    expect(exec.status, JSON.stringify(exec.error)).toBe('ok');
    if (!rt.queue().some((row) => ['PENDING', 'GENERATING', 'READY', 'SENDING'].includes(String(row.status)))) break;
  }
  for (const row of rt.queue()) rows.set(String(row.recipient), row);
}, 120_000);

afterAll(async () => {
  await rt?.close();
});

describe('the injection corpus in the local runtime', () => {
  it('holds at least 30 injections', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
  });

  it('mails none of them without a person, and still mails the harmless control', () => {
    const mailed = rt.host.outbox.map((mail: { to: string }) => mail.to);
    expect(mailed.filter((to: string) => to.startsWith('case'))).toEqual([]);
    expect(mailed).toContain(BENIGN);
    expect(rows.get(BENIGN)?.status).toBe('SENT');
  });

  it.each(CORPUS.map((item, n) => [item.name, n, item.rule] as const))('%s waits for approval with its rule named', (_name, n, rule) => {
    const row = rows.get(recipientOf(n));
    expect(row?.status, JSON.stringify(row?.result)).toBe('AWAITING_APPROVAL');
    expect(String(row?.error)).toMatch(new RegExp(`^REPLY_POLICY: ${rule} `));
  });
});
