// A generation round, one rule per case with exact rows, counters, Log lines and incidents: what is claimed, how
// Gemini is asked (batch, one by one, the budget), and how each verdict is recorded, including a lasting outage.
import { describe, expect, it } from 'vitest';
import type { GeminiOutcome, GeminiRequest } from '../../../src/core/domain/ports';
import { HALT_RECHECK_MS, runProcessing } from '../../../src/core/processing/process-run';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import { fixedRandom, fixtureOutcome, formConfig, okOutcome, pendingRow, T0, world, type World } from '../memory-ports';

const start = { startedAt: T0 };
const row = (n: number, patch: Partial<QueueRow> = {}) => pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, ...patch });
/** Approval on: a written reply stays in AWAITING_APPROVAL, so only the generation side acts. */
const approval = [formConfig({ approvalRequired: true })];
const logOf = (w: World, eventId: string) => w.audit.entries.filter((entry) => entry.eventId === eventId).map((entry) => `${entry.from}>${entry.to}: ${entry.detail}`);
const statuses = (w: World) => w.queue.rows.map((r) => r.status);
/** Reads of the Queue counted, so a test can act at the n-th one (1: the claims' read-back). */
function onRead(w: World, n: number, act: (queue: World['queue']) => void): void {
  let reads = 0;
  w.queue.beforeReadRows = (_numbers, queue) => {
    if (++reads === n) act(queue);
  };
}
/**
 * Writes of Queue rows counted, so a test can act right before the n-th one, after the run read the rows it writes
 * (1: the claims, 2: the verdicts; each compare-and-set against what the run read).
 */
function onWrite(w: World, n: number, act: (queue: World['queue']) => void): void {
  let writes = 0;
  w.queue.beforeWriteRows = (_rows, queue) => {
    if (++writes === n) act(queue);
  };
}

