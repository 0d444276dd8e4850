// One generation round (src/core/processing/generate-round.ts) on a run over in-memory ports: which rows it claims, how it asks Gemini, the token budget, the thinking retry.
import { describe, expect, it } from 'vitest';
import { isDue, runGenerationRound } from '../../../src/core/processing/generate-round';
import { generationConfigFor, withLargerBudget } from '../../../src/core/domain/gemini/gemini';
import { newBatch, type Run } from '../../../src/core/processing/run-context';
import { holdBatch, moveRow, releaseHeld } from '../../../src/core/processing/run-writes';
import type { GeminiOutcome, GeminiRequest } from '../../../src/core/domain/ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import type { FormConfig } from '../../../src/core/domain/sheet-ports';
import type { SuppressedEntry } from '../../../src/core/domain/mail/suppression';
import { fixtureOutcome, formConfig, MemorySuppression, okOutcome, pendingRow, runOf, T0, world, type World } from '../memory-ports';

const row = (n: number, patch: Partial<QueueRow> = {}) => pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, ...patch });
/** Approval on: a written reply goes to AWAITING_APPROVAL. */
const approval = [formConfig({ approvalRequired: true })];
const THINKING = fixtureOutcome(200, 'max-tokens-thinking');
const OK = fixtureOutcome(200, 'ok');
const logOf = (w: World) => w.audit.entries.map((entry) => `${entry.eventId} ${entry.from}>${entry.to}: ${entry.detail}`);
const cells = (w: World) => w.queue.rows.map((r) => [r.status, r.attempts, r.error]);
const capOf = (request: GeminiRequest) => (request.body as { generationConfig: { maxOutputTokens: number } }).generationConfig.maxOutputTokens;

/** A world and its run; the round's verdicts (held for the run's next commit) are written once it returns. */
function setup(rows: QueueRow[], props: Record<string, string> = {}, forms: FormConfig[] = approval, deadline?: number) {
  const w = world(rows, props, forms);
  const run = runOf(w, deadline);
  const round = (): boolean => {
    const result = runGenerationRound(run);
    releaseHeld(run);
    return result;
  };
  return { w, run, round };
}

/** The client answers each call with what `answer` returns, or throws what it throws; the requests of each call kept. */
function scripted(w: World, answer: (requests: readonly GeminiRequest[], call: number) => GeminiOutcome[]): number[] {
  const sizes: number[] = [];
  w.deps.gemini = {
    generateAll: (requests) => {
      sizes.push(requests.length);
      return answer(requests, sizes.length - 1);
    },
  };
  return sizes;
}

describe('isDue', () => {
  it.each<[string, boolean, Partial<QueueRow>]>([
    ['PENDING, never failed', true, { status: 'PENDING', nextAttemptAt: null }],
    ['PENDING, its back-off ending now', true, { status: 'PENDING', nextAttemptAt: T0 }],
    ['PENDING, its back-off ended', true, { status: 'PENDING', nextAttemptAt: T0 - 1 }],
    ['PENDING, its back-off ending a millisecond later', false, { status: 'PENDING', nextAttemptAt: T0 + 1 }],
    ['READY', false, { status: 'READY', nextAttemptAt: null }],
    ['GENERATING', false, { status: 'GENERATING', nextAttemptAt: null }],
    ['FAILED', false, { status: 'FAILED', nextAttemptAt: null }],
  ])('a row %s: due %s', (_what, due, patch) => {
    expect(isDue(row(1, patch), T0)).toBe(due);
  });
});

