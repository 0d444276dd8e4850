// runProcessing's generation side: claims, read-back, every Gemini outcome class, back-off, budget and pause.
import { describe, expect, it } from 'vitest';
import { runProcessing } from '../../../src/core/processing/process-run';
import type { GeminiOutcome } from '../../../src/core/domain/ports';
import { fixtureOutcome, formConfig, okOutcome, pendingRow, T0, world } from '../memory-ports';

const start = { startedAt: T0 };
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