describe('which rows a round claims', () => {
  it.each<[string, number | null, boolean]>([
    ['no back-off', null, true],
    ['a back-off ending now', T0, true],
    ['a back-off ending a millisecond later', T0 + 1, false],
  ])('a PENDING row with %s is due: %s', (_what, nextAttemptAt, due) => {
    const w = world([row(1, { nextAttemptAt })], {}, approval);
    runProcessing(w.deps, start);
    expect(w.gemini.requestCount()).toBe(due ? 1 : 0);
  });

  it.each<[string, (queue: World['queue']) => void]>([
    ['skipped by staff', (queue) => queue.edit(2, { status: 'SKIPPED' })],
    ['replaced by a submission staff skipped', (queue) => queue.edit(2, { eventId: 'evt-other', status: 'SKIPPED' })],
    ['gone (the sheet got shorter)', (queue) => (queue.rows = queue.rows.filter((r) => r.rowNumber !== 2))],
  ])('a row %s since the run read the Queue is not claimed; the next round takes the next row', (_what, act) => {
    const w = world([row(1), row(2)], { GEMINI_CONCURRENCY: '1' }, approval);
    onWrite(w, 1, act);
    const summary = runProcessing(w.deps, start);
    expect(logOf(w, 'evt-1').filter((line) => line.startsWith('PENDING>GENERATING'))).toEqual([]);
    expect(w.gemini.requestCount()).toBe(1);
    expect(summary).toMatchObject({ generated: 1, rounds: 1 });
  });

  it('a row gone from the sheet beside one still there is not looked for again', () => {
    const w = world([row(1), row(2), row(3)], { GEMINI_CONCURRENCY: '2' }, approval);
    let looksForRow3 = 0;
    w.queue.beforeReadRows = (numbers, queue) => {
      if (numbers.includes(3)) looksForRow3++;
      if (looksForRow3 === 1) queue.rows = queue.rows.filter((r) => r.rowNumber !== 3);
    };
    const summary = runProcessing(w.deps, start);
    expect(looksForRow3).toBe(1);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([1, 1]);
    expect(summary.generated).toBe(2);
  });

  it('a row replaced by another due submission is never asked for with the old one; the new one is asked for by the next run', () => {
    const w = world([row(1, { submission: 'Old submission' })], {}, approval);
    onWrite(w, 1, (queue) => queue.edit(2, { eventId: 'evt-new', submission: 'New submission' }));
    const prompts: string[] = [];
    w.gemini.respond = (request) => {
      prompts.push(JSON.stringify(request.body));
      return okOutcome();
    };
    runProcessing(w.deps, start);
    expect(prompts.filter((prompt) => prompt.includes('Old submission'))).toEqual([]);
    expect(w.queue.row(2)).toMatchObject({ eventId: 'evt-new', status: 'PENDING', attempts: 0 });
    runProcessing(w.deps, { startedAt: T0 + 60_000 });
    expect(prompts.some((prompt) => prompt.includes('New submission'))).toBe(true);
    expect(prompts.filter((prompt) => prompt.includes('Old submission'))).toEqual([]);
    expect(w.queue.row(2)).toMatchObject({ eventId: 'evt-new', status: 'AWAITING_APPROVAL' });
  });

  it('a round whose every claim was taken lets the next round go on', () => {
    const w = world([row(1), row(2)], { GEMINI_CONCURRENCY: '1' }, approval);
    onRead(w, 1, (queue) => queue.edit(2, { status: 'SKIPPED', claimedAt: null }));
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['SKIPPED', 'AWAITING_APPROVAL']);
    expect(summary.generated).toBe(1);
  });

  it('a claim is logged with its attempt number', () => {
    const w = world([row(1, { attempts: 2 })], {}, approval);
    runProcessing(w.deps, start);
    expect(logOf(w, 'evt-1')[0]).toBe('PENDING>GENERATING: claimed for generation (attempt 3)');
  });

  it('a claim taken from us before the read-back is not asked for, nor claimed again in this run', () => {
    const w = world([row(1)], {}, approval);
    onRead(w, 1, (queue) => queue.edit(2, { status: 'PENDING', claimedAt: null }));
    const summary = runProcessing(w.deps, start);
    expect(w.gemini.calls).toEqual([]);
    expect(logOf(w, 'evt-1').filter((line) => line.startsWith('PENDING>GENERATING'))).toHaveLength(1);
    expect(summary.rounds).toBe(0);
  });

  it.each([
    ['no address', ''],
    ['no valid address', 'mina.example.com'],
  ])('every row with %s is FAILED without a Gemini call, and a row fixed meanwhile is not (it waits for the next run)', (_what, recipient) => {
    const w = world([row(1, { recipient }), row(2, { recipient }), row(3, { recipient })], {}, approval);
    onRead(w, 1, (queue) => queue.edit(4, { recipient: 'fixed@example.com' }));
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['FAILED', 'FAILED', 'PENDING']);
    expect(w.gemini.calls).toEqual([]);
    expect(summary).toMatchObject({ failed: 2, generated: 0 });
  });

  it.each<[string, (queue: World['queue']) => void]>([
    ['skipped by staff', (queue) => queue.edit(2, { status: 'SKIPPED' })],
    ['replaced by another submission', (queue) => queue.edit(2, { eventId: 'evt-other' })],
  ])('a row without an address %s since the run read it is not FAILED', (_what, act) => {
    const w = world([row(1, { recipient: '' })], {}, approval);
    onRead(w, 1, act);
    runProcessing(w.deps, start);
    expect(w.queue.row(2).status).not.toBe('FAILED');
  });
});

describe('a broken prompt template', () => {
  it('rows of one broken form wait, the problem listed once; two problems one per line', () => {
    const w = world([row(1), row(2), row(3, { formId: 'Second' })], {}, [
      formConfig({ formId: 'Wr1tE5sy', prompt: 'Hi {{nickname}}' }),
      formConfig({ formId: 'Second', prompt: 'About {{topic}}' }),
    ]);
    const summary = runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    expect(summary.deferred).toBe(3);
    const [incident] = w.incidents.raised;
    expect(incident.code).toBe('TEMPLATE_INVALID');
    expect(incident.rows).toEqual([2, 3, 4]);
    expect(incident.detail.split('\n')).toEqual([
      expect.stringMatching(/^Config for form "Wr1tE5sy": the prompt template uses \{\{nickname\}\}, which/),
      expect.stringMatching(/^Config for form "Second": the prompt template uses \{\{topic\}\}, which/),
    ]);
  });

  it('a prompt that renders says TEMPLATE_INVALID is gone', () => {
    const w = world([row(1)], {}, approval);
    runProcessing(w.deps, start);
    expect(w.incidents.cleared).toContain('TEMPLATE_INVALID');
  });

  it('an error that is no template mistake ends the run as a code bug', () => {
    const w = world([row(1)], {}, approval);
    w.deps.readPayload = () => {
      throw new TypeError('payload reader broke');
    };
    expect(runProcessing(w.deps, start).stoppedBecause).toBe('code-bug');
    expect(w.queue.row(2).status).toBe('PENDING');
  });
});