describe('runGenerationRound: which rows it claims', () => {
  it('claims due rows in sheet order, up to GEMINI_CONCURRENCY, asks Gemini once for all of them and returns true', () => {
    const { w, run, round } = setup([row(1), row(2), row(3)], { GEMINI_CONCURRENCY: '2' });
    expect(round()).toBe(true);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([2]);
    expect(cells(w)).toEqual([
      ['AWAITING_APPROVAL', 1, ''],
      ['AWAITING_APPROVAL', 1, ''],
      ['PENDING', 0, ''],
    ]);
    expect(run.summary).toMatchObject({ rounds: 1, generated: 2, deferred: 0, failed: 0 });
    expect([...run.setAside]).toEqual([]);
  });

  it('skips rows not due and rows set aside; no due row left: false, with no call and no write', () => {
    const { w, run, round } = setup([row(1, { nextAttemptAt: T0 + 1 }), row(2), row(3, { status: 'READY', result: 'x' })]);
    run.setAside.add(3);
    expect(round()).toBe(false);
    expect(w.gemini.calls).toEqual([]);
    expect(w.queue.writes).toEqual([]);
    expect(run.summary.rounds).toBe(0);
  });

  it('claims with the claim time to the second, the attempt counted, and logs the attempt number', () => {
    const { w, round } = setup([row(1, { attempts: 2 })]);
    w.clock.time = T0 + 1_500;
    let claimed: QueueRow | null = null;
    w.gemini.onCall = () => {
      claimed = { ...w.queue.row(2) };
    };
    round();
    expect(claimed).toMatchObject({ status: 'GENERATING', claimedAt: T0 + 1_000, attempts: 3, updatedAt: T0 + 1_500 });
    expect(logOf(w)[0]).toBe('evt-1 PENDING>GENERATING: claimed for generation (attempt 3)');
    expect(w.queue.flushes).toBe(2);
  });

  it('the Log line of a written reply names the model and what its calls spent', () => {
    const { w, round } = setup([row(1)], {}, [formConfig()]);
    w.gemini.respond = () => OK;
    round();
    expect(logOf(w)).toEqual([
      'evt-1 PENDING>GENERATING: claimed for generation (attempt 1)',
      'evt-1 GENERATING>READY: reply written; model gemini-3.5-flash (version gemini-flash-latest); tokens: prompt 412, output 71, thinking 0; est. $0.00126',
    ]);
  });

  it('a round whose every claim was taken before the read-back asks nothing, sets the rows aside and still returns true', () => {
    const { w, run, round } = setup([row(1), row(2)]);
    w.queue.beforeReadRows = (_numbers, queue) => {
      queue.edit(2, { status: 'SKIPPED', claimedAt: null });
      queue.edit(3, { claimedAt: T0 + 7_000 });
    };
    expect(round()).toBe(true);
    expect(w.gemini.calls).toEqual([]);
    expect([...run.setAside]).toEqual([2, 3]);
    expect(run.summary.rounds).toBe(0);
    expect(run.rows.map((r) => [r.status, r.claimedAt])).toEqual([
      ['SKIPPED', null],
      ['GENERATING', T0 + 7_000],
    ]);
  });

  it('only the claims still ours are asked for; the one taken is set aside and its row left as the taker wrote it', () => {
    const { w, run, round } = setup([row(1), row(2), row(3)]);
    w.queue.beforeReadRows = (_numbers, queue) => queue.edit(3, { status: 'SKIPPED' });
    expect(round()).toBe(true);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([2]);
    expect([...run.setAside]).toEqual([3]);
    expect(w.queue.rows.map((r) => r.status)).toEqual(['AWAITING_APPROVAL', 'SKIPPED', 'AWAITING_APPROVAL']);
  });

  it('a verdict is recorded against the row as read back: a cell staff edited after the claim is kept', () => {
    const { w, round } = setup([row(1)]);
    w.queue.beforeReadRows = (_numbers, queue) => queue.edit(2, { recipient: 'fixed@example.com', mailRef: 'FQ-STAFF1' });
    round();
    expect(w.queue.row(2)).toMatchObject({ status: 'AWAITING_APPROVAL', recipient: 'fixed@example.com', mailRef: 'FQ-STAFF1' });
  });

  it('a form asking for approval holds the reply; one that does not makes it READY', () => {
    const { w, round } = setup([row(1), row(2, { formId: 'Open' })], {}, [formConfig({ formId: 'Wr1tE5sy', approvalRequired: true }), formConfig({ formId: 'Open' })]);
    round();
    expect(w.queue.rows.map((r) => r.status)).toEqual(['AWAITING_APPROVAL', 'READY']);
  });

  it.each<[string, string, string, string]>([
    ['an old recovered row waits for a person whatever its form says', 'reconciled:tok-1', '0', 'AWAITING_APPROVAL'],
    ['a young recovered row goes as its form says', 'reconciled:tok-1', '24', 'READY'],
    ['a webhook row is never held for being old', 'evt-1', '0', 'READY'],
  ])('%s', (_what, eventId, hours, status) => {
    const { w, round } = setup([row(1, { eventId })], { RECOVERED_AUTO_SEND_HOURS: hours }, [formConfig()]);
    round();
    expect(w.queue.row(2).status).toBe(status);
  });

  it('a rendered prompt says TEMPLATE_INVALID is gone, and a round that claims says GEMINI_BUDGET_REACHED is gone; nothing is raised', () => {
    const { w, run, round } = setup([row(1)]);
    round();
    expect([...run.gone].filter((code) => code === 'TEMPLATE_INVALID' || code === 'GEMINI_BUDGET_REACHED')).toEqual(['TEMPLATE_INVALID', 'GEMINI_BUDGET_REACHED']);
    expect(w.incidents.raised).toEqual([]);
  });

  it('the queue is read once in a round (the read-back), for the claimed rows only', () => {
    const { w, round } = setup([row(1), row(2, { nextAttemptAt: T0 + 1 }), row(3)]);
    const reads: number[][] = [];
    w.queue.beforeReadRows = (numbers) => void reads.push([...numbers]);
    round();
    expect(reads).toEqual([[2, 4]]);
  });
});

