// runProcessing (src/core/processing/process-run.ts), one section per theme: generation, sending, send windows, held and refused writes, row identity, the send ledger, housekeeping, its own rules, models and usage.
import { describe, expect, it } from 'vitest';
import { runProcessing, HALT_RECHECK_MS } from '../../../src/core/processing/process-run';
import type { GeminiOutcome, GeminiRequest } from '../../../src/core/domain/ports';
import { fixtureOutcome, formConfig, okOutcome, pendingRow, T0, world, fixedRandom, type World, MemorySuppression } from '../memory-ports';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { describeRepair, factsOf, ledgerRepairOf, ledgerStateOf, looksEditedByHand, vouchedColumns, withLedgerFacts, type LedgerFacts } from '../../../src/core/domain/mail/send-ledger';
import { codedError } from '../../../src/core/domain/failures/errors';
import { findDuplicates } from '../../../src/core/processing/duplicates';
import { isStale, staleDeadline } from '../../../src/core/processing/stale-sweep';
import { firstLiveModel, modelList, modelsFor, nextLiveModel, readRetiredModels, retiredModelsToWrite, RETIRED_MODEL_RECHECK_MS } from '../../../src/core/domain/gemini/model-list';
import { estimateCost, parsePrices, priceOf, usageOf, DEFAULT_PRICES } from '../../../src/core/domain/gemini/token-usage';
import { addCall, readUsage, tokensOn, usageSections, usageToWrite, type UsageTally } from '../../../src/core/domain/gemini/usage-tally';
import { readSettings } from '../../../src/core/domain/config/settings';

const start = { startedAt: T0 };
const row = (n: number, patch: Partial<QueueRow> = {}) => pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, ...patch });
const HOUR = 3_600_000;
const MINUTE = 60_000;

// runProcessing's generation side: claims, read-back, every Gemini outcome class, back-off, budget and pause.
const rowsOf = (n: number) => Array.from({ length: n }, (_v, i) => pendingRow({ eventId: `evt-${i}`, responseToken: `tok-${i}` }));