describe('asking Gemini', () => {
  const failing = (w: World, answer: (requests: readonly GeminiRequest[], call: number) => GeminiOutcome[]) => {
    let call = 0;
    w.deps.gemini = { generateAll: (requests) => answer(requests, call++) };
  };

  it('a request the client gave no answer for is a transport failure of that row only', () => {
    const w = world([row(1), row(2)], {}, approval);
    failing(w, () => [okOutcome()]);
    runProcessing(w.deps, start);
    expect(statuses(w)).toEqual(['AWAITING_APPROVAL', 'PENDING']);
    expect(w.queue.row(3).error).toBe('GEMINI_RETRYABLE: Gemini could not be reached: no answer for this request');
  });

  it('a single request whose call throws is that transport failure, asked once', () => {
    const w = world([row(1)], {}, approval);
    const calls: number[] = [];
    failing(w, (requests) => {
      calls.push(requests.length);
      throw new Error('DNS error: generativelanguage.googleapis.com');
    });
    runProcessing(w.deps, start);
    expect(calls).toEqual([1]);
    expect(w.queue.row(2)).toMatchObject({ status: 'PENDING', attempts: 1, error: 'GEMINI_RETRYABLE: Gemini could not be reached: DNS error: generativelanguage.googleapis.com' });
  });

  it('a batch that throws is asked again one request at a time; only the failing one is charged', () => {
    const w = world([row(1), row(2)], {}, approval);
    const calls: number[] = [];
    failing(w, (requests, call) => {
      calls.push(requests.length);
      if (call === 0 || call === 2) throw new Error('Timeout');
      return call === 1 ? [okOutcome()] : [];
    });
    runProcessing(w.deps, start);
    expect(calls).toEqual([2, 1, 1]);
    expect(statuses(w)).toEqual(['AWAITING_APPROVAL', 'PENDING']);
    expect(w.queue.row(3)).toMatchObject({ attempts: 1, error: 'GEMINI_RETRYABLE: Gemini could not be reached: Timeout' });
  });

  it('a single request asked alone with no answer is that transport failure', () => {
    const w = world([row(1), row(2)], {}, approval);
    failing(w, (_requests, call) => {
      if (call === 0) throw new Error('Timeout');
      return call === 1 ? [okOutcome()] : [];
    });
    runProcessing(w.deps, start);
    expect(w.queue.row(3).error).toBe('GEMINI_RETRYABLE: Gemini could not be reached: no answer for this request');
  });

  it("requests not asked alone because the run's budget ended keep their attempt", () => {
    const w = world([row(1, { attempts: 2 }), row(2)], { RUN_BUDGET_SECONDS: '60' }, approval);
    failing(w, () => {
      w.clock.advance(61_000);
      throw new Error('Timeout');
    });
    const summary = runProcessing(w.deps, start);
    const error = "GEMINI_RETRYABLE: Gemini could not be reached: the batch failed (Timeout) and the run's budget ended before this request was asked alone";
    expect(w.queue.rows.map((r) => [r.status, r.attempts, r.error, r.claimedAt])).toEqual([
      ['PENDING', 2, error, null],
      ['PENDING', 0, error, null],
    ]);
    expect(logOf(w, 'evt-1')[1]).toBe(`GENERATING>PENDING: ${error}; attempt not counted`);
    expect(summary).toMatchObject({ deferred: 2, failed: 0, stoppedBecause: 'budget' });
    // Requests never asked say nothing about Gemini being up.
    expect(w.incidents.cleared).not.toContain('GEMINI_UNAVAILABLE');
  });
});