describe('runGenerationRound: the model asked', () => {
  it.each<[string, string, string, string[], string]>([
    ['GEMINI_MODEL, its first model', 'gemini-a, gemini-b', '', [], 'gemini-a'],
    ['GEMINI_MODEL, past a model known retired', 'gemini-a, gemini-b', '', ['gemini-a'], 'gemini-b'],
    ["the form's own model list over GEMINI_MODEL", 'gemini-a', 'gemini-c, gemini-d', [], 'gemini-c'],
    ["the form's own list, past a model known retired", 'gemini-a', 'gemini-c, gemini-d', ['gemini-c'], 'gemini-d'],
  ])('%s', (_what, setting, model, retired, asked) => {
    const { w, run, round } = setup([row(1)], { GEMINI_MODEL: setting }, [formConfig({ model, approvalRequired: true })]);
    for (const id of retired) run.summary.retiredModels.set(id, T0 - 1);
    round();
    expect(w.gemini.calls.map((call) => call.map((request) => request.model))).toEqual([[asked]]);
    expect(capOf(w.gemini.calls[0][0])).toBe((generationConfigFor(asked) as { maxOutputTokens: number }).maxOutputTokens);
  });

  it.each<[string, (request: GeminiRequest, call: number) => GeminiOutcome, number]>([
    ['the first answer', () => fixtureOutcome(404, 'error-404-model'), 1],
    ['the retry with the larger budget', (_request, call) => (call === 0 ? THINKING : fixtureOutcome(404, 'error-404-model')), 2],
  ])('a 404 in %s, no model left on the list, names the model asked', (_what, respond, calls) => {
    const { w, round } = setup([row(1)], { GEMINI_MODEL: 'gemini-2.5-flash' });
    w.gemini.respond = respond;
    round();
    expect(w.gemini.calls).toHaveLength(calls);
    expect(w.queue.row(2).error).toBe(
      'GEMINI_MODEL_NOT_FOUND: Gemini model "gemini-2.5-flash" was not found: set Script Property GEMINI_MODEL (or the form\'s model in Config) to a current model id. ' +
        'Gemini HTTP 404 NOT_FOUND: models/gemini-1.0-pro is not found for API version v1beta, or is not supported for generateContent.',
    );
  });

  it("a 404 gives way to the next model of the row's list, asked at once", () => {
    const { w, round } = setup([row(1)], { GEMINI_MODEL: 'gemini-a, gemini-b' });
    w.gemini.respond = (request) => (request.model === 'gemini-a' ? fixtureOutcome(404, 'error-404-model') : okOutcome());
    round();
    expect(w.gemini.calls.map((call) => call.map((request) => request.model))).toEqual([['gemini-a'], ['gemini-b']]);
    expect(w.queue.row(2).status).toBe('AWAITING_APPROVAL');
  });
});