describe('runProcessing: generation', () => {
  it('drains the spill first, then takes a PENDING row through READY to SENT in one run, logging each move', () => {
    const w = world([pendingRow()]);
    const summary = runProcessing(w.deps, start);
    const row = w.queue.row(2);
    expect(w.drains).toBe(1);
    expect(row).toMatchObject({ status: 'SENT', attempts: 1, result: 'Dear Mina, thank you.', sentAt: T0, error: '' });
    expect(row.mailRef).toMatch(/^FQ-[0-9A-Z]{6}$/);
    expect(w.mailer.outbox).toHaveLength(1);
    expect(w.audit.entries.map((e) => `${e.from}>${e.to}:${e.by}`)).toEqual([
      'PENDING>GENERATING:system',
      'GENERATING>READY:system',
      'READY>SENDING:system',
      'SENDING>SENDING:system', // about to send: written and flushed right before the mail
      'SENDING>SENT:system',
    ]);
    expect(summary).toMatchObject({ generated: 1, sent: 1, rounds: 1, stoppedBecause: 'done', nextDueAt: null });
  });

  it.each([
    ['no address', ''],
    ['an address that is not one', 'mina.example.com'],
  ])('a submission with %s costs no Gemini call: FAILED at once with the reason', (_name, recipient) => {
    const w = world([pendingRow({ recipient }), pendingRow({ eventId: 'e2', responseToken: 't2' })]);
    const summary = runProcessing(w.deps, start);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([1]);
    expect(w.queue.row(2)).toMatchObject({ status: 'FAILED', attempts: 0, result: '' });
    expect(w.queue.row(2).error).toMatch(/^MAIL_PERMANENT: (no email address|not a valid email address).*no reply was generated \(no Gemini call\)/);
    expect(w.queue.row(3).status).toBe('SENT');
    expect(summary.failed).toBe(1);
  });

  it('with approval on, a reply waits in AWAITING_APPROVAL and nothing is mailed', () => {
    const w = world([pendingRow()], {}, [formConfig({ approvalRequired: true })]);
    runProcessing(w.deps, start);
    expect(w.queue.row(2).status).toBe('AWAITING_APPROVAL');
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('calls Gemini for up to GEMINI_CONCURRENCY rows at once, in rounds', () => {
    const w = world(rowsOf(5), { GEMINI_CONCURRENCY: '2' });
    const summary = runProcessing(w.deps, start);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([2, 2, 1]);
    expect(summary).toMatchObject({ generated: 5, sent: 5, rounds: 3 });
  });

  it('a 503 sends the row back to PENDING with a back-off (attempt 1: RETRY_BASE_SECONDS with jitter 0.5 → 60 s)', () => {
    const w = world([pendingRow()]);
    w.gemini.respond = () => fixtureOutcome(503, 'error-503');
    const summary = runProcessing(w.deps, start);
    expect(w.queue.row(2)).toMatchObject({ status: 'PENDING', attempts: 1, nextAttemptAt: T0 + 60_000, claimedAt: null });
    expect(w.queue.row(2).error).toMatch(/^GEMINI_RETRYABLE: Gemini HTTP 503 UNAVAILABLE/);
    expect(summary).toMatchObject({ deferred: 1, nextDueAt: T0 + 60_000 });
  });

  it("a 429 per minute waits at least Gemini's retryDelay", () => {
    const w = world([pendingRow()], { RETRY_BASE_SECONDS: '5' });
    w.gemini.respond = () => fixtureOutcome(429, 'error-429-per-minute');
    runProcessing(w.deps, start);
    expect(w.queue.row(2).nextAttemptAt).toBe(T0 + 17_000);
  });

  it('a 429 per minute raises GEMINI_RATE_LIMITED with the rows it held back', () => {
    const w = world([pendingRow(), pendingRow({ eventId: 'e2', responseToken: 't2' })]);
    w.gemini.respond = () => fixtureOutcome(429, 'error-429-per-minute');
    runProcessing(w.deps, start);
    expect(w.incidents.raised).toEqual([expect.objectContaining({ code: 'GEMINI_RATE_LIMITED', rows: [2, 3] })]);
    expect(w.incidents.cleared).not.toContain('GEMINI_RATE_LIMITED');
  });

  it('a 503 is retried without a rate-limit incident', () => {
    const w = world([pendingRow()]);
    w.gemini.respond = () => fixtureOutcome(503, 'error-503');
    runProcessing(w.deps, start);
    expect(w.incidents.codes()).not.toContain('GEMINI_RATE_LIMITED');
  });

  it('a retryable failure on the last allowed attempt is FAILED, saying it gave up', () => {
    const w = world([pendingRow({ attempts: 4 })], { MAX_ATTEMPTS: '5' });
    w.gemini.respond = () => ({ kind: 'transport', message: 'Timeout' });
    const summary = runProcessing(w.deps, start);
    expect(w.queue.row(2)).toMatchObject({ status: 'FAILED', attempts: 5 });
    expect(w.queue.row(2).error).toMatch(/^GEMINI_RETRYABLE: gave up after 5 attempts; last: Gemini could not be reached: Timeout/);
    expect(summary.failed).toBe(1);
  });

  it.each<[string, GeminiOutcome, string]>([
    ['a bad key', fixtureOutcome(400, 'error-400-bad-key'), 'GEMINI_KEY_INVALID'],
    ['a retired model', fixtureOutcome(404, 'error-404-model'), 'GEMINI_MODEL_NOT_FOUND'],
    ['the daily quota', fixtureOutcome(429, 'error-429-per-day'), 'GEMINI_DAILY_QUOTA'],
  ])('%s keeps rows PENDING with attempts not burned, pauses generation and raises one %s incident', (_name, outcome, code) => {
    const w = world(rowsOf(6), { GEMINI_CONCURRENCY: '2' });
    w.gemini.respond = () => outcome;
    const summary = runProcessing(w.deps, start);
    expect(w.gemini.calls).toHaveLength(1);
    expect(w.queue.rows.map((row) => [row.status, row.attempts])).toEqual(Array(6).fill(['PENDING', 0]));
    expect(w.queue.row(2).error.startsWith(`${code}: `)).toBe(true);
    expect(w.incidents.raised).toEqual([{ code, detail: w.queue.row(2).error, rows: [2, 3] }]);
    expect(summary).toMatchObject({ generationHaltedBy: code, generated: 0, failed: 0 });
    expect(summary.nextDueAt).toBe(T0 + 5 * 60_000);
  });

  it('a model-not-found incident names the GEMINI_MODEL setting and the model id', () => {
    const w = world([pendingRow()], { GEMINI_MODEL: 'gemini-1.0-pro' });
    w.gemini.respond = () => fixtureOutcome(404, 'error-404-model');
    runProcessing(w.deps, start);
    expect(w.incidents.raised[0].detail).toContain('model "gemini-1.0-pro" was not found: set Script Property GEMINI_MODEL');
  });

  it.each<[string, GeminiOutcome, RegExp]>([
    ['a blocked prompt', fixtureOutcome(200, 'blocked-prompt'), /^GEMINI_CONTENT: Gemini blocked the prompt \(SAFETY\)/],
    ['a cut reply', fixtureOutcome(200, 'cut-max-tokens'), /^GEMINI_CONTENT: .*finishReason MAX_TOKENS/],
    ['a 400 INVALID_ARGUMENT', { kind: 'http', status: 400, body: '{"error":{"code":400,"status":"INVALID_ARGUMENT"}}' }, /^GEMINI_REJECTED: /],
  ])('%s makes the row FAILED with the reason, not retried', (_name, outcome, error) => {
    const w = world([pendingRow()]);
    w.gemini.respond = () => outcome;
    runProcessing(w.deps, start);
    expect(w.queue.row(2).status).toBe('FAILED');
    expect(w.queue.row(2).error).toMatch(error);
    expect(w.gemini.requestCount()).toBe(1);
  });

  it('a successful generation clears the Gemini incidents; ones raised in the same run stay', () => {
    const ok = world([pendingRow()]);
    runProcessing(ok.deps, start);
    expect(ok.incidents.cleared).toEqual(expect.arrayContaining(['GEMINI_KEY_INVALID', 'GEMINI_MODEL_NOT_FOUND', 'GEMINI_DAILY_QUOTA', 'GEMINI_RATE_LIMITED']));
    const mixed = world(rowsOf(2));
    mixed.gemini.respond = (request) => (request.model === 'gemini-old' ? fixtureOutcome(404, 'error-404-model') : okOutcome());
    mixed.config.forms = [formConfig(), formConfig({ formId: 'OldForm', model: 'gemini-old' })];
    mixed.queue.edit(3, { formId: 'OldForm' });
    runProcessing(mixed.deps, start);
    expect(mixed.incidents.cleared).not.toContain('GEMINI_MODEL_NOT_FOUND');
    expect(mixed.incidents.cleared).toContain('GEMINI_KEY_INVALID');
  });

  it('stops starting rounds when the run budget is spent (Gemini takes 100 s a call, budget 270 s)', () => {
    const w = world(rowsOf(10), { GEMINI_CONCURRENCY: '2', RUN_BUDGET_SECONDS: '270' });
    w.gemini.onCall = () => w.clock.advance(100_000);
    const summary = runProcessing(w.deps, start);
    expect(summary).toMatchObject({ rounds: 3, generated: 6, stoppedBecause: 'budget' });
    expect(w.queue.rows.filter((row) => row.status === 'PENDING')).toHaveLength(4);
    expect(summary.nextDueAt).toBe(w.clock.now());
  });

  it('a row changed by another writer between claim and read-back is not sent to Gemini', () => {
    const w = world(rowsOf(3));
    // The first readRows of a round is the claim's read-back (the claim's compare-and-set needs no read before it).
    w.queue.beforeReadRows = (_numbers, queue) => {
      queue.edit(3, { status: 'SKIPPED' });
      queue.beforeReadRows = null;
    };
    runProcessing(w.deps, start);
    expect(w.gemini.calls[0].length).toBe(2);
    expect(w.queue.row(3).status).toBe('SKIPPED');
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SKIPPED', 'SENT']);
  });

  it('a row re-claimed by someone else (another claim time) is dropped and its outcome never written', () => {
    const w = world(rowsOf(2));
    // The first readRows of a round is the claim's read-back (the claim's compare-and-set needs no read before it).
    w.queue.beforeReadRows = (_numbers, queue) => {
      queue.edit(2, { claimedAt: T0 + 5000 });
      queue.beforeReadRows = null;
    };
    runProcessing(w.deps, start);
    expect(w.gemini.requestCount()).toBe(1);
    expect(w.queue.row(2)).toMatchObject({ status: 'GENERATING', claimedAt: T0 + 5000 });
  });

  it('staff skipping a row after the run read the Queue wins: it is neither claimed nor generated', () => {
    const w = world(rowsOf(2), { GEMINI_CONCURRENCY: '1' });
    // While the first row is with Gemini, staff skip the second, which this run read as PENDING.
    w.gemini.onCall = () => {
      if (w.gemini.requestCount() === 1) w.queue.edit(3, { status: 'SKIPPED' });
    };
    runProcessing(w.deps, start);
    expect(w.gemini.requestCount()).toBe(1);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SKIPPED']);
    expect(w.queue.writes.flat().some((row) => row.rowNumber === 3)).toBe(false);
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('staff skipping a row while Gemini writes wins: the outcome is not written over it', () => {
    const w = world([pendingRow()]);
    w.gemini.onCall = () => w.queue.edit(2, { status: 'SKIPPED' });
    runProcessing(w.deps, start);
    expect(w.queue.row(2)).toMatchObject({ status: 'SKIPPED', result: '' });
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('only due rows are generated; the earliest future attempt is returned as nextDueAt', () => {
    const w = world([pendingRow({ eventId: 'a', nextAttemptAt: T0 + 90_000 }), pendingRow({ eventId: 'b', nextAttemptAt: T0 - 1 })]);
    const summary = runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['PENDING', 'SENT']);
    expect(summary.nextDueAt).toBe(T0 + 90_000);
  });

  it('PAUSED stops generation and sending: Queue is not even read', () => {
    const w = world([pendingRow(), pendingRow({ eventId: 'r', status: 'READY', result: 'x', mailRef: 'FQ-AAAAAA' })], { PAUSED: 'true' });
    w.queue.failOn = { method: 'readAll', error: new Error('must not read') };
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('paused');
    expect(w.drains).toBe(1);
    expect(w.gemini.calls).toHaveLength(0);
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a prompt template with an unknown placeholder keeps rows PENDING with the reason on the row and raises TEMPLATE_INVALID', () => {
    const w = world([pendingRow()], {}, [formConfig({ prompt: 'Reply to {{nickname}}' })]);
    const summary = runProcessing(w.deps, start);
    expect(w.gemini.calls).toHaveLength(0);
    expect(w.queue.row(2)).toMatchObject({ status: 'PENDING', attempts: 0 });
    expect(w.queue.row(2).error).toMatch(/^TEMPLATE_INVALID: .*\{\{nickname\}\}/);
    expect(w.incidents.codes()).toEqual(['TEMPLATE_INVALID']);
    expect(w.incidents.raised[0].detail).toContain('{{nickname}}');
    expect(summary).toMatchObject({ deferred: 1, nextDueAt: T0 + 5 * 60_000 });
  });

  it('a transport failure of the whole fetchAll, every time, is a retryable outcome for every row', () => {
    const w = world(rowsOf(2));
    w.gemini.generateAll = () => {
      throw new Error('DNS error: generativelanguage.googleapis.com');
    };
    runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['PENDING', 'PENDING']);
    expect(w.queue.row(2).error).toContain('Gemini could not be reached: DNS error');
  });

  it('a fetchAll that throws for one request is asked again row by row in the same run: only that row is charged', () => {
    const rows = rowsOf(3);
    rows[1].submission = 'Paste your essay: this request times out';
    const w = world(rows);
    const answer = w.gemini.generateAll.bind(w.gemini);
    // As UrlFetchApp.fetchAll: one request's timeout throws for the whole batch.
    w.gemini.generateAll = (requests) => {
      const outcomes = answer(requests);
      if (requests.some((request) => JSON.stringify(request.body).includes('this request times out'))) {
        throw new Error('Timeout: https://generativelanguage.googleapis.com/v1beta/models/gemini:generateContent');
      }
      return outcomes;
    };
    const summary = runProcessing(w.deps, start);
    expect(w.gemini.calls.map((call) => call.length)).toEqual([3, 1, 1, 1]);
    expect(w.queue.rows.map((row) => [row.status, row.attempts])).toEqual([
      ['SENT', 1],
      ['PENDING', 1],
      ['SENT', 1],
    ]);
    expect(w.queue.row(3).error).toMatch(/^GEMINI_RETRYABLE: Gemini could not be reached: Timeout/);
    expect(summary).toMatchObject({ generated: 2, sent: 2 });
  });

  it('a reply lost to thinking (MAX_TOKENS, no text) is asked again at once with a larger budget, and mailed', () => {
    const w = world([pendingRow()]);
    w.gemini.respond = (_request, callIndex) => (callIndex === 0 ? fixtureOutcome(200, 'max-tokens-thinking') : okOutcome());
    runProcessing(w.deps, start);
    const caps = w.gemini.calls.map((call) => (call[0].body as { generationConfig: { maxOutputTokens: number } }).generationConfig.maxOutputTokens);
    expect(caps).toHaveLength(2);
    expect(caps[1]).toBeGreaterThan(caps[0]);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', attempts: 1 });
  });

  it('a reply lost to thinking twice goes to a person: FAILED with a next step, not retried again', () => {
    const w = world([pendingRow()]);
    w.gemini.respond = () => fixtureOutcome(200, 'max-tokens-thinking');
    runProcessing(w.deps, start);
    expect(w.gemini.requestCount()).toBe(2);
    expect(w.queue.row(2).status).toBe('FAILED');
    expect(w.queue.row(2).error).toMatch(/^GEMINI_CONTENT: Gemini spent its whole output budget thinking and wrote no reply \(3071 thinking tokens\), also with 4× the budget\. Next step: set a model that thinks less/);
    // Only moves a person may make from FAILED (PENDING, SENT, SKIPPED): APPROVED would be put back by the edit guard.
    // The whole next step fits the cell (300 characters), and names only moves a person may make from FAILED.
    expect(w.queue.row(2).error).toMatch(/then Retry; or reply yourself and set SENT$/);
    expect(w.queue.row(2).error).not.toContain('APPROVED');
  });

  it('claims are written and flushed before Gemini is called', () => {
    const w = world([pendingRow()]);
    let seen = '';
    w.gemini.onCall = () => {
      seen = `${w.queue.row(2).status}@${w.queue.row(2).claimedAt} flushes=${w.queue.flushes}`;
    };
    runProcessing(w.deps, start);
    expect(seen).toBe(`GENERATING@${T0} flushes=1`);
  });
});

// A generation round, one rule per case with exact rows, counters, Log lines and incidents: what is claimed, how
// Gemini is asked (batch, one by one, the budget), and how each verdict is recorded, including a lasting outage.
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

describe('generation rules', () => {
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
});

// runProcessing's send side: claims read back, the sent_at guard, quota, per-run and per-recipient limits, mail errors.
const ready = (patch: Partial<QueueRow> = {}) =>
  pendingRow({ status: 'READY', result: 'Dear Mina, well done.', mailRef: 'FQ-AAAAAA', attempts: 1, ...patch });
const readyRows = (n: number, patch: Partial<QueueRow> = {}) =>
  Array.from({ length: n }, (_v, i) => ready({ eventId: `evt-${i}`, responseToken: `tok-${i}`, mailRef: `FQ-AAAAA${i}`, ...patch }));

describe('runProcessing: sending', () => {
  it('writes SENDING with its claim and flushes before the mail goes, then SENT with sent_at', () => {
    const w = world([ready()]);
    let atSend = '';
    w.mailer.failWith = () => {
      atSend = `${w.queue.row(2).status}@${w.queue.row(2).claimedAt} flushes=${w.queue.flushes}`;
      return undefined;
    };
    runProcessing(w.deps, start);
    // The claim's flush, then the "about to send" line's.
    expect(atSend).toBe(`SENDING@${T0} flushes=2`);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: T0, claimedAt: null });
    expect(w.queue.flushes).toBe(3);
    expect(w.mailer.outbox[0]).toMatchObject({ to: 'mina.okafor@example.com', subject: 'Our reply to your submission (FQ-AAAAAA)' });
  });

  it('a row whose sent_at is filled is never mailed again, whatever its status says: it goes to NEEDS_REVIEW', () => {
    const w = world([ready({ sentAt: T0 - HOUR }), ready({ eventId: 'e2', responseToken: 't2', status: 'APPROVED', sentAt: T0 - HOUR })]);
    const summary = runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['NEEDS_REVIEW', 'NEEDS_REVIEW']);
    expect(w.queue.row(2).error).toMatch(/^ALREADY_SENT: sent_at is filled/);
    // ROWS_NEED_A_PERSON is raised by the tick from the Queue as measured (test/core/runs/queue-tick.test.ts).
    expect(w.incidents.codes()).toEqual([]);
    expect(summary.needsReview).toBe(2);
  });

  it('an APPROVED row is mailed with the result exactly as staff left it, even if edited after the run read it', () => {
    const w = world([ready({ status: 'APPROVED', result: 'draft' })]);
    w.queue.beforeReadRows = (_numbers, queue) => queue.edit(2, { result: 'Edited by a tutor <3' });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox[0].body.startsWith('Edited by a tutor <3')).toBe(true);
    expect(w.mailer.outbox[0].htmlBody).toContain('Edited by a tutor &lt;3');
  });

  it('AWAITING_APPROVAL rows are never sent', () => {
    const w = world([ready({ status: 'AWAITING_APPROVAL' })]);
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a row taken by another writer between claim and read-back is not mailed', () => {
    const w = world([ready()]);
    // The only read is the claim's read-back, right before the mail (the claim's compare-and-set needs none before it).
    w.queue.beforeReadRows = (_numbers, queue) => queue.edit(2, { status: 'SKIPPED' });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2).status).toBe('SKIPPED');
  });

  it('a READY row whose sent_at staff fill after the run read the Queue is not mailed: the claim\'s compare-and-set sees it and writes nothing', () => {
    const w = world([ready()]);
    // Right before the claim is written: staff have just recorded a reply they sent by hand.
    w.queue.beforeWriteRows = (_rows, queue) => {
      queue.edit(2, { sentAt: T0 - HOUR });
      queue.beforeWriteRows = null;
    };
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2)).toMatchObject({ status: 'READY', sentAt: T0 - HOUR });
    expect(w.queue.writes.flat().some((row) => row.status === 'SENDING')).toBe(false);
  });

  it('a sent_at filled between the SENDING claim and its read-back stops the mail too', () => {
    const w = world([ready()]);
    w.queue.beforeReadRows = (_numbers, queue) => queue.edit(2, { sentAt: T0 - HOUR });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a row staff skip while earlier rows of its batch are mailed is not mailed, and their decision stands', () => {
    const w = world(readyRows(2));
    w.mailer.failWith = () => void w.queue.edit(3, { status: 'SKIPPED' });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(1);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SKIPPED']);
    expect(w.audit.entries.filter((entry) => entry.to === 'SENT')).toHaveLength(1);
  });

  it('a READY row whose result staff edit while earlier rows are mailed is mailed with their text', () => {
    const w = world(readyRows(2));
    w.mailer.failWith = () => void w.queue.edit(3, { result: 'Rewritten by a tutor' });
    runProcessing(w.deps, start);
    expect(w.mailer.outbox[1].body.startsWith('Rewritten by a tutor')).toBe(true);
    expect(w.queue.row(3)).toMatchObject({ status: 'SENT', result: 'Rewritten by a tutor' });
  });

  it('mail quota 0: rows stay READY untouched, one MAIL_QUOTA_EXHAUSTED incident; once it returns they are sent once and it clears', () => {
    const w = world(readyRows(3));
    w.mailer.quota = 0;
    const first = runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['READY', 'READY', 'READY']);
    expect(w.queue.writes).toHaveLength(0);
    expect(w.incidents.raised).toEqual([expect.objectContaining({ code: 'MAIL_QUOTA_EXHAUSTED', rows: [2, 3, 4] })]);
    expect(first).toMatchObject({ deferred: 3, sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED', nextDueAt: T0 + 5 * 60_000 });
    w.mailer.quota = 100;
    runProcessing(w.deps, start);
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(3);
    expect(w.incidents.cleared).toContain('MAIL_QUOTA_EXHAUSTED');
  });

  it('a bcc uses quota too: one recipient left is not enough for a mail with a bcc', () => {
    const w = world([ready()], {}, [formConfig({ bcc: 'archive@school.example' })]);
    w.mailer.quota = 1;
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.incidents.codes()).toEqual(['MAIL_QUOTA_EXHAUSTED']);
  });

  it.each([
    ['READY', 'READY'],
    ['APPROVED', 'APPROVED'],
  ])('a quota error at send puts a %s row back to %s, raises the incident and stops sending', (from, back) => {
    const w = world(readyRows(2, { status: from }));
    w.mailer.failWith = () => 'Service invoked too many times for one day: email.';
    const summary = runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual([back, back]);
    expect(w.queue.row(2).claimedAt).toBeNull();
    expect(w.incidents.codes()).toEqual(['MAIL_QUOTA_EXHAUSTED']);
    expect(summary).toMatchObject({ sent: 0, deferred: 2, sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED' });
  });

  it.each(['Invalid email: mina@example', 'Limit Exceeded: Email Body Size.', 'Argument too large: subject'])(
    'a permanent mail error (%s) makes the row FAILED',
    (message) => {
      const w = world([ready()]);
      w.mailer.failWith = () => message;
      runProcessing(w.deps, start);
      expect(w.queue.row(2)).toMatchObject({ status: 'FAILED', sentAt: null });
      expect(w.queue.row(2).error).toBe(`MAIL_PERMANENT: ${message}`);
    },
  );

  it('any other mail error is NEEDS_REVIEW and is never resent by later runs', () => {
    const w = world([ready()]);
    w.mailer.failWith = () => 'Error sending email to mina.okafor@example.com. Please try again later.';
    runProcessing(w.deps, start);
    w.mailer.failWith = () => undefined;
    runProcessing(w.deps, start);
    w.clock.advance(2 * HOUR);
    runProcessing(w.deps, start);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2).status).toBe('NEEDS_REVIEW');
    expect(w.queue.row(2).error).toMatch(/^MAIL_UNKNOWN: .*may or may not have been sent; it is not resent automatically/);
  });

  it.each([
    ['', 'MAIL_PERMANENT: no email address in the submission'],
    ['mina at example', 'MAIL_PERMANENT: not a valid email address: mina at example'],
  ])('a recipient "%s" cannot be mailed: FAILED saying so, without a claim', (recipient, error) => {
    const w = world([ready({ recipient })]);
    runProcessing(w.deps, start);
    expect(w.queue.row(2)).toMatchObject({ status: 'FAILED', error });
    expect(w.audit.entries.map((e) => `${e.from}>${e.to}`)).toEqual(['READY>FAILED']);
  });

  it('MAX_MAILS_PER_RUN: past it, rows wait READY and MAIL_LIMIT_REACHED says why', () => {
    const w = world(readyRows(3, { recipient: '' }).map((row, i) => ({ ...row, recipient: `r${i}@example.com` })), { MAX_MAILS_PER_RUN: '2' });
    const summary = runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SENT', 'READY']);
    expect(w.incidents.raised).toEqual([expect.objectContaining({ code: 'MAIL_LIMIT_REACHED', rows: [4] })]);
    expect(summary).toMatchObject({ sent: 2, deferred: 1, nextDueAt: T0 });
  });

  it.each([
    [HOUR, 'READY', 0],
    [25 * HOUR, 'SENT', 1],
  ])('MAX_MAILS_PER_RECIPIENT_PER_DAY=1 with an earlier mail %i ms ago: the row is %s', (ago, status, mails) => {
    const earlier = ready({ eventId: 'old', responseToken: 'old', status: 'SENT', sentAt: T0 - ago });
    const w = world([earlier, ready()], { MAX_MAILS_PER_RECIPIENT_PER_DAY: '1' });
    runProcessing(w.deps, start);
    expect(w.queue.row(3).status).toBe(status);
    expect(w.mailer.outbox).toHaveLength(mails);
    if (status === 'READY') expect(w.incidents.codes()).toEqual(['MAIL_LIMIT_REACHED']);
  });

  it('the recipient limit counts Mina+tag@Example.com as mina@example.com', () => {
    const earlier = ready({ eventId: 'old', responseToken: 'old', status: 'SENT', sentAt: T0 - HOUR, recipient: 'Mina.Okafor+essay1@Example.COM' });
    const w = world([earlier, ready({ recipient: 'mina.okafor+essay2@example.com' })], { MAX_MAILS_PER_RECIPIENT_PER_DAY: '1' });
    runProcessing(w.deps, start);
    expect(w.queue.row(3).status).toBe('READY');
    expect(w.mailer.outbox).toHaveLength(0);
  });

  it('a recipient limit counts the mails sent earlier in the same run', () => {
    const w = world(readyRows(3), { MAX_MAILS_PER_RECIPIENT_PER_DAY: '2' });
    runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['SENT', 'SENT', 'READY']);
  });

  it('a broken body template holds the row READY with the reason on the row and a TEMPLATE_INVALID incident, other forms still send', () => {
    const w = world(readyRows(2), {}, [formConfig(), formConfig({ formId: 'Broken', body: '{{nope}}' })]);
    w.queue.edit(2, { formId: 'Broken' });
    runProcessing(w.deps, start);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['READY', 'SENT']);
    expect(w.queue.row(2).error).toMatch(/^TEMPLATE_INVALID: .*\{\{nope\}\}/);
    expect(w.incidents.codes()).toEqual(['TEMPLATE_INVALID']);
    expect(w.incidents.cleared).not.toContain('TEMPLATE_INVALID');
  });

  it('a row that reaches READY without a mail_ref gets one before it is mailed', () => {
    const w = world([ready({ mailRef: '' })]);
    runProcessing(w.deps, start);
    expect(w.queue.row(2).mailRef).toMatch(/^FQ-/);
    expect(w.mailer.outbox[0].body).toContain(`Reference: ${w.queue.row(2).mailRef}`);
  });

  it('no secret reaches a row or a mail', () => {
    const w = world([ready()]);
    w.mailer.failWith = () => 'failed with key=AIzaSyTESTKEY0123456789abcdefghij';
    runProcessing(w.deps, start);
    expect(JSON.stringify(w.queue.rows)).not.toContain('AIzaSyTESTKEY');
    expect(JSON.stringify(w.incidents.raised)).not.toContain('AIzaSyTESTKEY');
  });
});