describe('a reply lost to thinking', () => {
  it("is not asked again once the run's budget is spent: the row waits for a later run", () => {
    const w = world([row(1)], { RUN_BUDGET_SECONDS: '60' }, approval);
    w.gemini.respond = () => fixtureOutcome(200, 'max-tokens-thinking');
    w.gemini.onCall = () => w.clock.advance(61_000);
    runProcessing(w.deps, start);
    expect(w.gemini.requestCount()).toBe(1);
    expect(w.queue.row(2)).toMatchObject({
      status: 'PENDING',
      error: "GEMINI_RETRYABLE: Gemini spent its whole output budget thinking; the run's budget ended before the retry with a larger budget",
    });
  });

  it('is asked again with the larger budget, and what the retry says names the model', () => {
    const w = world([row(1), row(2)], { GEMINI_MODEL: 'gemini-2.5-flash' }, approval);
    w.gemini.respond = (_request, call) => (call === 0 ? fixtureOutcome(200, 'max-tokens-thinking') : fixtureOutcome(404, 'error-404-model'));
    runProcessing(w.deps, start);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([2, 2]);
    expect(w.queue.row(2).error).toMatch(/^GEMINI_MODEL_NOT_FOUND: Gemini model "gemini-2.5-flash" was not found/);
  });

  it("once the run's budget is spent, only the rows lost to thinking wait; the others keep their reply", () => {
    const w = world([row(1), row(2)], { RUN_BUDGET_SECONDS: '60' }, approval);
    let first = true;
    w.gemini.respond = () => {
      const lost = first;
      first = false;
      return lost ? fixtureOutcome(200, 'max-tokens-thinking') : okOutcome('Written.');
    };
    w.gemini.onCall = () => w.clock.advance(61_000);
    runProcessing(w.deps, start);
    expect(w.queue.rows.map((r) => [r.status, r.result])).toEqual([
      ['PENDING', ''],
      ['AWAITING_APPROVAL', 'Written.'],
    ]);
  });

  it('only the rows lost to thinking are asked again', () => {
    const w = world([row(1), row(2)], {}, approval);
    let first = true;
    w.gemini.respond = (_request, call) => {
      if (call === 0) {
        const lost = first;
        first = false;
        return lost ? fixtureOutcome(200, 'max-tokens-thinking') : okOutcome('First try.');
      }
      return okOutcome('Second try.');
    };
    runProcessing(w.deps, start);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([2, 1]);
    expect(w.queue.rows.map((r) => r.result)).toEqual(['Second try.', 'First try.']);
  });

  it('a round with no reply lost to thinking makes no second call', () => {
    const w = world([row(1)], {}, approval);
    runProcessing(w.deps, start);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([1]);
  });
});