describe('runGenerationRound: rows that cost no Gemini call', () => {
  it('a row with no usable address is FAILED at once with the reason, set aside, and takes no place in the round', () => {
    const { w, run, round } = setup([row(1, { recipient: '' }), row(2, { recipient: 'mina.example.com' }), row(3)], { GEMINI_CONCURRENCY: '1' });
    expect(round()).toBe(true);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([1]);
    const next = '; no reply was generated (no Gemini call). Reply by hand if the submission gives another way, then mark the row SENT, or SKIPPED';
    expect(cells(w)).toEqual([
      ['FAILED', 0, `MAIL_PERMANENT: no email address in the submission${next}`],
      ['FAILED', 0, `MAIL_PERMANENT: not a valid email address: mina.example.com${next}`],
      ['AWAITING_APPROVAL', 1, ''],
    ]);
    expect(logOf(w).slice(0, 2)).toEqual([
      `evt-1 PENDING>FAILED: MAIL_PERMANENT: no email address in the submission${next}`,
      `evt-2 PENDING>FAILED: MAIL_PERMANENT: not a valid email address: mina.example.com${next}`,
    ]);
    expect([...run.setAside]).toEqual([2, 3]);
    expect(run.summary).toMatchObject({ failed: 2, generated: 1, rounds: 1 });
  });

  it('only rows without an address: they are FAILED and the round returns false', () => {
    const { w, run, round } = setup([row(1, { recipient: '' })]);
    expect(round()).toBe(false);
    expect(w.queue.row(2).status).toBe('FAILED');
    expect(w.gemini.calls).toEqual([]);
    expect(run.summary).toMatchObject({ failed: 1, rounds: 0 });
  });

  it.each<[string, (queue: World['queue']) => void, Partial<QueueRow>]>([
    ['skipped by staff', (queue) => queue.edit(2, { status: 'SKIPPED' }), { status: 'SKIPPED', recipient: '' }],
    ['replaced by another submission', (queue) => queue.edit(2, { eventId: 'evt-other' }), { status: 'PENDING', eventId: 'evt-other' }],
    ['given a back-off', (queue) => queue.edit(2, { nextAttemptAt: T0 + 1 }), { status: 'PENDING', nextAttemptAt: T0 + 1 }],
    ['given an address', (queue) => queue.edit(2, { recipient: 'fixed@example.com' }), { status: 'PENDING', recipient: 'fixed@example.com' }],
  ])('a row without an address %s since the run read it is re-read, not FAILED, and the run keeps the fresh copy', (_what, act, expected) => {
    const { w, run, round } = setup([row(1, { recipient: '' })]);
    w.queue.beforeReadRows = (_numbers, queue) => act(queue);
    expect(round()).toBe(false);
    expect(w.queue.row(2)).toMatchObject({ ...expected, error: '' });
    expect(run.rows[0]).toMatchObject(expected);
    expect(w.audit.entries).toEqual([]);
    expect(run.summary.failed).toBe(0);
  });

  it('a batch held for the next commit is written before rows without an address are re-read', () => {
    const { w, run, round } = setup([row(1, { status: 'READY', result: 'x' }), row(2, { recipient: '' })]);
    const held = newBatch();
    moveRow(run, held, run.rows[0], 'AWAITING_APPROVAL', 'held by a test');
    holdBatch(run, held);
    let seen = '';
    w.queue.beforeReadRows = (_numbers, queue) => {
      seen = queue.row(2).status;
    };
    round();
    expect(seen).toBe('AWAITING_APPROVAL');
    expect(w.queue.writes.map((write) => write.map((r) => `${r.rowNumber}:${r.status}`))).toEqual([['2:AWAITING_APPROVAL'], ['3:FAILED']]);
  });

  it('a row to a suppressed address goes to NEEDS_REVIEW unwritten, set aside, and takes no place in the round', () => {
    const entry: SuppressedEntry = { address: 'ann@example.org', reason: 'asked us to stop', addedBy: 'desk@example.org', addedAt: T0 - 60_000 };
    const { w, run, round } = setup([row(1, { recipient: 'ann@example.org' }), row(2)], { GEMINI_CONCURRENCY: '1' });
    w.deps.suppression = new MemorySuppression([entry]);
    expect(round()).toBe(true);
    const error =
      'SUPPRESSED: ann@example.org is on the Suppressed sheet (added by desk@example.org: asked us to stop), so no reply is mailed to it. ' +
      'Leave the row (set SKIPPED), or remove the address from Suppressed and set PENDING for a new reply';
    expect(cells(w)).toEqual([
      ['NEEDS_REVIEW', 0, error],
      ['AWAITING_APPROVAL', 1, ''],
    ]);
    expect(logOf(w)[0]).toBe(`evt-1 PENDING>NEEDS_REVIEW: not generated (no Gemini call): ${error}`);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([1]);
    expect([...run.setAside]).toEqual([2]);
    expect(run.summary).toMatchObject({ needsReview: 1, generated: 1 });
  });
});