// runProcessing with Config send_hours: outside the window a reply waits (status kept, "not before" note, nothing read
// for it), the tick gate sleeps until the window opens, and inside it the reply goes once.
// T0 is 10:00 UTC: a window of 12:00-20:00 is closed then and opens two hours later.
const windowReady = (n: number, patch: Partial<QueueRow> = {}) =>
  pendingRow({ status: 'READY', result: 'Dear Mina', eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient: `r${n}@example.com`, attempts: 1, ...patch });

describe('runProcessing: send windows', () => {
  it('outside the window a READY row keeps its status with a "not before" note, is not claimed, and nextDueAt is the opening', () => {
    const w = world([windowReady(1), windowReady(2, { status: 'APPROVED' })], {}, [formConfig({ sendHours: '12:00-20:00' })]);
    const list = new MemorySuppression();
    w.deps.suppression = list;
    const summary = runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['READY', 'APPROVED']);
    expect(w.queue.row(2).error).toBe("SEND_WINDOW: outside the form's send_hours 12:00-20:00 (Etc/UTC); not mailed before 2026-11-20T12:00:00.000Z");
    expect(summary.nextDueAt).toBe(T0 + 2 * HOUR);
    // Nothing is read for a row that cannot go: no send ledger lookup, no Suppressed sheet.
    expect(w.audit.lookups).toEqual([]);
    expect(list.reads).toBe(0);
  });

  it('a second run in the night writes nothing (the note is the same), and at the opening the row is mailed once', () => {
    const w = world([windowReady(1)], {}, [formConfig({ sendHours: '12:00-20:00' })]);
    runProcessing(w.deps, { startedAt: T0 });
    const writes = w.queue.writes.length;
    w.clock.time = T0 + HOUR;
    runProcessing(w.deps, { startedAt: w.clock.time });
    expect(w.queue.writes.length).toBe(writes);
    w.clock.time = T0 + 2 * HOUR;
    runProcessing(w.deps, { startedAt: w.clock.time });
    runProcessing(w.deps, { startedAt: w.clock.time });
    expect(w.mailer.outbox).toHaveLength(1);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', error: '' });
  });

  it('only the form with a window waits; PENDING rows are generated at night all the same', () => {
    const w = world(
      [windowReady(1, { formId: 'Night' }), windowReady(2, { formId: 'Any' }), pendingRow({ formId: 'Night', eventId: 'evt-3', responseToken: 'tok-3' })],
      {},
      [formConfig({ formId: 'Night', sendHours: '12:00-20:00' }), formConfig({ formId: 'Any' })],
    );
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['r2@example.com']);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['READY', 'SENT', 'READY']);
  });

  it('a send_hours staff cannot mean holds the form\'s rows with CONFIG_INVALID and raises TEMPLATE_INVALID naming it', () => {
    const w = world([windowReady(1)], {}, [formConfig({ sendHours: '9 to 5' })]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.mailer.outbox).toHaveLength(0);
    expect(w.queue.row(2)).toMatchObject({ status: 'READY' });
    expect(w.queue.row(2).error).toMatch(/^CONFIG_INVALID: Config send_hours of form .* is "9 to 5"/);
    expect(w.incidents.codes()).toEqual(['TEMPLATE_INVALID']);
  });
});

// A READY or APPROVED row with an empty result has no reply to mail: a person is asked, instead of a wait that never ends.

describe('a sendable row without a reply', () => {
  it.each(['READY', 'APPROVED'])('%s with an empty result (pasted while the on-edit trigger failed) goes to NEEDS_REVIEW with NO_REPLY, never mailed', (status) => {
    const w = world([pendingRow({ eventId: 'evt-blank', status, result: '' })]);
    const summary = runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2).status).toBe('NEEDS_REVIEW');
    expect(w.queue.row(2).error).toMatch(/^NO_REPLY: the row is .* but its result is empty/);
    expect(w.mailer.outbox).toHaveLength(0);
    expect(summary.needsReview).toBe(1);
  });

  it('a READY row with its reply is mailed as before', () => {
    const w = world([pendingRow({ eventId: 'evt-reply', status: 'READY', result: 'Dear Mina' })]);
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2).status).toBe('SENT');
  });
});

// Writes held for the run's next commit: a reply's verdict goes with its send claim, a batch's outcomes with the next claims; each row still compare-and-set right before the write.
const pending = (n: number, patch: Partial<QueueRow> = {}) => pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, recipient: `r${n}@example.com`, ...patch });
const heldReady = (n: number, patch: Partial<QueueRow> = {}) =>
  pending(n, { status: 'READY', result: 'Dear Mina, well done.', mailRef: `FQ-AAAAA${n}`, attempts: 1, ...patch });

describe('writes held for the next commit', () => {
  it('two rounds of four rows and their mails take five writes: claims; verdicts with send claims; outcomes with the next claims; …; the last outcomes', () => {
    const w = world(Array.from({ length: 8 }, (_, i) => pending(i + 1)));
    const summary = runProcessing(w.deps, start);
    expect(summary).toMatchObject({ generated: 8, sent: 8 });
    expect(w.queue.writes.map((rows) => rows.map((row) => `${row.eventId}:${row.status}`))).toEqual([
      ['evt-1:GENERATING', 'evt-2:GENERATING', 'evt-3:GENERATING', 'evt-4:GENERATING'],
      ['evt-1:SENDING', 'evt-2:SENDING', 'evt-3:SENDING', 'evt-4:SENDING'],
      ['evt-1:SENT', 'evt-2:SENT', 'evt-3:SENT', 'evt-4:SENT', 'evt-5:GENERATING', 'evt-6:GENERATING', 'evt-7:GENERATING', 'evt-8:GENERATING'],
      ['evt-5:SENDING', 'evt-6:SENDING', 'evt-7:SENDING', 'evt-8:SENDING'],
      ['evt-5:SENT', 'evt-6:SENT', 'evt-7:SENT', 'evt-8:SENT'],
    ]);
    // The five writes, and each of the 8 mails' "about to send" line.
    expect(w.queue.flushes).toBe(13);
    // Every move still has its line, the reply's before its claim; each claim's line is in the Log before its mail.
    expect(w.audit.entries.filter((e) => e.eventId === 'evt-1').map((e) => `${e.from}>${e.to}`)).toEqual([
      'PENDING>GENERATING', 'GENERATING>READY', 'READY>SENDING', 'SENDING>SENDING', 'SENDING>SENT',
    ]);
    // The reply the mail was built from is the one written with its claim.
    expect(w.queue.rows.every((row) => row.result === 'Dear Mina, thank you.' && row.sentAt !== null)).toBe(true);
  });

  it("a person skipping a row after Gemini's reply and before its send claim wins: neither is written, it is not mailed, the other row is", () => {
    const w = world([pending(1), pending(2)]);
    const quota = w.mailer.remainingDailyQuota.bind(w.mailer);
    w.mailer.remainingDailyQuota = () => {
      // Asked once the replies are in and before the claims are written: a person acts at that moment.
      w.queue.edit(2, { status: 'SKIPPED' });
      return quota();
    };
    runProcessing(w.deps, start);
    expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['r2@example.com']);
    expect(w.queue.row(2)).toMatchObject({ status: 'SKIPPED', result: '', sentAt: null });
    expect(w.audit.entries.filter((e) => e.eventId === 'evt-1').map((e) => `${e.from}>${e.to}`)).toEqual(['PENDING>GENERATING']);
    expect(w.queue.row(3)).toMatchObject({ status: 'SENT' });
  });

  it("the per-recipient limit counts a batch's mails whose SENT still waits for the next commit", () => {
    // Six rows: the first five fill a send batch; the sixth, in the next batch, goes to the first one's mailbox.
    const rows = [1, 2, 3, 4, 5].map((n) => heldReady(n)).concat(heldReady(6, { recipient: 'R1@example.com' }));
    const w = world(rows, { MAX_MAILS_PER_RECIPIENT_PER_DAY: '1' });
    const summary = runProcessing(w.deps, start);
    expect(summary.sent).toBe(5);
    expect(w.mailer.outbox.map((mail) => mail.to)).not.toContain('R1@example.com');
    expect(w.queue.row(7).status).toBe('READY');
    expect(w.incidents.codes()).toContain('MAIL_LIMIT_REACHED');
  });

  it("a mail's SENT is written even when the step after its batch fails: a bug while preparing the next round", () => {
    const w = world([heldReady(1), pending(2)]);
    w.deps.readPayload = (row) => {
      if (row.eventId === 'evt-2') throw new Error('a bug reading the payload');
      return row.payload;
    };
    const summary = runProcessing(w.deps, start);
    expect(summary.stoppedBecause).toBe('code-bug');
    expect(w.mailer.outbox).toHaveLength(1);
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT' });
    expect(w.queue.row(2).sentAt).not.toBeNull();
    expect(w.audit.entries.filter((e) => e.eventId === 'evt-1').map((e) => `${e.from}>${e.to}`)).toEqual(['READY>SENDING', 'SENDING>SENDING', 'SENDING>SENT']);
  });
});