describe('recording the verdicts', () => {
  it('a reply keeps the mail reference the row has and clears the error; a new row gets a free one', () => {
    const w = world([row(1, { mailRef: 'FQ-KEPT01', error: 'GEMINI_RETRYABLE: earlier' }), row(2), row(3, { status: 'SENT', mailRef: 'FQ-GGGGGG', sentAt: T0 - 1 })], {}, approval);
    w.deps.random = fixedRandom(0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0, 0, 0);
    runProcessing(w.deps, start);
    expect(w.queue.rows.map((r) => [r.status, r.mailRef, r.error])).toEqual([
      ['AWAITING_APPROVAL', 'FQ-KEPT01', ''],
      ['AWAITING_APPROVAL', 'FQ-000000', ''],
      ['SENT', 'FQ-GGGGGG', ''],
    ]);
  });

  it.each([
    [true, 'GENERATING>AWAITING_APPROVAL: reply written; waits for approval'],
    [false, 'GENERATING>READY: reply written'],
  ])('with approval %s the Log says %s, then the model and what it spent', (approvalRequired, line) => {
    const w = world([row(1)], {}, [formConfig({ approvalRequired })]);
    runProcessing(w.deps, start);
    expect(logOf(w, 'evt-1')[1]).toMatch(new RegExp(`^${line}; model gemini-[\\w.-]+; tokens: prompt \\d+, output \\d+, thinking \\d+; est\\. `));
  });

  it('a 503 is retried later with the time in the Log, and counted as deferred', () => {
    const w = world([row(1)], {}, approval);
    w.gemini.respond = () => fixtureOutcome(503, 'error-503');
    const summary = runProcessing(w.deps, start);
    expect(logOf(w, 'evt-1')[1]).toBe(`GENERATING>PENDING: ${w.queue.row(2).error}; next try at 2026-11-20T10:01:00.000Z`);
    expect(summary).toMatchObject({ deferred: 1, failed: 0 });
  });

  it('a systemic error gives the attempt back and pauses generation', () => {
    const w = world([row(1, { attempts: 2 })], {}, approval);
    w.gemini.respond = () => fixtureOutcome(400, 'error-400-bad-key');
    const summary = runProcessing(w.deps, start);
    expect(w.queue.row(2).attempts).toBe(2);
    expect(logOf(w, 'evt-1')[1]).toBe(`GENERATING>PENDING: ${w.queue.row(2).error}; generation paused, attempt not counted`);
    expect(summary).toMatchObject({ deferred: 1, generationHaltedBy: 'GEMINI_KEY_INVALID' });
  });

  it('a reply lost to thinking twice is FAILED with the next step', () => {
    const w = world([row(1)], {}, approval);
    w.gemini.respond = () => fixtureOutcome(200, 'max-tokens-thinking');
    const summary = runProcessing(w.deps, start);
    // The whole next step fits the cell: nothing is cut off.
    expect(w.queue.row(2).error).toBe(
      'GEMINI_CONTENT: Gemini spent its whole output budget thinking and wrote no reply (3071 thinking tokens), also with 4× the budget. ' +
        'Next step: set a model that thinks less (Config "model" or GEMINI_MODEL, e.g. Flash-Lite) or shorten the prompt, then Retry; ' +
        'or reply yourself and set SENT',
    );
    expect(summary).toMatchObject({ failed: 1, deferred: 0 });
  });

  it.each<[string, GeminiOutcome]>([
    ['a blocked prompt', fixtureOutcome(200, 'blocked-prompt')],
    ['a rejected request', { kind: 'http', status: 400, body: '{"error":{"status":"INVALID_ARGUMENT"}}' }],
  ])('%s is FAILED and counted', (_what, outcome) => {
    const w = world([row(1)], {}, approval);
    w.gemini.respond = () => outcome;
    expect(runProcessing(w.deps, start)).toMatchObject({ failed: 1, deferred: 0 });
  });

  it('a staff edit to another cell while Gemini wrote is kept', () => {
    const w = world([row(1)], {}, approval);
    onWrite(w, 2, (queue) => queue.edit(2, { recipient: 'fixed@example.com' }));
    runProcessing(w.deps, start);
    expect(w.queue.row(2)).toMatchObject({ status: 'AWAITING_APPROVAL', recipient: 'fixed@example.com' });
  });

  it('staff edits to two rows while Gemini wrote are each kept', () => {
    const w = world([row(1), row(2)], {}, approval);
    onWrite(w, 2, (queue) => {
      queue.edit(2, { recipient: 'first@example.com' });
      queue.edit(3, { recipient: 'second@example.com' });
    });
    runProcessing(w.deps, start);
    expect(w.queue.rows.map((r) => [r.status, r.recipient])).toEqual([
      ['AWAITING_APPROVAL', 'first@example.com'],
      ['AWAITING_APPROVAL', 'second@example.com'],
    ]);
  });

  it('a row staff skipped while Gemini wrote stays SKIPPED and is not counted as generated', () => {
    const w = world([row(1)], {}, approval);
    onWrite(w, 2, (queue) => queue.edit(2, { status: 'SKIPPED', claimedAt: null }));
    const summary = runProcessing(w.deps, start);
    expect(w.queue.row(2).status).toBe('SKIPPED');
    expect(summary.generated).toBe(0);
  });

  it('a row deleted while Gemini wrote is not written, and the run ends normally', () => {
    const w = world([row(1)], {}, approval);
    onWrite(w, 2, (queue) => (queue.rows = []));
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('done');
    expect(w.queue.rows).toEqual([]);
  });
});