describe('runGenerationRound: a broken prompt template', () => {
  it('rows whose prompt does not render wait with the reason on the row, counted deferred, set aside; one incident lists each problem once', () => {
    const forms = [formConfig({ formId: 'Wr1tE5sy', prompt: 'Hi {{nickname}}' }), formConfig({ formId: 'Second', prompt: 'About {{topic}}' })];
    const { w, run, round } = setup([row(1), row(2), row(3, { formId: 'Second' })], {}, forms);
    expect(round()).toBe(false);
    const first = w.queue.row(2).error;
    const second = w.queue.row(4).error;
    expect(cells(w)).toEqual([
      ['PENDING', 0, first],
      ['PENDING', 0, first],
      ['PENDING', 0, second],
    ]);
    expect(first).toMatch(/^TEMPLATE_INVALID: Config for form "Wr1tE5sy": the prompt template uses \{\{nickname\}\}, which/);
    expect(second).toMatch(/^TEMPLATE_INVALID: Config for form "Second": the prompt template uses \{\{topic\}\}, which/);
    expect(w.incidents.raised).toEqual([{ code: 'TEMPLATE_INVALID', detail: `${first.slice('TEMPLATE_INVALID: '.length)}\n${second.slice('TEMPLATE_INVALID: '.length)}`, rows: [2, 3, 4] }]);
    expect(run.summary.deferred).toBe(3);
    expect([...run.setAside]).toEqual([2, 3, 4]);
    expect([...run.gone]).toEqual([]);
    expect(w.audit.entries).toEqual([]);
  });

  it('a broken row beside a good one: the good one is asked for, TEMPLATE_INVALID is raised and not said gone', () => {
    const forms = [formConfig({ formId: 'Wr1tE5sy', prompt: 'Hi {{nickname}}' }), formConfig({ formId: 'Second', approvalRequired: true })];
    const { w, run, round } = setup([row(1), row(2, { formId: 'Second' })], {}, forms);
    expect(round()).toBe(true);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([1]);
    expect(w.incidents.codes()).toEqual(['TEMPLATE_INVALID']);
    expect(run.raised.has('TEMPLATE_INVALID')).toBe(true);
  });

  it('an error that is no template mistake is thrown', () => {
    const { w, round } = setup([row(1)]);
    w.deps.readPayload = () => {
      throw new TypeError('payload reader broke');
    };
    expect(() => round()).toThrow(new TypeError('payload reader broke'));
    expect(w.queue.writes).toEqual([]);
  });
});

describe('runGenerationRound: asking Gemini', () => {
  it('a request the client gave no answer for is a transport failure of that row only', () => {
    const { w, round } = setup([row(1), row(2)]);
    const sizes = scripted(w, () => [okOutcome()]);
    round();
    expect(sizes).toEqual([2]);
    expect(cells(w)).toEqual([
      ['AWAITING_APPROVAL', 1, ''],
      ['PENDING', 1, 'GEMINI_RETRYABLE: Gemini could not be reached: no answer for this request'],
    ]);
  });

  it('a single request whose call throws is that transport failure, not asked again', () => {
    const { w, round } = setup([row(1)]);
    const sizes = scripted(w, () => {
      throw new Error('DNS error: generativelanguage.googleapis.com');
    });
    round();
    expect(sizes).toEqual([1]);
    expect(cells(w)).toEqual([['PENDING', 1, 'GEMINI_RETRYABLE: Gemini could not be reached: DNS error: generativelanguage.googleapis.com']]);
  });

  it('a batch that throws is asked again one request at a time: a throw, no answer and an answer each stay with their row', () => {
    const { w, round } = setup([row(1), row(2), row(3)]);
    const asked: string[][] = [];
    const sizes = scripted(w, (requests, call) => {
      asked.push(requests.map((request) => JSON.stringify(request.body).match(/tok-\d|Mina/)?.[0] ?? ''));
      if (call === 0 || call === 1) throw new Error(call === 0 ? 'Timeout' : 'Address unavailable');
      return call === 2 ? [] : [okOutcome()];
    });
    round();
    expect(sizes).toEqual([3, 1, 1, 1]);
    expect(cells(w)).toEqual([
      ['PENDING', 1, 'GEMINI_RETRYABLE: Gemini could not be reached: Address unavailable'],
      ['PENDING', 1, 'GEMINI_RETRYABLE: Gemini could not be reached: no answer for this request'],
      ['AWAITING_APPROVAL', 1, ''],
    ]);
  });

  it("requests not asked alone because the run's budget ended are given their attempt back", () => {
    const { w, round } = setup([row(1, { attempts: 2 }), row(2)], {}, approval, T0 + 60_000);
    const sizes = scripted(w, () => {
      w.clock.advance(60_000);
      throw new Error('Timeout');
    });
    round();
    expect(sizes).toEqual([2]);
    const error = "GEMINI_RETRYABLE: Gemini could not be reached: the batch failed (Timeout) and the run's budget ended before this request was asked alone";
    expect(cells(w)).toEqual([
      ['PENDING', 2, error],
      ['PENDING', 0, error],
    ]);
  });

  it('the budget is looked at before each request asked alone', () => {
    const { w, round } = setup([row(1), row(2)], {}, approval, T0 + 60_000);
    const sizes = scripted(w, (_requests, call) => {
      if (call === 1) w.clock.advance(60_000);
      if (call === 0) throw new Error('Timeout');
      return [okOutcome()];
    });
    round();
    expect(sizes).toEqual([2, 1]);
    expect(cells(w).map(([status, attempts]) => [status, attempts])).toEqual([
      ['AWAITING_APPROVAL', 1],
      ['PENDING', 0],
    ]);
  });
});