// A mail that went out while a person changed its row: what the row and the Log show in each case recordRefusedSent tells apart.
const refusedReady = (patch: Partial<QueueRow> = {}) =>
  pendingRow({ eventId: 'aaaaaa', responseToken: 'tok-aaaaaa', recipient: 'a@example.com', status: 'READY', result: 'Reply', mailRef: 'FQ-AAAAAA', ...patch });
const ledger = `[ledger: mail_ref=FQ-AAAAAA sent_at=${new Date(T0).toISOString()}]`;
const sentLines = (w: ReturnType<typeof world>) => w.audit.entries.filter((entry) => entry.eventId === 'aaaaaa' && entry.to === 'SENT');

describe('the SENT write refused because a person changed the row while its mail went out', () => {
  it('a person already set SENT by hand: the row is left as they set it, and the Log says so', () => {
    const w = world([refusedReady()]);
    w.mailer.failWith = () => {
      w.queue.edit(2, { status: 'SENT' });
      return undefined;
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: null });
    expect(sentLines(w).map((line) => [line.from, line.detail])).toEqual([
      ['SENDING', `mailed to the respondent (FQ-AAAAAA); not marked SENT on the sheet: its row already shows SENT (set by a person) ${ledger}`],
    ]);
    expect(w.mailer.outbox).toHaveLength(1);
  });

  it('a person copied the row (two rows hold its event_id and mail_ref): neither is marked, the Log counts them', () => {
    const w = world([refusedReady()]);
    w.mailer.failWith = () => {
      w.queue.edit(2, { status: 'FAILED' });
      w.queue.appendRows([{ ...w.queue.row(2) }]);
      return undefined;
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.rows.map((row) => row.status)).toEqual(['FAILED', 'FAILED']);
    expect(sentLines(w).map((line) => line.detail)).toEqual([
      `mailed to the respondent (FQ-AAAAAA); not marked SENT on the sheet: 2 rows hold its event_id and mail_ref ${ledger}`,
    ]);
  });

  it('the one row found again is marked SENT over what the person set, its claim and error cleared', () => {
    const w = world([refusedReady()]);
    w.mailer.failWith = () => {
      w.queue.edit(2, { status: 'FAILED', error: 'typed by a tutor' });
      return undefined;
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: T0, mailRef: 'FQ-AAAAAA', claimedAt: null, error: '', updatedAt: T0 });
    expect(sentLines(w).map((line) => [line.from, line.by, line.detail])).toEqual([
      ['FAILED', 'system', `mailed to the respondent (FQ-AAAAAA); marked SENT over FAILED, which a person set while it was SENDING ${ledger}`],
    ]);
  });

  it.each<[string, Partial<QueueRow>]>([
    ['a copy of it whose mail_ref a person cleared', { eventId: 'aaaaaa', mailRef: '' }],
    ['another submission showing its mail_ref (pasted)', { eventId: 'bbbbbb', responseToken: 'tok-bbbbbb', mailRef: 'FQ-AAAAAA' }],
  ])('a row sharing only its event_id or only its mail_ref (%s) is not its holder: the one holder is marked SENT', (_case, other) => {
    const w = world([refusedReady()]);
    w.mailer.failWith = () => {
      w.queue.edit(2, { status: 'FAILED' });
      w.queue.appendRows([{ ...w.queue.row(2), ...other }]);
      return undefined;
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.rows.map((row) => [row.eventId, row.status, row.mailRef])).toEqual([
      ['aaaaaa', 'SENT', 'FQ-AAAAAA'],
      [other.eventId, 'FAILED', other.mailRef],
    ]);
    expect(sentLines(w).map((line) => line.from)).toEqual(['FAILED']);
  });

  it('the row changed again while being marked: left as it is, and the Log says so', () => {
    const w = world([refusedReady()]);
    let writes = 0;
    w.mailer.failWith = () => {
      w.queue.edit(2, { status: 'FAILED' });
      // The next write is the SENT write (refused: FAILED); the one after it is the mark over FAILED, met by a second change.
      w.queue.beforeWriteRows = (_rows, queue) => {
        if (++writes === 2) queue.edit(2, { status: 'SKIPPED' });
      };
      return undefined;
    };
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2).status).toBe('SKIPPED');
    expect(sentLines(w).map((line) => line.detail)).toEqual([
      `mailed to the respondent (FQ-AAAAAA); not marked SENT on the sheet: its row changed again while being marked ${ledger}`,
    ]);
  });
});

// A row is its event_id: every write lands on the submission it is for, wherever staff sorted, inserted or deleted rows.
const identityReady = (eventId: string, recipient: string, patch: Partial<QueueRow> = {}) =>
  pendingRow({ eventId, responseToken: `tok-${eventId}`, recipient, status: 'READY', result: `Reply for ${eventId}`, mailRef: `FQ-${eventId.toUpperCase()}`, ...patch });
const reversed = (rows: QueueRow[]) => rows.reverse();

describe('row identity', () => {
  describe('writes are compare-and-set by event_id', () => {
    it('a sort while the first row of a batch is mailed: the next claimed row is found again by event_id and mailed in the same run, once', () => {
      const w = world([identityReady('aaaaaa', 'a@example.com'), identityReady('bbbbbb', 'b@example.com'), identityReady('cccccc', 'c@example.com')]);
      let sorted = false;
      w.mailer.failWith = () => {
        if (!sorted) {
          sorted = true;
          w.queue.reorder(reversed);
        }
        return undefined;
      };
      const summary = runProcessing(w.deps, start);
      expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
      expect(w.queue.rows.map((row) => [row.eventId, row.status])).toEqual([
        ['cccccc', 'SENT'],
        ['bbbbbb', 'SENT'],
        ['aaaaaa', 'SENT'],
      ]);
      expect(summary).toMatchObject({ sent: 3, needsReview: 0 });
      runProcessing(w.deps, { startedAt: T0 + 60_000 });
      expect(w.mailer.outbox).toHaveLength(3);
    });

    it('a sort just before the batch of SENDING claims is written: each claim lands on its own submission where it moved, never on another', () => {
      const w = world([identityReady('aaaaaa', 'a@example.com'), identityReady('bbbbbb', 'b@example.com')]);
      let sorted = false;
      w.queue.beforeWriteRows = (_rows, queue) => {
        if (!sorted) queue.reorder(reversed);
        sorted = true;
      };
      runProcessing(w.deps, start);
      const byEvent = (id: string) => w.queue.rows.find((row) => row.eventId === id) as QueueRow;
      expect(byEvent('aaaaaa')).toMatchObject({ rowNumber: 3, status: 'SENT', recipient: 'a@example.com', result: 'Reply for aaaaaa' });
      // B was never written with A's cells: its claim followed it to row 2, and so did its mail.
      expect(byEvent('bbbbbb')).toMatchObject({ rowNumber: 2, status: 'SENT', recipient: 'b@example.com', result: 'Reply for bbbbbb' });
      expect(w.mailer.outbox.map((mail) => [mail.to, mail.body.includes(`Reply for ${mail.to[0].repeat(6)}`)])).toEqual([
        ['a@example.com', true],
        ['b@example.com', true],
      ]);
      expect(w.queue.writes.flat().filter((row) => row.eventId === 'bbbbbb').every((row) => row.rowNumber === 2 && row.recipient === 'b@example.com')).toBe(true);
    });

    it('every mail still goes exactly once across runs after a sort', () => {
      const w = world([identityReady('aaaaaa', 'a@example.com'), identityReady('bbbbbb', 'b@example.com'), identityReady('cccccc', 'c@example.com')]);
      let writes = 0;
      w.queue.beforeWriteRows = (_rows, queue) => {
        if (++writes % 2 === 1) queue.reorder(reversed);
      };
      for (let run = 0; run < 4; run++) runProcessing(w.deps, start);
      expect(w.mailer.outbox.map((mail) => mail.to).sort()).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
      for (const row of w.queue.rows) expect(row.result).toBe(`Reply for ${row.eventId}`);
    });

    it('a sort between the generation claims and their read-back: no reply is written into the other submission\'s row', () => {
      const w = world([
        pendingRow({ eventId: 'aaaaaa', responseToken: 'tok-a', recipient: 'a@example.com', submission: 'Question: from A' }),
        pendingRow({ eventId: 'bbbbbb', responseToken: 'tok-b', recipient: 'b@example.com', submission: 'Question: from B' }),
      ], { GEMINI_CONCURRENCY: '2' });
      let reads = 0;
      w.queue.beforeReadRows = (_numbers, queue) => {
        if (++reads === 1) queue.reorder(reversed);
      };
      w.gemini.respond = (request) => okOutcome(JSON.stringify(request.body).includes('from A') ? 'Reply for A' : 'Reply for B');
      runProcessing(w.deps, start);
      const ownReply = (eventId: string) => `Reply for ${eventId[0].toUpperCase()}`;
      const wrong = w.queue.rows.filter((row) => row.result !== '' && row.result !== ownReply(row.eventId));
      expect(wrong.map((row) => [row.eventId, row.result])).toEqual([]);
      expect(w.mailer.outbox.every((mail) => mail.body.includes(`Reply for ${mail.to[0].toUpperCase()}`))).toBe(true);
    });

    it('a sort while Gemini writes: the reply is written to its own submission', () => {
      const sent = pendingRow({ eventId: 'sent01', responseToken: 'tok-sent01', status: 'SENT', sentAt: T0 - 60_000, result: 'Old reply', recipient: 's@example.com' });
      const w = world([pendingRow({ eventId: 'new001', responseToken: 'tok-new001' }), sent]);
      w.gemini.onCall = () => w.queue.reorder(reversed);
      runProcessing(w.deps, start);
      expect(w.queue.row(2)).toMatchObject({ eventId: 'sent01', status: 'SENT', result: 'Old reply' });
      expect(w.queue.row(3)).toMatchObject({ eventId: 'new001', status: 'SENT' });
      expect(w.mailer.outbox).toHaveLength(1);
    });

    it('a row deleted by staff before the claim is written is not claimed, and nothing else is written in its place', () => {
      const w = world([identityReady('aaaaaa', 'a@example.com'), identityReady('bbbbbb', 'b@example.com')]);
      let deleted = false;
      w.queue.beforeWriteRows = (_rows, queue) => {
        if (!deleted) queue.reorder((rows) => rows.filter((row) => row.eventId !== 'aaaaaa'));
        deleted = true;
      };
      runProcessing(w.deps, start);
      expect(w.queue.rows.map((row) => row.eventId)).toEqual(['bbbbbb']);
      expect(w.mailer.outbox.map((mail) => mail.to)).not.toContain('a@example.com');
      expect(w.audit.entries.filter((entry) => entry.eventId === 'aaaaaa')).toEqual([]);
    });

    it('a status staff change between the run reading a row and writing it is never overwritten', () => {
      const w = world([identityReady('aaaaaa', 'a@example.com')]);
      let skipped = false;
      w.queue.beforeWriteRows = (_rows, queue) => {
        if (!skipped) queue.edit(2, { status: 'SKIPPED' });
        skipped = true;
      };
      runProcessing(w.deps, start);
      expect(w.queue.row(2).status).toBe('SKIPPED');
      expect(w.mailer.outbox).toHaveLength(0);
    });

    it('a recipient staff correct after the run read the Queue is kept by the claim, and the reply goes to it', () => {
      const w = world([pendingRow({ eventId: 'fix001', responseToken: 'tok-fix001', recipient: 'typo@example.con' })]);
      // Right before the generation claim is written: the claim's compare-and-set read is the only read before it.
      w.queue.beforeWriteRows = (_rows, queue) => {
        queue.edit(2, { recipient: 'fixed@example.com' });
        queue.beforeWriteRows = null;
      };
      runProcessing(w.deps, start);
      expect(w.queue.row(2)).toMatchObject({ status: 'SENT', recipient: 'fixed@example.com' });
      expect(w.mailer.outbox.map((mail) => mail.to)).toEqual(['fixed@example.com']);
    });
  });

  describe('a mail that went out is always recorded, whatever staff did to its row meanwhile', () => {
    const sentLines = (w: ReturnType<typeof world>, eventId: string) =>
      w.audit.entries.filter((entry) => entry.eventId === eventId && entry.from === 'SENDING' && entry.to === 'SENT');

    it('a row deleted while its mail went out: the SENT write is dropped but the Log gets the mailed line with its ledger facts, and it is never mailed again', () => {
      const w = world([identityReady('aaaaaa', 'a@example.com')]);
      w.mailer.failWith = () => {
        w.queue.reorder((rows) => rows.filter((row) => row.eventId !== 'aaaaaa'));
        return undefined;
      };
      runProcessing(w.deps, start);
      expect(w.mailer.outbox).toHaveLength(1);
      const [line] = sentLines(w, 'aaaaaa');
      expect(line.detail).toBe(`mailed to the respondent (FQ-AAAAAA); not marked SENT on the sheet: no row holds its event_id and mail_ref (deleted?) [ledger: mail_ref=FQ-AAAAAA sent_at=${new Date(T0).toISOString()}]`);

      // Staff undo the delete: the row is back as it was (SENDING). It is never mailed again.
      w.mailer.failWith = () => undefined;
      w.queue.appendRows([{ ...identityReady('aaaaaa', 'a@example.com'), status: 'SENDING', claimedAt: T0 }]);
      runProcessing(w.deps, { startedAt: T0 + 3600_000 });
      expect(w.mailer.outbox).toHaveLength(1);
    });

    it('a row deleted, mailed, then put back showing SENT by hand: the ledger restore fills in its sent_at and mail_ref from that line', () => {
      const w = world([identityReady('aaaaaa', 'a@example.com')]);
      w.mailer.failWith = () => {
        w.queue.reorder((rows) => rows.filter((row) => row.eventId !== 'aaaaaa'));
        return undefined;
      };
      runProcessing(w.deps, start);
      w.queue.appendRows([{ ...identityReady('aaaaaa', 'a@example.com'), status: 'SENT', mailRef: '', sentAt: null }]);
      runProcessing(w.deps, { startedAt: T0 + 60_000 });
      expect(w.queue.rows[0]).toMatchObject({ status: 'SENT', sentAt: T0, mailRef: 'FQ-AAAAAA' });
      expect(w.mailer.outbox).toHaveLength(1);
    });

    it('a status a person pasted over SENDING while the mail went out: the row is found again by event_id and mail_ref and marked SENT', () => {
      const w = world([identityReady('aaaaaa', 'a@example.com'), identityReady('bbbbbb', 'b@example.com')]);
      let pasted = false;
      w.mailer.failWith = (mail) => {
        if (mail.to === 'a@example.com' && !pasted) {
          pasted = true;
          w.queue.reorder(reversed);
          w.queue.edit(3, { status: 'READY' });
        }
        return undefined;
      };
      runProcessing(w.deps, start);
      const a = w.queue.rows.find((row) => row.eventId === 'aaaaaa') as QueueRow;
      expect(a).toMatchObject({ status: 'SENT', sentAt: T0, mailRef: 'FQ-AAAAAA' });
      const marked = w.audit.entries.filter((entry) => entry.eventId === 'aaaaaa' && entry.to === 'SENT');
      expect(marked.map((line) => [line.from, line.detail])).toEqual([
        ['READY', `mailed to the respondent (FQ-AAAAAA); marked SENT over READY, which a person set while it was SENDING [ledger: mail_ref=FQ-AAAAAA sent_at=${new Date(T0).toISOString()}]`],
      ]);
      // b moved with the sort and waits for the next run; a is never mailed again.
      runProcessing(w.deps, { startedAt: T0 + 60_000 });
      expect(w.mailer.outbox.map((mail) => mail.to).sort()).toEqual(['a@example.com', 'b@example.com']);
    });
  });
});