describe('an outage round', () => {
  const outage = (prior: { runs: number; rowCount: number } | null, attempts = 2) => {
    const w = world([row(1, { attempts })], {}, approval);
    if (prior) w.incidents.prior.set('GEMINI_UNAVAILABLE', prior);
    w.gemini.respond = () => fixtureOutcome(503, 'error-503');
    return { w, summary: runProcessing(w.deps, start) };
  };

  it('the first time: the row is charged and backs off, and GEMINI_UNAVAILABLE is raised naming it', () => {
    const { w, summary } = outage(null);
    expect(w.queue.row(2)).toMatchObject({ status: 'PENDING', attempts: 3 });
    expect(w.incidents.raised).toEqual([{ code: 'GEMINI_UNAVAILABLE', detail: expect.stringMatching(/^Gemini HTTP 503 UNAVAILABLE/), rows: [2] }]);
    expect(summary).toMatchObject({ deferred: 1, generationHaltedBy: null });
    expect(w.incidents.cleared).not.toContain('GEMINI_UNAVAILABLE');
  });

  it('a lasting outage gives the attempt back and pauses generation', () => {
    const { w, summary } = outage({ runs: 2, rowCount: 2 });
    const error = w.queue.row(2).error;
    expect(error).toMatch(/^GEMINI_UNAVAILABLE: Gemini HTTP 503 UNAVAILABLE/);
    expect(w.queue.row(2)).toMatchObject({ status: 'PENDING', attempts: 2, claimedAt: null });
    expect(logOf(w, 'evt-1')[1]).toBe(`GENERATING>PENDING: ${error}; generation paused, attempt not counted`);
    expect(w.incidents.raised.map((incident) => [incident.code, incident.rows])).toEqual([['GEMINI_UNAVAILABLE', [2]]]);
    expect(summary).toMatchObject({ deferred: 1, generationHaltedBy: 'GEMINI_UNAVAILABLE' });
    // The held row is PENDING in the run's own view too: the next run comes back at the halt's recheck, not at a
    // GENERATING claim's stale deadline.
    expect(summary.nextDueAt).toBe(T0 + HALT_RECHECK_MS);
  });

  it('every row Gemini did not answer is named in the one GEMINI_UNAVAILABLE', () => {
    const w = world([row(1), row(2)], {}, approval);
    w.gemini.respond = () => fixtureOutcome(503, 'error-503');
    runProcessing(w.deps, start);
    expect(w.incidents.raised.map((incident) => [incident.code, incident.rows])).toEqual([['GEMINI_UNAVAILABLE', [2, 3]]]);
  });

  it('a lasting outage never takes attempts below zero', () => {
    const { w } = outage({ runs: 2, rowCount: 2 }, 0);
    expect(w.queue.row(2).attempts).toBe(0);
  });

  it('an answer says GEMINI_UNAVAILABLE is gone', () => {
    const w = world([row(1)], {}, approval);
    runProcessing(w.deps, start);
    expect(w.incidents.cleared).toContain('GEMINI_UNAVAILABLE');
  });
});

describe('a cell staff edit while the row is claimed for generation', () => {
  it.each<[string, Partial<QueueRow>, (w: World) => unknown, unknown]>([
    ['a corrected recipient is the address mailed', { recipient: 'fixed@example.com' }, (w) => w.mailer.outbox.map((mail) => mail.to), ['fixed@example.com']],
    // The verdict's compare-and-set checks mail_ref against the row as read back, so the reply still lands and is sent.
    ['a mail_ref set then is kept and the reply is written and sent', { mailRef: 'FQ-STAFF1' }, (w) => [w.queue.row(2).status, w.queue.row(2).mailRef, w.mailer.outbox.length], ['SENT', 'FQ-STAFF1', 1]],
  ])('%s (the edit lands between the claim and its read-back)', (_what, edit, observed, expected) => {
    const w = world([row(1, { recipient: 'typo@exmaple.com' })]);
    onRead(w, 1, (queue) => queue.edit(2, edit));
    runProcessing(w.deps, start);
    expect(observed(w)).toEqual(expected);
  });
});