describe('runGenerationRound: a reply lost to thinking', () => {
  it('is asked again at once with the larger budget; the retry replaces the first verdict, and both calls are counted', () => {
    const { w, run, round } = setup([row(1)], { GEMINI_MODEL: 'gemini-2.5-flash' });
    w.gemini.respond = (_request, call) => (call === 0 ? THINKING : OK);
    round();
    const [[first], [second]] = w.gemini.calls;
    expect(w.gemini.calls.map((call) => call.length)).toEqual([1, 1]);
    expect(second).toEqual(withLargerBudget(first));
    expect(capOf(second)).toBeGreaterThan(capOf(first));
    expect(w.queue.row(2)).toMatchObject({ status: 'AWAITING_APPROVAL', attempts: 1, error: '' });
    expect(run.summary.usage).toEqual({
      'Wr1tE5sy|gemini-2.5-flash': { calls: 2, replies: 1, prompt: 39236 + 412, output: 71, thinking: 3071, cost: 0, unpriced: 2 },
    });
    expect(logOf(w)[1]).toBe('evt-1 GENERATING>AWAITING_APPROVAL: reply written; waits for approval; model gemini-2.5-flash (version gemini-flash-latest); tokens: prompt 39648, output 71, thinking 3071; est. no price for this model (GEMINI_PRICES)');
  });

  it('lost twice: FAILED, its reason saying the larger budget was tried', () => {
    const { w, round } = setup([row(1)]);
    w.gemini.respond = () => THINKING;
    round();
    expect(w.gemini.calls.map((call) => call.length)).toEqual([1, 1]);
    expect(w.queue.row(2)).toMatchObject({
      status: 'FAILED',
      error:
        'GEMINI_CONTENT: Gemini spent its whole output budget thinking and wrote no reply (3071 thinking tokens), also with 4× the budget. ' +
        'Next step: set a model that thinks less (Config "model" or GEMINI_MODEL, e.g. Flash-Lite) or shorten the prompt, then Retry; ' +
        'or reply yourself and set SENT',
    });
  });

  it('only the rows lost to thinking are asked again, each getting its own retry verdict', () => {
    const { w, round } = setup([row(1), row(2), row(3)]);
    let first = 0;
    w.gemini.respond = (_request, call) => {
      if (call === 0) return first++ === 1 ? okOutcome('First try.') : THINKING;
      return first++ === 3 ? okOutcome('Second try.') : fixtureOutcome(503, 'error-503');
    };
    round();
    expect(w.gemini.calls.map((call) => call.length)).toEqual([3, 2]);
    expect(w.queue.rows.map((r) => [r.status, r.result])).toEqual([
      ['AWAITING_APPROVAL', 'Second try.'],
      ['AWAITING_APPROVAL', 'First try.'],
      ['PENDING', ''],
    ]);
    expect(w.queue.row(4).error).toMatch(/^GEMINI_RETRYABLE: Gemini HTTP 503 UNAVAILABLE/);
  });

  it('a round with no reply lost to thinking makes no second call', () => {
    const { w, round } = setup([row(1)]);
    round();
    expect(w.gemini.calls.map((call) => call.length)).toEqual([1]);
  });

  it("once the run's budget is spent it is not asked again: that row waits, uncharged reason given; the others keep their reply", () => {
    const { w, round } = setup([row(1), row(2)], {}, approval, T0 + 60_000);
    let first = true;
    w.gemini.respond = () => {
      const lost = first;
      first = false;
      return lost ? THINKING : okOutcome('Written.');
    };
    w.gemini.onCall = () => w.clock.advance(60_000);
    round();
    expect(w.gemini.calls.map((call) => call.length)).toEqual([2]);
    expect(w.queue.rows.map((r) => [r.status, r.result, r.error])).toEqual([
      ['PENDING', '', "GEMINI_RETRYABLE: Gemini spent its whole output budget thinking; the run's budget ended before the retry with a larger budget"],
      ['AWAITING_APPROVAL', 'Written.', ''],
    ]);
  });
});