// The Log's send ledger puts back the system columns a person changed while the on-edit guard could not run.
const ID = 'evt-ledger';
const REF = 'FQ-7K2M9Q';
const SENT_AT = T0 - 4 * MINUTE;
const CLAIMED_AT = T0 - 5 * MINUTE;
const line = (at: number, from: string, to: string, detail = '', by = 'system'): LogEntry => ({ at, eventId: ID, from, to, by, detail });
const claim = line(CLAIMED_AT, 'READY', 'SENDING', withLedgerFacts('claimed for sending', { mailRef: REF, claimedAt: CLAIMED_AT }));
const sent = line(SENT_AT, 'SENDING', 'SENT', withLedgerFacts(`mailed to the respondent (${REF})`, { mailRef: REF, sentAt: SENT_AT }));
const sentRow = (patch = {}) => pendingRow({ eventId: ID, status: 'SENT', result: 'Dear Mina', mailRef: REF, sentAt: SENT_AT, ...patch });

describe('ledger restore', () => {
  describe('ledger facts in a Log line', () => {
    it('read back exactly what was written', () => {
      const detail = withLedgerFacts('mailed to the respondent (FQ-7K2M9Q)', { mailRef: REF, sentAt: SENT_AT, claimedAt: CLAIMED_AT });
      expect(detail).toBe(`mailed to the respondent (FQ-7K2M9Q) [ledger: mail_ref=${REF} sent_at=${new Date(SENT_AT).toISOString()} claimed_at=${new Date(CLAIMED_AT).toISOString()}]`);
      expect(factsOf(detail)).toEqual({ mailRef: REF, sentAt: SENT_AT, claimedAt: CLAIMED_AT });
    });

    it('a claim line records the account that claimed it, and an unknown account is left out', () => {
      const detail = withLedgerFacts('claimed for sending', { mailRef: REF, claimedAt: CLAIMED_AT, sender: 'ana@school.example' });
      expect(detail).toBe(`claimed for sending [ledger: mail_ref=${REF} claimed_at=${new Date(CLAIMED_AT).toISOString()} sender=ana@school.example]`);
      expect(factsOf(detail)).toEqual({ mailRef: REF, claimedAt: CLAIMED_AT, sender: 'ana@school.example' });
      expect(withLedgerFacts('claimed for sending', { mailRef: REF, sender: '' })).toBe(`claimed for sending [ledger: mail_ref=${REF}]`);
    });

    it('a line without them (older lines, other moves) has none', () => {
      expect(factsOf('mailed to the respondent (FQ-7K2M9Q)')).toEqual({});
      expect(withLedgerFacts('retry', {})).toBe('retry');
    });
  });

  describe('ledger facts: a fact the line does not hold in readable form is no fact', () => {
    const iso = (at: number) => new Date(at).toISOString();
    it.each<[string, string, LedgerFacts]>([
      ['an empty mail_ref', `mailed [ledger: mail_ref= sent_at=${iso(SENT_AT)}]`, { sentAt: SENT_AT }],
      ['a time that is not one', `claimed [ledger: claimed_at=${iso(CLAIMED_AT)} sent_at=yesterday]`, { claimedAt: CLAIMED_AT }],
      ['a column the ledger does not vouch for', `claimed [ledger: opened_at=${iso(CLAIMED_AT)}]`, {}],
      ['a part without a value', `claimed [ledger: mail_ref claimed_at=${iso(CLAIMED_AT)}]`, { claimedAt: CLAIMED_AT }],
      ['blanks between the facts', `claimed [ledger:  mail_ref=${REF}   claimed_at=${iso(CLAIMED_AT)} ]`, { mailRef: REF, claimedAt: CLAIMED_AT }],
    ])('%s', (_name, detail, facts) => {
      expect(factsOf(detail)).toEqual(facts);
    });
  });

  describe('ledgerStateOf: which line leaves the submission in which ledger status', () => {
    const ANA = 'ana@example.org';
    const checked = (from: string) => line(T0 - 2 * MINUTE, from, 'SENT', withLedgerFacts('marked sent by ana after checking by hand', { sentAt: T0 - 2 * MINUTE }), ANA);
    it.each<[string, LogEntry[], { status: string; facts: LedgerFacts } | null]>([
      ['a claim by the system', [claim], { status: 'SENDING', facts: { mailRef: REF, claimedAt: CLAIMED_AT } }],
      ['a claim and its send', [claim, sent], { status: 'SENT', facts: { mailRef: REF, sentAt: SENT_AT } }],
      ['a claim and its send written in the same millisecond, read in Log order', [{ ...claim, at: SENT_AT }, sent], { status: 'SENT', facts: { mailRef: REF, sentAt: SENT_AT } }],
      ['a person\'s line to SENDING is no claim', [line(CLAIMED_AT, 'READY', 'SENDING', withLedgerFacts('multi-cell edit', { mailRef: REF, claimedAt: CLAIMED_AT }), ANA)], null],
      ['a person marking a READY row SENT has checked nothing', [line(SENT_AT, 'READY', 'SENT', withLedgerFacts('marked sent', { sentAt: SENT_AT }), ANA)], null],
      ['a person marking a FAILED row SENT after checking by hand', [checked('FAILED')], { status: 'SENT', facts: { sentAt: T0 - 2 * MINUTE } }],
      ['claimed, then the mail quota refused it (nothing left)', [claim, line(SENT_AT, 'SENDING', 'READY')], null],
      ['claimed, then the platform refused the address (nothing left)', [claim, line(SENT_AT, 'SENDING', 'FAILED')], null],
      ['claimed, outcome unknown: the claim\'s mail_ref is kept', [claim, line(SENT_AT, 'SENDING', 'NEEDS_REVIEW', 'the send failed after it may have gone out')], { status: 'NEEDS_REVIEW', facts: { mailRef: REF } }],
      ['a system move to NEEDS_REVIEW with no claim standing', [line(SENT_AT, 'READY', 'NEEDS_REVIEW', 'ALREADY_SENT')], null],
      ['claimed, then a person moved the row back to READY: the claim stands', [claim, line(SENT_AT, 'SENDING', 'READY', 'moved', ANA)], { status: 'SENDING', facts: { mailRef: REF, claimedAt: CLAIMED_AT } }],
      ['sent, then a person asked for a new reply', [claim, sent, line(T0 - MINUTE, 'NEEDS_REVIEW', 'PENDING', 'retry', ANA)], null],
      ['sent, then the system put a cleared sent_at back (SENT → SENT): the send line still vouches', [claim, sent, line(T0 - MINUTE, 'SENT', 'SENT', 'put back sent_at (empty) → …')], { status: 'SENT', facts: { mailRef: REF, sentAt: SENT_AT } }],
      ['sent, a paste parked by the system, then marked SENT after checking: the send\'s mail_ref carries over',
        [claim, sent, line(T0 - 3 * MINUTE, 'READY', 'NEEDS_REVIEW', 'ALREADY_CLAIMED'), checked('NEEDS_REVIEW')], { status: 'SENT', facts: { mailRef: REF, sentAt: T0 - 2 * MINUTE } }],
    ])('%s', (_name, history, expected) => {
      const state = ledgerStateOf(history);
      expect(state && { status: state.status, facts: state.facts }).toEqual(expected);
    });
  });

  describe('ledgerRepairOf: a row showing its ledger status holds that line’s values', () => {
    it.each<[string, Partial<QueueRow>, LogEntry[], string[] | null, Partial<QueueRow>]>([
      ['SENT, sent_at cleared', { sentAt: null }, [claim, sent], ['sent_at'], { sentAt: SENT_AT }],
      ['SENT, mail_ref cleared', { mailRef: '' }, [claim, sent], ['mail_ref'], { mailRef: REF }],
      ['SENT, both cleared', { sentAt: null, mailRef: '' }, [claim, sent], ['mail_ref', 'sent_at'], { mailRef: REF, sentAt: SENT_AT }],
      ['SENT, mail_ref typed over', { mailRef: 'FQ-OTHER1' }, [claim, sent], ['mail_ref'], { mailRef: REF }],
      ['SENT, sent_at cleared and a claimed_at pasted in', { sentAt: null, claimedAt: T0 }, [claim, sent], ['sent_at', 'claimed_at'], { sentAt: SENT_AT, claimedAt: null }],
      ['SENT, as the ledger says', {}, [claim, sent], null, {}],
      ['SENDING, claimed_at and mail_ref cleared', { status: 'SENDING', sentAt: null, claimedAt: null, mailRef: '' }, [claim], ['mail_ref', 'claimed_at'], { mailRef: REF, claimedAt: CLAIMED_AT }],
      ['SENDING, a sent_at pasted in', { status: 'SENDING', sentAt: T0, claimedAt: CLAIMED_AT }, [claim], ['sent_at'], { sentAt: null }],
      ['a person asked for a new reply since: nothing stands', { status: 'PENDING', sentAt: null }, [claim, sent, line(T0 - MINUTE, 'NEEDS_REVIEW', 'PENDING', 'retry', 'ana@example.org')], null, {}],
      ['the row moved on from the ledger status', { status: 'SKIPPED', sentAt: null }, [claim, sent], null, {}],
      ['no ledger line at all', { sentAt: null }, [], null, {}],
      ['an older SENT line without facts vouches for nothing it does not say', { sentAt: null }, [line(SENT_AT, 'SENDING', 'SENT', 'mailed to the respondent (FQ-7K2M9Q)')], null, {}],
      ['marked SENT by a person after checking: that line is the ledger, and says nothing of mail_ref', { sentAt: null, mailRef: '' },
        [line(T0 - 2 * MINUTE, 'NEEDS_REVIEW', 'SENT', withLedgerFacts('marked sent by ana after checking by hand', { sentAt: T0 - 2 * MINUTE }), 'ana@example.org')], ['sent_at'], { sentAt: T0 - 2 * MINUTE }],
      ['a paste of SENT ("(unknown)" → SENT) is no check by hand', { sentAt: null }, [line(T0 - 2 * MINUTE, '(unknown)', 'SENT', 'multi-cell edit', 'ana@example.org')], null, {}],
    ])('%s', (_name, patch, history, columns, putBack) => {
      const repair = ledgerRepairOf(sentRow(patch), history);
      expect(repair?.columns ?? null).toEqual(columns);
      // Every other cell is the row's own: a repair changes only the columns it names.
      if (repair) expect(repair.row).toEqual({ ...sentRow(patch), ...putBack });
    });

    it.each<[string, Partial<QueueRow>, LogEntry[], string[]]>([
      ['SENT as its send line says: every column', {}, [claim, sent], ['mail_ref', 'sent_at', 'claimed_at']],
      ['SENT by an older line without facts: only the column the send cleared', {}, [line(SENT_AT, 'SENDING', 'SENT', 'mailed')], ['claimed_at']],
      ['a row that moved on from the ledger status: none', { status: 'SKIPPED' }, [claim, sent], []],
      ['no ledger line: none', {}, [], []],
    ])('vouchedColumns: %s', (_name, patch, history, columns) => {
      expect(vouchedColumns(sentRow(patch), history)).toEqual(columns);
    });

    it('a Log sorted by staff is read in time order', () => {
      expect(ledgerStateOf([sent, claim])?.status).toBe('SENT');
    });

    it.each<[string, Partial<QueueRow>, boolean]>([
      ['SENT as sent: not looked up', {}, false],
      ['SENT without sent_at: looked up', { sentAt: null }, true],
      ['SENT without mail_ref: looked up', { mailRef: '' }, true],
      ['SENDING as claimed: not looked up', { status: 'SENDING', sentAt: null, claimedAt: CLAIMED_AT }, false],
      ['SENDING without claimed_at: looked up', { status: 'SENDING', sentAt: null, claimedAt: null }, true],
      ['SENDING without mail_ref: looked up', { status: 'SENDING', sentAt: null, claimedAt: CLAIMED_AT, mailRef: '' }, true],
      ['READY without sent_at: not looked up', { status: 'READY', sentAt: null }, false],
      ['SENT without sent_at or event_id: no ledger to look in', { eventId: '', sentAt: null }, false],
    ])('only rows whose cells contradict their own status are looked up: %s', (_name, patch, looked) => {
      expect(looksEditedByHand(sentRow(patch))).toBe(looked);
    });

    it('the repair says what was put back, from which line', () => {
      const iso = (at: number) => new Date(at).toISOString();
      const previous = sentRow({ sentAt: null, mailRef: '', claimedAt: T0 });
      const repair = ledgerRepairOf(previous, [claim, sent]);
      expect(repair && describeRepair(repair, previous)).toBe(
        `put back mail_ref (empty) → ${REF}, sent_at (empty) → ${iso(SENT_AT)}, claimed_at ${iso(T0)} → (empty) from the Log's SENT line of ${iso(SENT_AT)}: ` +
          "these columns are formqueue's memory of this row (how a reply is never mailed twice)",
      );
    });
  });

  describe('processing puts back what the ledger recorded', () => {
    it('a SENT row whose sent_at a person cleared gets it back, with a note on the cell and a Log line, and no mail', () => {
      const w = world([sentRow({ sentAt: null })]);
      w.audit.batches.push([claim, sent]);
      runProcessing(w.deps, { startedAt: T0 });
      expect(w.queue.row(2)).toMatchObject({ status: 'SENT', sentAt: SENT_AT, mailRef: REF });
      expect(w.queue.notes.get('2:sent_at')).toMatch(/^formqueue put back sent_at \(empty\) → .* from the Log's SENT line of /);
      const put = w.audit.entries.filter((entry) => entry.at === T0);
      expect(put).toEqual([expect.objectContaining({ eventId: ID, from: 'SENT', to: 'SENT', by: 'system' })]);
      expect(w.mailer.outbox).toHaveLength(0);
    });

    it('a run where every row agrees with its cells reads no Log line for it', () => {
      const w = world([sentRow(), pendingRow({ eventId: 'evt-new' })]);
      const asked: string[][] = [];
      const historiesOf = w.audit.historiesOf.bind(w.audit);
      w.audit.historiesOf = (ids) => { asked.push([...ids]); return historiesOf(ids); };
      runProcessing(w.deps, { startedAt: T0 });
      expect(asked.filter((ids) => ids.includes(ID))).toEqual([]);
      expect(w.queue.notes.size).toBe(0);
    });

    it('a row a person moved between the read and the write is left alone (compare-and-set)', () => {
      const w = world([sentRow({ sentAt: null })]);
      w.audit.batches.push([claim, sent]);
      w.queue.beforeWriteRows = (_rows, queue) => { queue.edit(2, { status: 'SKIPPED' }); w.queue.beforeWriteRows = null; };
      runProcessing(w.deps, { startedAt: T0 });
      expect(w.queue.row(2)).toMatchObject({ status: 'SKIPPED', sentAt: null });
      expect(w.queue.notes.size).toBe(0);
    });
  });
});

// runProcessing's housekeeping: duplicate collapse, stale sweep, outages and bugs ending the run cleanly, the Log.
const housekeepingRow = (eventId: string, responseToken: string, patch: Partial<QueueRow> = {}) => pendingRow({ eventId, responseToken, ...patch });

describe('housekeeping', () => {
  describe('duplicate collapse', () => {
    it.each<[string, QueueRow[], string[], string]>([
      ['the same event_id on an earlier row', [housekeepingRow('e1', 't1'), housekeepingRow('e1', 't2')], ['SENT', 'DUPLICATE'], 'row 2'],
      ['the same response token on an earlier row', [housekeepingRow('e1', 't1'), housekeepingRow('e2', 't1')], ['SENT', 'DUPLICATE'], 'row 2'],
      ['an earlier row that already FAILED', [housekeepingRow('e1', 't1', { status: 'FAILED' }), housekeepingRow('e1', 't1')], ['FAILED', 'DUPLICATE'], 'row 2'],
      ['a later row that was already SENT', [housekeepingRow('e1', 't1'), housekeepingRow('e1', 't1', { status: 'SENT', sentAt: T0 })], ['DUPLICATE', 'SENT'], 'row 3'],
      ['an earlier row still GENERATING', [housekeepingRow('e1', 't1', { status: 'GENERATING', claimedAt: T0 }), housekeepingRow('e1', 't1')], ['GENERATING', 'DUPLICATE'], 'row 2'],
      ['a READY redelivery of a SKIPPED row', [housekeepingRow('e1', 't1', { status: 'SKIPPED' }), housekeepingRow('e1', 't1', { status: 'READY' })], ['SKIPPED', 'DUPLICATE'], 'row 2'],
    ])('a row with %s becomes DUPLICATE naming the row that keeps it, and only that row is answered', (_name, rows, statuses, original) => {
      expect(findDuplicates(numbered(rows), () => new Set()).map((finding) => finding.original)).toEqual([expect.stringMatching(`^${original} `)]);
      const w = world(rows);
      const summary = runProcessing(w.deps, start);
      expect(w.queue.rows.map((r) => r.status)).toEqual(statuses);
      expect(w.queue.rows.find((r) => r.status === 'DUPLICATE')?.error).toContain(`DUPLICATE: the same submission is already in ${original} `);
      expect(summary.duplicates).toBe(1);
      const sentBefore = rows.filter((r) => r.status === 'SENT').length;
      expect(w.mailer.outbox).toHaveLength(statuses.filter((s) => s === 'SENT').length - sentBefore);
    });

    it('a row whose key is already archived becomes DUPLICATE and is never generated or mailed', () => {
      const w = world([housekeepingRow('e1', 't1')]);
      w.queue.archived.add('t1');
      runProcessing(w.deps, start);
      expect(w.queue.row(2).status).toBe('DUPLICATE');
      expect(w.queue.row(2).error).toMatch(/^DUPLICATE: the same submission is already in the Archive sheet; not generated or mailed/);
      expect(w.gemini.calls).toHaveLength(0);
      expect(w.mailer.outbox).toHaveLength(0);
    });

    it('a row with sent_at is never collapsed: it is the record of a mail that went out', () => {
      const rows = [housekeepingRow('e1', 't1', { status: 'FAILED' }), housekeepingRow('e1', 't1', { status: 'READY', sentAt: T0 - MINUTE })];
      expect(findDuplicates(numbered(rows), () => new Set())).toEqual([]);
    });

    it('Archive keys are read only when some row could be collapsed', () => {
      let reads = 0;
      findDuplicates(numbered([housekeepingRow('e1', 't1', { status: 'SENT' })]), () => {
        reads++;
        return new Set();
      });
      expect(reads).toBe(0);
    });
  });

  describe('stale sweep', () => {
    it.each<[string, Partial<QueueRow>, string, number]>([
      ['GENERATING claimed 11 min ago goes back to PENDING, attempts kept', { status: 'GENERATING', claimedAt: T0 - 11 * MINUTE, attempts: 2 }, 'PENDING', 2],
      ['GENERATING claimed 5 min ago is left alone', { status: 'GENERATING', claimedAt: T0 - 5 * MINUTE, attempts: 2 }, 'GENERATING', 2],
      ['SENDING claimed 16 min ago becomes NEEDS_REVIEW', { status: 'SENDING', claimedAt: T0 - 16 * MINUTE, attempts: 1 }, 'NEEDS_REVIEW', 1],
      ['SENDING claimed 5 min ago is left alone', { status: 'SENDING', claimedAt: T0 - 5 * MINUTE, attempts: 1 }, 'SENDING', 1],
      ['SENDING without a claim time becomes NEEDS_REVIEW', { status: 'SENDING', claimedAt: null, attempts: 1 }, 'NEEDS_REVIEW', 1],
    ])('%s', (_name, patch, status, attempts) => {
      const w = world([pendingRow({ result: 'r', mailRef: 'FQ-AAAAAA', ...patch })]);
      // A run whose budget is already spent does only the sweep, so the swept state is what we see.
      const summary = runProcessing(w.deps, { startedAt: T0 - 300_000 });
      expect(summary.stoppedBecause).toBe('budget');
      expect(w.queue.row(2).status).toBe(status);
      expect(w.queue.row(2).attempts).toBe(attempts);
      expect(w.mailer.outbox).toHaveLength(0);
    });

    it('a stale SENDING row is never resent, and its error says so', () => {
      const w = world([pendingRow({ status: 'SENDING', claimedAt: T0 - 20 * MINUTE, result: 'r', mailRef: 'FQ-AAAAAA' })]);
      runProcessing(w.deps, start);
      w.clock.advance(60 * MINUTE);
      runProcessing(w.deps, start);
      expect(w.mailer.outbox).toHaveLength(0);
      expect(w.queue.row(2).error).toMatch(/^STALE_SENDING: sending started 20 min ago/);
      expect(w.queue.row(2).status).toBe('NEEDS_REVIEW');
    });

    it('a claim still in flight sets nextDueAt to when it turns stale', () => {
      const w = world([pendingRow({ status: 'SENDING', claimedAt: T0 - 5 * MINUTE })]);
      expect(runProcessing(w.deps, start).nextDueAt).toBe(T0 + 10 * MINUTE);
    });

    it('a claim without claimed_at seen after the sweep wakes the next tick at once, as the sweep counts it stale already', () => {
      // Another writer claims the row between this run's read and its re-read, leaving no claim time.
      const w = world([pendingRow({ status: 'READY', result: 'r', mailRef: 'FQ-AAAAAA' })]);
      w.queue.beforeReadRows = (_numbers, queue) => queue.edit(2, { status: 'SENDING', claimedAt: null });
      const summary = runProcessing(w.deps, start);
      expect(w.mailer.outbox).toHaveLength(0);
      expect(summary.nextDueAt).toBe(T0);
    });

    it.each<[string, Partial<QueueRow>, number | null]>([
      ['GENERATING claimed at T0', { status: 'GENERATING', claimedAt: T0 }, T0 + 10 * MINUTE],
      ['SENDING claimed at T0', { status: 'SENDING', claimedAt: T0 }, T0 + 15 * MINUTE],
      ['GENERATING without a claim time', { status: 'GENERATING', claimedAt: null }, -Infinity],
      ['SENDING without a claim time', { status: 'SENDING', claimedAt: null }, -Infinity],
      ['READY (no claim to go stale)', { status: 'READY', claimedAt: T0 }, null],
    ])('staleDeadline: %s', (_name, patch, deadline) => {
      const limits = { staleGeneratingMinutes: 10, staleSendingMinutes: 15 };
      expect(staleDeadline(pendingRow(patch), limits)).toBe(deadline);
      expect(isStale(pendingRow(patch), T0 + 12 * MINUTE, limits)).toBe(deadline !== null && deadline <= T0 + 12 * MINUTE);
    });
  });

  describe('errors end the run cleanly', () => {
    it('a Sheets outage raises SHEETS_UNAVAILABLE, writes nothing and does not throw', () => {
      const w = world([pendingRow()]);
      w.queue.failOn = { method: 'readAll', error: new Error('Service Spreadsheets failed while accessing document with id 1x.') };
      const summary = runProcessing(w.deps, start);
      expect(summary).toMatchObject({ stoppedBecause: 'sheets-unavailable', nextDueAt: T0 });
      expect(w.incidents.codes()).toEqual(['SHEETS_UNAVAILABLE']);
      expect(w.queue.writes).toHaveLength(0);
    });

    it('a spill drain failing with SHEETS_UNAVAILABLE ends the run the same way', () => {
      const w = world([pendingRow()]);
      w.deps.drainSpill = () => {
        throw codedError('SHEETS_UNAVAILABLE', 'Queue could not be opened');
      };
      expect(runProcessing(w.deps, start).stoppedBecause).toBe('sheets-unavailable');
      expect(w.gemini.calls).toHaveLength(0);
    });

    it('an outage while writing outcomes leaves claims to the stale sweep, never half-written rows', () => {
      const w = world([pendingRow(), pendingRow({ eventId: 'b', responseToken: 'b' })]);
      w.gemini.onCall = () => {
        w.queue.failOn = { method: 'writeRows', error: new Error('Error code INTERNAL') };
      };
      const summary = runProcessing(w.deps, start);
      expect(summary.stoppedBecause).toBe('sheets-unavailable');
      expect(w.queue.rows.map((r) => [r.status, r.result])).toEqual([
        ['GENERATING', ''],
        ['GENERATING', ''],
      ]);
    });

    it('an unexpected exception raises CODE_BUG with its stack and leaves rows untouched', () => {
      const w = world([pendingRow()]);
      w.config.readForms = () => {
        throw new TypeError("Cannot read properties of undefined (reading 'prompt')");
      };
      const summary = runProcessing(w.deps, start);
      expect(summary.stoppedBecause).toBe('code-bug');
      expect(w.incidents.raised[0].code).toBe('CODE_BUG');
      expect(w.incidents.raised[0].detail).toMatch(/^processQueue: TypeError: Cannot read properties/);
      expect(w.queue.writes).toHaveLength(0);
    });

    it('a missing sheet (CONFIG_MISSING) is a configuration incident naming the fix, not a code bug', () => {
      const w = world([pendingRow()]);
      w.config.readForms = () => {
        throw codedError('CONFIG_MISSING', 'The spreadsheet has no "Config" sheet. Run formqueue → Set up / repair from the spreadsheet menu.');
      };
      const summary = runProcessing(w.deps, start);
      expect(summary.stoppedBecause).toBe('config-missing');
      expect(w.incidents.codes()).toEqual(['CONFIG_MISSING']);
      expect(w.incidents.raised[0].detail).toContain('Set up / repair');
      expect(w.queue.writes).toHaveLength(0);
    });

    it('a successful read clears SHEETS_UNAVAILABLE', () => {
      const w = world([]);
      runProcessing(w.deps, start);
      expect(w.incidents.cleared).toEqual(expect.arrayContaining(['SHEETS_UNAVAILABLE']));
    });
  });

  describe('the Log', () => {
    it('every move is logged by "system", one append per commit: a reply\'s verdict goes with its send claim, a batch\'s outcomes with the next claims', () => {
      const w = world([
        housekeepingRow('e1', 't1'),
        housekeepingRow('e1', 't1'),
        pendingRow({ eventId: 'g', responseToken: 'g', status: 'GENERATING', claimedAt: T0 - 30 * MINUTE }),
      ]);
      runProcessing(w.deps, start);
      const batches = w.audit.batches.map((batch) => batch.map((e) => `${e.eventId}:${e.from}>${e.to}`));
      expect(batches).toEqual([
        ['e1:PENDING>DUPLICATE'],
        ['g:GENERATING>PENDING'],
        ['e1:PENDING>GENERATING', 'g:PENDING>GENERATING'],
        // The verdicts are held for the next commit, the send claims of the same rows: one write, the claim's lines
        // still in the Log before any mail goes.
        ['e1:GENERATING>READY', 'e1:READY>SENDING', 'g:GENERATING>READY', 'g:READY>SENDING'],
        // Each mail's "about to send" line, its own append right before the mail.
        ['e1:SENDING>SENDING'],
        ['g:SENDING>SENDING'],
        // The outcomes wait for the next commit; with nothing left to claim, the run's end writes them.
        ['e1:SENDING>SENT', 'g:SENDING>SENT'],
      ]);
      expect(w.audit.entries.every((entry) => entry.by === 'system' && entry.at === T0)).toBe(true);
    });
  });
});

/** Rows numbered as the memory Queue numbers them, for calling the pure finders directly. */
function numbered(rows: QueueRow[]): QueueRow[] {
  return rows.map((r, i) => ({ ...r, rowNumber: i + 2 }));
}

// runProcessing's own rules, one per case: the stale sweep's codes and counts, the budget and the mail-quota halt
// between rounds, when the next tick is due, and how failures while ending the run are reported.
/** A run whose budget is already spent does only the housekeeping before the rounds. */
const spent = { startedAt: T0 - 300_000 };

describe('rules', () => {
  describe('the stale sweep', () => {
    it.each<[string, Partial<QueueRow>, string, RegExp, number]>([
      ['a stale GENERATING claim', { status: 'GENERATING', claimedAt: T0 - 11 * MINUTE }, 'PENDING', /^STALE_GENERATING: /, 0],
      ['a stale SENDING claim', { status: 'SENDING', claimedAt: T0 - 16 * MINUTE, result: 'r', mailRef: 'FQ-AAAAAA' }, 'NEEDS_REVIEW', /^STALE_SENDING: /, 1],
    ])('%s goes to %s with its code, counted only when a person must look', (_what, patch, status, error, needsReview) => {
      const w = world([row(1, patch)]);
      const summary = runProcessing(w.deps, spent);
      expect(w.queue.row(2)).toMatchObject({ status, claimedAt: null });
      expect(w.queue.row(2).error).toMatch(error);
      expect(summary.needsReview).toBe(needsReview);
    });
  });

  describe('between rounds', () => {
    it('a run with no budget left runs no send step (nothing about mail limits is concluded)', () => {
      const w = world([row(1, { status: 'READY', result: 'r', mailRef: 'FQ-AAAAAA' })]);
      const summary = runProcessing(w.deps, spent);
      expect(summary.stoppedBecause).toBe('budget');
      expect(w.mailer.quotaChecks).toBe(0);
      expect(w.incidents.cleared).not.toContain('MAIL_LIMIT_REACHED');
    });

    it('once the mail quota halts sending, later rounds do not try to send again', () => {
      const w = world([row(1, { status: 'READY', result: 'r', mailRef: 'FQ-AAAAAA' }), row(2), row(3)], { GEMINI_CONCURRENCY: '1' });
      w.mailer.quota = 0;
      const summary = runProcessing(w.deps, start);
      expect(summary).toMatchObject({ sendingHaltedBy: 'MAIL_QUOTA_EXHAUSTED', generated: 2, sent: 0 });
      expect(w.mailer.quotaChecks).toBe(1);
    });

    it('a send step that spends the budget ends the run before a generation round', () => {
      const w = world([row(1, { status: 'READY', result: 'r', mailRef: 'FQ-AAAAAA' }), row(2)], { RUN_BUDGET_SECONDS: '60' });
      w.mailer.failWith = () => {
        w.clock.advance(61_000);
        return undefined;
      };
      const summary = runProcessing(w.deps, start);
      expect(w.gemini.calls).toEqual([]);
      expect(summary).toMatchObject({ sent: 1, stoppedBecause: 'budget' });
    });
  });

  describe('the round guard', () => {
    it('a run whose rounds never run out of work ends after 500 rounds, on a clock that stands still', () => {
      const w = world([row(1)], {}, [formConfig({ approvalRequired: true })]);
      let inserted = 0;
      // Before every write a new due submission is inserted above the rest: each round has a claim of its own to make.
      w.queue.beforeWriteRows = (_rows, queue) => {
        inserted++;
        queue.reorder((rows) => [{ ...row(1000 + inserted), rowNumber: 0 }, ...rows]);
      };
      const summary = runProcessing(w.deps, start);
      expect(summary.rounds).toBe(500);
      expect(w.gemini.calls).toHaveLength(500);
      expect(summary.stoppedBecause).toBe('done');
    });
  });

  describe('nextDueAt', () => {
    it.each<[string, Partial<QueueRow>[], number | null]>([
      ['nothing waiting', [{ status: 'SENT', sentAt: T0 - MINUTE }], null],
      ['the earliest of two back-offs', [{ nextAttemptAt: T0 + 5 * MINUTE }, { nextAttemptAt: T0 + 2 * MINUTE }], T0 + 2 * MINUTE],
      ['the earliest of two back-offs, the other way round', [{ nextAttemptAt: T0 + 2 * MINUTE }, { nextAttemptAt: T0 + 5 * MINUTE }], T0 + 2 * MINUTE],
      ['a claim going stale before a back-off ends', [{ nextAttemptAt: T0 + 30 * MINUTE }, { status: 'GENERATING', claimedAt: T0 - 5 * MINUTE }], T0 + 5 * MINUTE],
    ])('%s', (_what, patches, due) => {
      const w = world(patches.map((patch, i) => row(i + 1, patch)));
      expect(runProcessing(w.deps, start).nextDueAt).toBe(due);
    });

    it('a template problem holds its rows until the recheck, not at once', () => {
      const w = world([row(1)], {}, [formConfig({ formId: 'Wr1tE5sy', prompt: 'Hi {{nickname}}' })]);
      expect(runProcessing(w.deps, start).nextDueAt).toBe(T0 + 5 * MINUTE);
    });
  });

  describe('ending the run', () => {
    it('a failure clearing incidents after a complete run is reported as the run’s end', () => {
      const w = world([row(1, { status: 'SENT', sentAt: T0 - MINUTE })]);
      w.incidents.clear = () => {
        throw new TypeError('incident store broke');
      };
      const summary = runProcessing(w.deps, start);
      expect(summary.stoppedBecause).toBe('code-bug');
      expect(w.incidents.codes()).toEqual(['CODE_BUG']);
    });

    it('a failure clearing incidents after a run that already failed does not replace the first failure', () => {
      // The prompt rendered (TEMPLATE_INVALID is gone), then Sheets failed on the re-read before the claim.
      const w = world([row(1)], {}, [formConfig({ approvalRequired: true })]);
      w.queue.failOn = { method: 'readRows', error: codedError('SHEETS_UNAVAILABLE', 'Service Spreadsheets failed') };
      w.incidents.clear = () => {
        throw new TypeError('incident store broke');
      };
      const summary = runProcessing(w.deps, start);
      expect(summary.stoppedBecause).toBe('sheets-unavailable');
    });

    it('a clock that fails leaves nextDueAt null and the run still returns', () => {
      const w = world([row(1)]);
      w.deps.clock = {
        now: () => {
          throw new TypeError('clock broke');
        },
      };
      const summary = runProcessing(w.deps, start);
      expect(summary.stoppedBecause).toBe('code-bug');
      expect(summary.nextDueAt).toBeNull();
    });

    it('an incident store that cannot raise leaves the run ending quietly', () => {
      const w = world([row(1)]);
      w.queue.failOn = { method: 'readAll', error: new TypeError('bug') };
      w.incidents.raise = () => {
        throw new Error('cannot raise');
      };
      expect(runProcessing(w.deps, start).stoppedBecause).toBe('code-bug');
    });
  });
});

// Issue #29 rules: model lists and retired ids, usageMetadata read from an answer, prices, and the day/month totals.
const USAGE_T0 = Date.UTC(2026, 11, 2, 10);

describe('models and usage', () => {
  describe('model lists', () => {
    it('GEMINI_MODEL is read as an ordered list without blanks or repeats; its first id is the model', () => {
      const { settings } = readSettings({ GEMINI_MODEL: ' gemini-2.5-flash, ,gemini-3.5-flash,gemini-2.5-flash ' });
      expect(settings.geminiModels).toEqual(['gemini-2.5-flash', 'gemini-3.5-flash']);
      expect(settings.geminiModel).toBe('gemini-2.5-flash');
      expect(readSettings({ GEMINI_MODEL: ' , ' }).settings.geminiModels).toEqual(['gemini-3.5-flash']);
    });

    it("a form's Config list replaces GEMINI_MODEL's; blank keeps it", () => {
      expect(modelsFor('a, b', ['x'])).toEqual(['a', 'b']);
      expect(modelsFor('  ', ['x', 'y'])).toEqual(['x', 'y']);
      expect(modelList('')).toEqual([]);
    });

    it('the first model not known retired is asked; with every one retired the last is asked anyway', () => {
      const retired = new Map([['a', USAGE_T0]]);
      expect(firstLiveModel(['a', 'b', 'c'], retired)).toBe('b');
      expect(nextLiveModel(['a', 'b', 'c'], 'a', new Map([['a', USAGE_T0], ['b', USAGE_T0]]))).toBe('c');
      expect(nextLiveModel(['a', 'b'], 'b', retired)).toBeNull();
      expect(firstLiveModel(['a'], retired)).toBe('a');
    });

    it('a retired id is remembered for a week, then asked again; unreadable storage reads as none', () => {
      const stored = JSON.stringify({ old: USAGE_T0 - RETIRED_MODEL_RECHECK_MS, fresh: USAGE_T0 - 1000 });
      expect(Array.from(readRetiredModels(stored, USAGE_T0).keys())).toEqual(['fresh']);
      expect(readRetiredModels('{not json', USAGE_T0).size).toBe(0);
      expect(retiredModelsToWrite(new Map([['fresh', USAGE_T0 - 1000]]), JSON.stringify({ fresh: USAGE_T0 - 1000 }))).toBeNull();
      expect(retiredModelsToWrite(new Map(), JSON.stringify({ fresh: 1 }))).toBe('');
    });
  });

  describe('tokens and prices', () => {
    const answer = (body: unknown) => ({ kind: 'http' as const, status: 200, body: JSON.stringify(body) });

    it('usageMetadata gives prompt, output and thinking tokens and modelVersion; an error answer spent nothing we are told of', () => {
      const found = usageOf(answer({ usageMetadata: { promptTokenCount: 812, candidatesTokenCount: 310, thoughtsTokenCount: 512 }, modelVersion: 'gemini-3.5-flash-001' }));
      expect(found).toEqual({ usage: { prompt: 812, output: 310, thinking: 512 }, modelVersion: 'gemini-3.5-flash-001' });
      expect(usageOf(answer({ candidates: [] }))).toEqual({ usage: { prompt: 0, output: 0, thinking: 0 }, modelVersion: '' });
      expect(usageOf({ kind: 'http', status: 404, body: '{}' })).toBeNull();
      expect(usageOf({ kind: 'transport', message: 'Timeout' })).toBeNull();
    });

    it('thinking is billed at the output price; a model without a price has no estimate', () => {
      const price = priceOf(DEFAULT_PRICES, 'gemini-3.5-flash');
      expect(estimateCost({ prompt: 1_000_000, output: 500_000, thinking: 500_000 }, price)).toBeCloseTo(1.5 + 9, 10);
      expect(priceOf(DEFAULT_PRICES, 'gemini-flash-latest', 'gemini-3.5-flash')).toEqual(price);
      expect(estimateCost({ prompt: 1, output: 1, thinking: 0 }, priceOf(DEFAULT_PRICES, 'my-model'))).toBeNull();
    });

    it('GEMINI_PRICES adds or replaces prices; an entry it cannot read is named as a setting problem', () => {
      const { prices, problems } = parsePrices('my-model=0.5/2; gemini-3.5-flash = 1/8 ; nonsense');
      expect(prices['my-model']).toEqual({ input: 0.5, output: 2 });
      expect(prices['gemini-3.5-flash']).toEqual({ input: 1, output: 8 });
      expect(problems).toEqual(['nonsense']);
      expect(readSettings({ GEMINI_PRICES: 'x=1' }).problems.join(' ')).toContain('GEMINI_PRICES');
    });
  });

  describe('day and month totals', () => {
    const run = (): UsageTally => {
      const tally: UsageTally = {};
      addCall(tally, { formId: 'f1', model: 'gemini-3.5-flash', usage: { prompt: 100, output: 50, thinking: 20 }, cost: 0.001, reply: true });
      addCall(tally, { formId: 'f1', model: 'gemini-3.5-flash', usage: { prompt: 100, output: 0, thinking: 200 }, cost: 0.002, reply: false });
      return tally;
    };

    it('a run adds to the day and the month; a new day starts at zero and keeps the last one for the summary', () => {
      const first = usageToWrite(undefined, run(), '2026-12-01') as string;
      expect(tokensOn(readUsage(first), '2026-12-01')).toBe(470);
      const second = usageToWrite(first, run(), '2026-12-02') as string;
      const stored = readUsage(second);
      expect(tokensOn(stored, '2026-12-02')).toBe(470);
      expect(tokensOn(stored, '2026-12-03')).toBe(0);
      expect(stored.month['f1|gemini-3.5-flash']).toMatchObject({ replies: 2, calls: 4, prompt: 400, thinking: 440 });
      expect(stored.previousDayKey).toBe('2026-12-01');
      expect(usageToWrite(second, {}, '2026-12-02')).toBeNull();
    });

    it('the sections name each period with one line per form and model', () => {
      const stored = readUsage(usageToWrite(undefined, run(), '2026-12-01') as string);
      const sections = usageSections(stored, '2026-12-02');
      expect(sections.map((section) => section.title)).toEqual(['Day 2026-12-01', 'This month so far (2026-12)']);
      expect(sections[0].lines).toEqual(['form f1, gemini-3.5-flash: 1 replies (2 calls), tokens prompt 200, output 50, thinking 220; est. $0.0030']);
    });
  });

  describe('falling back from a retired model in a run', () => {
    it('a model that answers 404 gives way to the next in the same round, is remembered, and the row keeps one attempt', () => {
      const w = world([pendingRow()], { GEMINI_MODEL: 'old-model, gemini-3.5-flash' });
      const asked: string[] = [];
      w.gemini.respond = (request) => {
        asked.push(request.model);
        return request.model === 'old-model' ? fixtureOutcome(404, 'error-404-model') : okOutcome('A reply.');
      };
      const summary = runProcessing(w.deps, { startedAt: T0 });
      expect(asked).toEqual(['old-model', 'gemini-3.5-flash']);
      expect(w.queue.row(2)).toMatchObject({ attempts: 1, result: 'A reply.' });
      expect(Array.from(summary.retiredModels.keys())).toEqual(['old-model']);
      expect(w.incidents.raised.map((raise: { code: string }) => raise.code)).toContain('GEMINI_MODEL_RETIRED');
    });

    it('when every model answers 404 (a wrong base URL looks the same) none is remembered as retired', () => {
      const w = world([pendingRow()], { GEMINI_MODEL: 'a-model, b-model' });
      w.gemini.respond = () => fixtureOutcome(404, 'error-404-model');
      const summary = runProcessing(w.deps, { startedAt: T0 });
      expect(summary.retiredModels.size).toBe(0);
      expect(summary.generationHaltedBy).toBe('GEMINI_MODEL_NOT_FOUND');
      expect(w.queue.row(2).attempts).toBe(0);
      expect(w.incidents.raised.map((raise: { code: string }) => raise.code)).not.toContain('GEMINI_MODEL_RETIRED');
    });
  });
});

describe('runProcessing: what the run itself concludes', () => {
  const modelRetiredClears = (w: World) => w.incidents.cleared.filter((code) => code === 'GEMINI_MODEL_RETIRED');

  describe('GEMINI_MODEL_RETIRED', () => {
    it('a run whose model lists name no model known retired clears GEMINI_MODEL_RETIRED', () => {
      const w = world([]);
      w.deps.retiredModels = new Map([['old-model', T0 - HOUR]]);
      runProcessing(w.deps, start);
      expect(modelRetiredClears(w)).toEqual(['GEMINI_MODEL_RETIRED']);
    });

    it('a GEMINI_MODEL list that still names a retired model after a live one keeps GEMINI_MODEL_RETIRED open', () => {
      const w = world([], { GEMINI_MODEL: 'gemini-3.5-flash, old-model' });
      w.deps.retiredModels = new Map([['old-model', T0 - HOUR]]);
      runProcessing(w.deps, start);
      expect(modelRetiredClears(w)).toEqual([]);
    });

    it("a form's own Config model list naming a retired model keeps GEMINI_MODEL_RETIRED open", () => {
      const w = world([], {}, [formConfig({ model: 'old-model' })]);
      w.deps.retiredModels = new Map([['old-model', T0 - HOUR]]);
      runProcessing(w.deps, start);
      expect(modelRetiredClears(w)).toEqual([]);
    });
  });

  describe('CONFIG_SHEET_INVALID', () => {
    it('a Config row with problems raises one CONFIG_SHEET_INVALID naming each, one per line, and it is not cleared', () => {
      const w = world([], {}, [formConfig({ problems: ['approval: "maybe" is not yes or no', 'bcc: "x" is not an address'] })]);
      runProcessing(w.deps, start);
      expect(w.incidents.raised).toEqual([{ code: 'CONFIG_SHEET_INVALID', detail: 'approval: "maybe" is not yes or no\nbcc: "x" is not an address', rows: [] }]);
      expect(w.incidents.cleared.filter((code) => code === 'CONFIG_SHEET_INVALID')).toEqual([]);
    });

    it('a Config that reads clean clears CONFIG_SHEET_INVALID', () => {
      const w = world([]);
      runProcessing(w.deps, start);
      expect(w.incidents.cleared.filter((code) => code === 'CONFIG_SHEET_INVALID')).toEqual(['CONFIG_SHEET_INVALID']);
    });
  });

  describe('no Gemini API key', () => {
    it('a run without GEMINI_API_KEY calls no Gemini, halts generation as CONFIG_MISSING and leaves the row PENDING', () => {
      const w = world([row(1)], { GEMINI_API_KEY: '' });
      const summary = runProcessing(w.deps, start);
      expect(w.gemini.calls).toEqual([]);
      expect(summary.generationHaltedBy).toBe('CONFIG_MISSING');
      expect(w.queue.row(2)).toMatchObject({ status: 'PENDING', attempts: 0 });
    });
  });

  describe('a stale send claim the Log proves was never mailed', () => {
    const CLAIMED = T0 - 20 * MINUTE;
    const claimLine = (r: QueueRow, from: string): LogEntry => ({
      at: CLAIMED,
      eventId: r.eventId,
      from,
      to: 'SENDING',
      by: 'system',
      detail: withLedgerFacts('claimed for sending', { mailRef: r.mailRef, claimedAt: CLAIMED, marked: true }),
    });
    const aboutToSend = (r: QueueRow): LogEntry => ({ at: CLAIMED + 1000, eventId: r.eventId, from: 'SENDING', to: 'SENDING', by: 'system', detail: 'about to send' });
    const sending = (n: number) => row(n, { status: 'SENDING', claimedAt: CLAIMED, result: 'r', mailRef: `FQ-AAAAA${n}` });
    const note = "not mailed: the run that claimed it stopped before this row's turn (a batch's mails go in order, and the Log has no \"about to send\" line for it)";

    it('goes back to the status it was claimed from, with the reason in the Log; one with its "about to send" line goes to NEEDS_REVIEW', () => {
      const fromReady = sending(1);
      const fromApproved = sending(2);
      const mailing = sending(3);
      const w = world([fromReady, fromApproved, mailing]);
      w.audit.append([claimLine(fromReady, 'READY'), claimLine(fromApproved, 'APPROVED'), claimLine(mailing, 'READY'), aboutToSend(mailing)]);
      const seeded = w.audit.entries.length;
      const summary = runProcessing(w.deps, spent);
      expect(w.queue.rows.map((r) => [r.status, r.claimedAt])).toEqual([
        ['READY', null],
        ['APPROVED', null],
        ['NEEDS_REVIEW', null],
      ]);
      expect(w.audit.entries.slice(seeded).map((entry) => [entry.eventId, entry.from, entry.to, entry.by, entry.detail.startsWith('STALE_SENDING: ') ? 'STALE_SENDING' : entry.detail])).toEqual([
        ['evt-1', 'SENDING', 'READY', 'system', note],
        ['evt-2', 'SENDING', 'APPROVED', 'system', note],
        ['evt-3', 'SENDING', 'NEEDS_REVIEW', 'system', 'STALE_SENDING'],
      ]);
      expect(summary.needsReview).toBe(1);
    });

    it('the sweep looks the Log up once, for its stale SENDING claims only, not for a stale GENERATING one', () => {
      const first = sending(1);
      const generating = row(2, { status: 'GENERATING', claimedAt: CLAIMED });
      const second = sending(3);
      const w = world([first, generating, second]);
      w.audit.append([claimLine(first, 'READY'), claimLine(second, 'READY')]);
      runProcessing(w.deps, spent);
      expect(w.audit.lookups).toEqual([['evt-1', 'tf:Wr1tE5sy:tok-1', 'evt-3', 'tf:Wr1tE5sy:tok-3']]);
      expect(w.queue.rows.map((r) => r.status)).toEqual(['READY', 'PENDING', 'READY']);
    });
  });
});