describe('runGenerationRound: DAILY_TOKEN_BUDGET', () => {
  const spentBefore = (run: Run, tokens: number) => {
    run.summary.usage = { 'Wr1tE5sy|gemini-3.5-flash': { replies: 1, calls: 1, prompt: tokens, output: 0, thinking: 0, cost: 0, unpriced: 0 } };
  };

  it.each<[string, boolean, string, number | undefined, number]>([
    ['no budget set, whatever was spent', false, '0', 5_000_000, 5_000_000],
    ['no budget and nothing known spent today', false, '0', undefined, 0],
    ['a budget, nothing known spent before the run, none in it', false, '1000', undefined, 0],
    ['a token below it (before the run and in it added up)', false, '1000', 600, 399],
    ['exactly at it (before the run and in it added up)', true, '1000', 600, 400],
    ['past it by the run alone', true, '1000', undefined, 1200],
    ['past it by the days before alone', true, '1000', 1500, 0],
  ])('%s: reached %s', (_what, reached, budget, today, inRun) => {
    const { w, run, round } = setup([row(1)], { DAILY_TOKEN_BUDGET: budget });
    w.deps.tokensSpentToday = today;
    spentBefore(run, inRun);
    expect(round()).toBe(!reached);
    expect(w.gemini.calls.length).toBe(reached ? 0 : 1);
    expect(run.gone.has('GEMINI_BUDGET_REACHED')).toBe(!reached);
  });

  it('reached: rows stay PENDING and unclaimed, generation halts with GEMINI_BUDGET_REACHED, the incident says the sums', () => {
    const { w, run, round } = setup([row(1)], { DAILY_TOKEN_BUDGET: '1000' });
    w.deps.tokensSpentToday = 1_000;
    spentBefore(run, 234);
    expect(round()).toBe(false);
    expect(w.queue.writes).toEqual([]);
    expect(cells(w)).toEqual([['PENDING', 0, '']]);
    expect(run.summary.generationHaltedBy).toBe('GEMINI_BUDGET_REACHED');
    expect(w.incidents.raised).toEqual([{ code: 'GEMINI_BUDGET_REACHED', detail: '1,234 tokens spent today of DAILY_TOKEN_BUDGET 1,000', rows: [] }]);
    expect(run.raised.has('GEMINI_BUDGET_REACHED')).toBe(true);
    expect(run.setAside.size).toBe(0);
  });

  it('reached after another halt: the first halt stays the one named', () => {
    const { w, run, round } = setup([row(1)], { DAILY_TOKEN_BUDGET: '1000' });
    w.deps.tokensSpentToday = 2_000;
    run.summary.generationHaltedBy = 'GEMINI_KEY_INVALID';
    expect(round()).toBe(false);
    expect(run.summary.generationHaltedBy).toBe('GEMINI_KEY_INVALID');
    expect(w.incidents.codes()).toEqual(['GEMINI_BUDGET_REACHED']);
  });

  it('rows without an address are FAILED even once the budget is reached (they cost no call)', () => {
    const { w, round } = setup([row(1, { recipient: '' }), row(2)], { DAILY_TOKEN_BUDGET: '1000' });
    w.deps.tokensSpentToday = 1_000;
    expect(round()).toBe(false);
    expect(w.queue.rows.map((r) => r.status)).toEqual(['FAILED', 'PENDING']);
  });
});
