// recordVerdicts (src/core/processing/record-verdicts.ts): each verdict's row patch, Log line, counter and incident, the outage judgement's effects, and the held write.
import { describe, expect, it } from 'vitest';
import { recordVerdicts, type AskedClaim } from '../../../src/core/processing/record-verdicts';
import type { GeminiVerdict } from '../../../src/core/domain/gemini/gemini-outcome';
import type { QueueRow } from '../../../src/core/domain/queue/queue-row';
import type { FormConfig, LogEntry } from '../../../src/core/domain/sheet-ports';
import type { IncidentCode } from '../../../src/core/domain/failures/codes';
import type { Run } from '../../../src/core/processing/run-context';
import { releaseHeld } from '../../../src/core/processing/run-writes';
import { fixedRandom, formConfig, pendingRow, runOf, T0, world, type World } from '../memory-ports';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The clock when the verdicts are recorded: five minutes after the claim, so the Log lines' time is the clock's. */
const NOW = T0 + 5 * MINUTE;
const CLAIMED = T0;
const SPENT = 'gemini-2.5-flash: 120 tokens, $0.0001';
const GEMINI_INCIDENTS: IncidentCode[] = ['GEMINI_KEY_INVALID', 'GEMINI_MODEL_NOT_FOUND', 'GEMINI_DAILY_QUOTA', 'GEMINI_RATE_LIMITED', 'URLFETCH_DAILY_QUOTA'];

/** A row this run claimed: GENERATING, its attempt already counted by the claim, with an old error and back-off. */
const claimed = (n: number, patch: Partial<QueueRow> = {}): QueueRow =>
  pendingRow({
    eventId: `evt-${n}`,
    responseToken: `tok-${n}`,
    status: 'GENERATING',
    attempts: 1,
    claimedAt: CLAIMED,
    error: 'GEMINI_RETRYABLE: an earlier 503',
    nextAttemptAt: T0 - HOUR,
    ...patch,
  });

interface Setup {
  rows: QueueRow[];
  verdicts: GeminiVerdict[];
  approvalRequired?: boolean;
  config?: FormConfig;
  spent?: string;
  props?: Record<string, string>;
  /** GEMINI_UNAVAILABLE left open by an earlier run, with the rows it held back. */
  priorOutage?: number;
  random?: number[];
  secrets?: string[];
  raised?: IncidentCode[];
  persistNow?: () => void;
  /** Rows in the run's copy that were not asked (e.g. holding a mail reference). */
  others?: QueueRow[];
}

function record(setup: Setup): { w: World; run: Run } {
  const w = world([...setup.rows, ...(setup.others ?? [])], setup.props);
  w.clock.time = NOW;
  if (setup.random) w.deps.random = fixedRandom(...setup.random);
  if (setup.priorOutage !== undefined) w.incidents.prior.set('GEMINI_UNAVAILABLE', { runs: 1, rowCount: setup.priorOutage });
  if (setup.persistNow) Object.assign(w.incidents, { persistNow: setup.persistNow });
  const run = runOf(w);
  run.secrets = setup.secrets ?? [];
  for (const code of setup.raised ?? []) run.raised.add(code);
  const asked: AskedClaim[] = setup.rows.map((_row, i) => ({
    claim: run.rows[i],
    approvalRequired: setup.approvalRequired ?? false,
    config: setup.config ?? formConfig(),
    ...(setup.spent === undefined ? {} : { spent: setup.spent }),
  }));
  recordVerdicts(run, asked, setup.verdicts);
  return { w, run };
}

/** recordVerdicts, then the run's next commit, which takes the held batch along. */
function recordAndCommit(setup: Setup): { w: World; run: Run } {
  const done = record(setup);
  releaseHeld(done.run);
  // The run's copies are what landed.
  expect(done.run.rows).toEqual(done.w.queue.rows);
  return done;
}

const line = (row: QueueRow, to: string, detail: string): LogEntry => ({
  at: NOW,
  from: 'GENERATING',
  to,
  by: 'system',
  detail,
  eventId: row.eventId,
  submission: `tf:Wr1tE5sy:${row.responseToken}`,
});

const counters = (run: Run) => ({
  generated: run.summary.generated,
  failed: run.summary.failed,
  deferred: run.summary.deferred,
  needsReview: run.summary.needsReview,
  sent: run.summary.sent,
  duplicates: run.summary.duplicates,
  generationHaltedBy: run.summary.generationHaltedBy,
});
const counted = (patch: Partial<ReturnType<typeof counters>>) => ({ generated: 0, failed: 0, deferred: 0, needsReview: 0, sent: 0, duplicates: 0, generationHaltedBy: null, ...patch });

const ok = (text = 'Dear Mina, thank you.'): GeminiVerdict => ({ kind: 'ok', text });
const r503 = (reason = 'Gemini HTTP 503 UNAVAILABLE'): GeminiVerdict => ({ kind: 'retryable', reason, outage: true });
const r429: GeminiVerdict = { kind: 'retryable', reason: 'Gemini HTTP 429 RESOURCE_EXHAUSTED', rateLimited: true };
const notAsked: GeminiVerdict = { kind: 'retryable', reason: 'Gemini could not be reached: the batch failed', uncharged: true };
const REF = 'FQ-GGGGGG'; // what newMailRef draws from a Random that always says 0.5

describe('recordVerdicts: a written reply', () => {
  it.each<[string, boolean, string, string, string, string]>([
    // name, approval on, reply, status, error, Log detail
    ['approval off, within the policy: READY', false, 'Dear Mina, thank you.', 'READY', '', 'reply written'],
    ['approval on: AWAITING_APPROVAL, waiting for approval', true, 'Dear Mina, thank you.', 'AWAITING_APPROVAL', '', 'reply written; waits for approval'],
    [
      'approval off, a link outside the allowed domains: held for a person with the rule in error',
      false,
      'See https://evil.example/x',
      'AWAITING_APPROVAL',
      'REPLY_POLICY: LINK_DOMAIN link to evil.example is not allowed (allowed_link_domains: none); waits for a person: read it, then APPROVED mails it as it is',
      'reply written; held for a person: REPLY_POLICY: LINK_DOMAIN link to evil.example is not allowed (allowed_link_domains: none); waits for a person: read it, then APPROVED mails it as it is',
    ],
    [
      'approval on and a policy breach: the breach is what the Log says',
      true,
      'Call 0171 234 5678 today',
      'AWAITING_APPROVAL',
      'REPLY_POLICY: PHONE_NUMBER the phone number 0171 234 5678 is in the reply (allow_phone_numbers is off); waits for a person: read it, then APPROVED mails it as it is',
      'reply written; held for a person: REPLY_POLICY: PHONE_NUMBER the phone number 0171 234 5678 is in the reply (allow_phone_numbers is off); waits for a person: read it, then APPROVED mails it as it is',
    ],
  ])('%s', (_name, approvalRequired, text, status, error, detail) => {
    const row = claimed(1);
    const { w, run } = recordAndCommit({ rows: [row], verdicts: [ok(text)], approvalRequired });
    expect(w.queue.rows).toEqual([{ ...row, rowNumber: 2, status, claimedAt: null, updatedAt: NOW, result: text, mailRef: REF, nextAttemptAt: null, error }]);
    expect(w.audit.entries).toEqual([line(row, status, detail)]);
    expect(counters(run)).toEqual(counted({ generated: 1 }));
    expect(w.incidents.raised).toEqual([]);
  });

  it('appends what the calls spent to the Log line, whichever the reply went to', () => {
    const { w } = recordAndCommit({ rows: [claimed(1), claimed(2)], verdicts: [ok(), ok('See https://evil.example/x')], spent: SPENT });
    expect(w.audit.entries.map((entry) => entry.detail)).toEqual([
      `reply written; ${SPENT}`,
      `reply written; held for a person: REPLY_POLICY: LINK_DOMAIN link to evil.example is not allowed (allowed_link_domains: none); waits for a person: read it, then APPROVED mails it as it is; ${SPENT}`,
    ]);
  });

  it('appends what was spent to the approval wait too', () => {
    const { w } = recordAndCommit({ rows: [claimed(1)], verdicts: [ok()], approvalRequired: true, spent: SPENT });
    expect(w.audit.entries.map((entry) => entry.detail)).toEqual([`reply written; waits for approval; ${SPENT}`]);
  });

  it("checks the reply against the row's own form Config: a domain it allows passes", () => {
    const { w } = recordAndCommit({ rows: [claimed(1)], verdicts: [ok('See https://evil.example/x')], config: formConfig({ allowedLinkDomains: 'evil.example' }) });
    expect(w.queue.row(2)).toMatchObject({ status: 'READY', error: '' });
  });

  it('takes known secrets out of the policy breach in error', () => {
    const { w } = recordAndCommit({ rows: [claimed(1)], verdicts: [ok('See https://evil.example/x')], secrets: ['evil.example'] });
    expect(w.queue.row(2).error).toBe(
      'REPLY_POLICY: LINK_DOMAIN link to [redacted] is not allowed (allowed_link_domains: none); waits for a person: read it, then APPROVED mails it as it is',
    );
  });

  it('keeps the mail reference a row already has', () => {
    const { w } = recordAndCommit({ rows: [claimed(1, { mailRef: 'FQ-KEPT01' })], verdicts: [ok()] });
    expect(w.queue.row(2).mailRef).toBe('FQ-KEPT01');
  });

  it("draws a new mail reference that no row of the run's copy holds", () => {
    const other = pendingRow({ eventId: 'evt-9', responseToken: 'tok-9', status: 'SENT', sentAt: T0, mailRef: REF });
    const { w } = recordAndCommit({ rows: [claimed(1)], verdicts: [ok()], others: [other], random: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0, 0, 0] });
    expect(w.queue.row(2).mailRef).toBe('FQ-000000');
  });

  it('finds Gemini reachable: GEMINI_UNAVAILABLE and every Gemini incident a reply proves gone', () => {
    const { run } = record({ rows: [claimed(1)], verdicts: [ok()] });
    expect([...run.gone].sort()).toEqual(['GEMINI_UNAVAILABLE', ...GEMINI_INCIDENTS].sort());
  });
});

describe('recordVerdicts: retryable verdicts', () => {
  it('a request never asked goes back to PENDING with its attempt given back, no back-off, nothing spent said', () => {
    const row = claimed(1, { attempts: 3 });
    const { w, run } = recordAndCommit({ rows: [row], verdicts: [notAsked], spent: SPENT, priorOutage: 3 });
    const error = 'GEMINI_RETRYABLE: Gemini could not be reached: the batch failed';
    expect(w.queue.rows).toEqual([{ ...row, rowNumber: 2, status: 'PENDING', attempts: 2, claimedAt: null, updatedAt: NOW, error }]);
    expect(w.audit.entries).toEqual([line(row, 'PENDING', `${error}; attempt not counted`)]);
    expect(counters(run)).toEqual(counted({ deferred: 1 }));
    expect(w.incidents.raised).toEqual([]);
    expect(w.incidents.cleared).toEqual([]);
    expect([...run.gone]).toEqual([]);
  });

  it.each<[string, number, number]>([
    // name, attempts so far (this one included), next try
    ['attempt 1: RETRY_BASE_SECONDS (60 s)', 1, NOW + 60_000],
    ['attempt 2: twice that', 2, NOW + 120_000],
    ['attempt 4, one short of MAX_ATTEMPTS: eight times', 4, NOW + 480_000],
  ])('a retryable failure with attempts left goes back to PENDING with a back-off, %s', (_name, attempts, at) => {
    const row = claimed(1, { attempts });
    const { w, run } = recordAndCommit({ rows: [row], verdicts: [{ kind: 'retryable', reason: 'Gemini answered 200 with a body that is not JSON' }], spent: SPENT });
    const error = 'GEMINI_RETRYABLE: Gemini answered 200 with a body that is not JSON';
    expect(w.queue.rows).toEqual([{ ...row, rowNumber: 2, status: 'PENDING', claimedAt: null, updatedAt: NOW, nextAttemptAt: at, error }]);
    expect(w.audit.entries).toEqual([line(row, 'PENDING', `${error}; next try at ${new Date(at).toISOString()}`)]);
    expect(counters(run)).toEqual(counted({ deferred: 1 }));
    expect(w.incidents.raised).toEqual([]);
  });

  it("waits at least Gemini's retryDelay", () => {
    const { w } = recordAndCommit({ rows: [claimed(1)], verdicts: [{ ...r429, retryAfterSeconds: 600 }] });
    expect(w.queue.row(2).nextAttemptAt).toBe(NOW + 600_000);
  });

  it('a per-minute rate limit goes back to PENDING and raises GEMINI_RATE_LIMITED once written, with every row it held back', () => {
    const rows = [claimed(1), claimed(2, { attempts: 2 })];
    const { w, run } = record({ rows, verdicts: [r429, { ...r429, reason: 'second' }] });
    expect(w.incidents.raised).toEqual([]);
    releaseHeld(run);
    const error = 'GEMINI_RETRYABLE: Gemini HTTP 429 RESOURCE_EXHAUSTED';
    expect(w.queue.rows).toEqual([
      { ...rows[0], rowNumber: 2, status: 'PENDING', claimedAt: null, updatedAt: NOW, nextAttemptAt: NOW + 60_000, error },
      { ...rows[1], rowNumber: 3, status: 'PENDING', claimedAt: null, updatedAt: NOW, nextAttemptAt: NOW + 120_000, error: 'GEMINI_RETRYABLE: second' },
    ]);
    expect(w.incidents.raised).toEqual([{ code: 'GEMINI_RATE_LIMITED', detail: error, rows: [2, 3] }]);
    expect(counters(run)).toEqual(counted({ deferred: 2 }));
    // A 429 is an answer: Gemini is reachable, the rate limit itself is not gone.
    expect([...run.gone]).toEqual(['GEMINI_UNAVAILABLE']);
  });

  it.each<[string, number, string]>([
    ['attempts at MAX_ATTEMPTS', 5, 'GEMINI_RETRYABLE: gave up after 5 attempts; last: Gemini could not be reached: Timeout'],
    ['attempts beyond MAX_ATTEMPTS (lowered since)', 7, 'GEMINI_RETRYABLE: gave up after 7 attempts; last: Gemini could not be reached: Timeout'],
  ])('a retryable failure with %s is FAILED, saying it gave up', (_name, attempts, error) => {
    const row = claimed(1, { attempts });
    const { w, run } = recordAndCommit({ rows: [row], verdicts: [{ kind: 'retryable', reason: 'Gemini could not be reached: Timeout', rateLimited: true }], spent: SPENT });
    expect(w.queue.rows).toEqual([{ ...row, rowNumber: 2, status: 'FAILED', claimedAt: null, updatedAt: NOW, error }]);
    expect(w.audit.entries).toEqual([line(row, 'FAILED', error)]);
    expect(counters(run)).toEqual(counted({ failed: 1 }));
    expect(w.incidents.raised).toEqual([]);
  });

  it('MAX_ATTEMPTS comes from the settings', () => {
    const { w } = recordAndCommit({ rows: [claimed(1, { attempts: 2 })], verdicts: [r503()], props: { MAX_ATTEMPTS: '2' } });
    expect(w.queue.row(2)).toMatchObject({ status: 'FAILED', error: 'GEMINI_RETRYABLE: gave up after 2 attempts; last: Gemini HTTP 503 UNAVAILABLE' });
  });

  it('takes known secrets out of the error cell and the Log line', () => {
    const { w } = recordAndCommit({ rows: [claimed(1)], verdicts: [{ kind: 'retryable', reason: 'proxy said hunter22 no' }], secrets: ['hunter22'] });
    expect(w.queue.row(2).error).toBe('GEMINI_RETRYABLE: proxy said [redacted] no');
    expect(w.audit.entries[0].detail).toBe(`GEMINI_RETRYABLE: proxy said [redacted] no; next try at ${new Date(NOW + 60_000).toISOString()}`);
  });
});

describe('recordVerdicts: a round Gemini did not answer', () => {
  it('first run of an outage: each row is charged and backs off as usual, GEMINI_UNAVAILABLE raised once written with the first reason and every row', () => {
    const rows = [claimed(1), claimed(2, { attempts: 5 })];
    const { w, run } = record({ rows, verdicts: [r503('first reason'), r503('second reason')], spent: SPENT });
    expect(w.incidents.raised).toEqual([]);
    expect(w.queue.writes).toEqual([]);
    releaseHeld(run);
    expect(w.queue.rows).toEqual([
      { ...rows[0], rowNumber: 2, status: 'PENDING', claimedAt: null, updatedAt: NOW, nextAttemptAt: NOW + 60_000, error: 'GEMINI_RETRYABLE: first reason' },
      { ...rows[1], rowNumber: 3, status: 'FAILED', claimedAt: null, updatedAt: NOW, error: 'GEMINI_RETRYABLE: gave up after 5 attempts; last: second reason' },
    ]);
    expect(w.audit.entries).toEqual([
      line(rows[0], 'PENDING', `GEMINI_RETRYABLE: first reason; next try at ${new Date(NOW + 60_000).toISOString()}`),
      line(rows[1], 'FAILED', 'GEMINI_RETRYABLE: gave up after 5 attempts; last: second reason'),
    ]);
    expect(w.incidents.raised).toEqual([{ code: 'GEMINI_UNAVAILABLE', detail: 'first reason', rows: [2, 3] }]);
    expect(counters(run)).toEqual(counted({ deferred: 1, failed: 1 }));
    expect([...run.gone]).toEqual([]);
    expect(w.incidents.cleared).toEqual([]);
  });

  it('a lasting outage: rows go back to PENDING with their attempt given back, no back-off, generation paused, GEMINI_UNAVAILABLE raised with the first reason', () => {
    const rows = [claimed(1, { attempts: 5 }), claimed(2, { attempts: 2 })];
    const { w, run } = record({ rows, verdicts: [r503('first reason'), r503('Gemini could not be reached: Timeout')], spent: SPENT, priorOutage: 2 });
    expect(w.incidents.raised).toEqual([]);
    // One move a row: a held row is not also given the usual back-off.
    expect(run.held?.batch.rows.map((row) => [row.rowNumber, row.status, row.attempts])).toEqual([
      [2, 'PENDING', 4],
      [3, 'PENDING', 1],
    ]);
    releaseHeld(run);
    expect(run.rows).toEqual(w.queue.rows);
    expect(w.queue.rows).toEqual([
      { ...rows[0], rowNumber: 2, status: 'PENDING', attempts: 4, claimedAt: null, updatedAt: NOW, error: 'GEMINI_UNAVAILABLE: first reason' },
      { ...rows[1], rowNumber: 3, status: 'PENDING', attempts: 1, claimedAt: null, updatedAt: NOW, error: 'GEMINI_UNAVAILABLE: Gemini could not be reached: Timeout' },
    ]);
    expect(w.audit.entries).toEqual([
      line(rows[0], 'PENDING', 'GEMINI_UNAVAILABLE: first reason; generation paused, attempt not counted'),
      line(rows[1], 'PENDING', 'GEMINI_UNAVAILABLE: Gemini could not be reached: Timeout; generation paused, attempt not counted'),
    ]);
    expect(w.incidents.raised).toEqual([{ code: 'GEMINI_UNAVAILABLE', detail: 'first reason', rows: [2, 3] }]);
    expect(counters(run)).toEqual(counted({ deferred: 2, generationHaltedBy: 'GEMINI_UNAVAILABLE' }));
  });

  it('a 429 beside a 503 is no outage round, even with one open: the 503 row is charged and backs off', () => {
    const rows = [claimed(1), claimed(2)];
    const { w } = recordAndCommit({ rows, verdicts: [r429, r503()], priorOutage: 3 });
    expect(w.queue.rows.map((row) => [row.status, row.attempts, row.nextAttemptAt, row.error])).toEqual([
      ['PENDING', 1, NOW + 60_000, 'GEMINI_RETRYABLE: Gemini HTTP 429 RESOURCE_EXHAUSTED'],
      ['PENDING', 1, NOW + 60_000, 'GEMINI_RETRYABLE: Gemini HTTP 503 UNAVAILABLE'],
    ]);
  });

  it('a lasting outage takes known secrets out of the error cell', () => {
    const { w } = recordAndCommit({ rows: [claimed(1), claimed(2)], verdicts: [r503('via hunter22'), r503()], priorOutage: 0, secrets: ['hunter22'] });
    expect(w.queue.row(2).error).toBe('GEMINI_UNAVAILABLE: via [redacted]');
  });

  it.each<[string, number, number, boolean]>([
    // name, rows unanswered now, rows held back before, lasting
    ['one row now, one before: charged (a row whose own request keeps failing)', 1, 1, false],
    ['one row now, two before: held', 1, 2, true],
    ['two rows now, none before: held', 2, 0, true],
  ])('an earlier run saw it too, %s', (_name, now, before, lasting) => {
    const rows = Array.from({ length: now }, (_v, i) => claimed(i + 1, { attempts: 2 }));
    const { w } = recordAndCommit({ rows, verdicts: rows.map(() => r503()), priorOutage: before });
    expect(w.queue.rows.map((row) => [row.attempts, row.error])).toEqual(
      rows.map(() => (lasting ? [1, 'GEMINI_UNAVAILABLE: Gemini HTTP 503 UNAVAILABLE'] : [2, 'GEMINI_RETRYABLE: Gemini HTTP 503 UNAVAILABLE'])),
    );
  });
});

describe("recordVerdicts: verdicts that are not the row's fault, and permanent ones", () => {
  it.each<[string, GeminiVerdict & { kind: 'systemic' }]>([
    ['a bad key', { kind: 'systemic', incident: 'GEMINI_KEY_INVALID', reason: 'Gemini HTTP 400 INVALID_ARGUMENT (check Script Property GEMINI_API_KEY)' }],
    ['the daily URL Fetch quota', { kind: 'systemic', incident: 'URLFETCH_DAILY_QUOTA', reason: "Apps Script's daily URL Fetch quota is used up" }],
  ])('%s: PENDING with the attempt given back, generation paused, the incident the verdict names raised once written', (_name, verdict) => {
    const rows = [claimed(1, { attempts: 3 }), claimed(2)];
    const { w, run } = record({ rows, verdicts: [verdict, verdict], spent: SPENT });
    expect(w.incidents.raised).toEqual([]);
    releaseHeld(run);
    const error = `${verdict.incident}: ${verdict.reason}`;
    expect(w.queue.rows).toEqual([
      { ...rows[0], rowNumber: 2, status: 'PENDING', attempts: 2, claimedAt: null, updatedAt: NOW, error },
      { ...rows[1], rowNumber: 3, status: 'PENDING', attempts: 0, claimedAt: null, updatedAt: NOW, error },
    ]);
    expect(w.audit.entries).toEqual([
      line(rows[0], 'PENDING', `${error}; generation paused, attempt not counted`),
      line(rows[1], 'PENDING', `${error}; generation paused, attempt not counted`),
    ]);
    expect(w.incidents.raised).toEqual([{ code: verdict.incident, detail: error, rows: [2, 3] }]);
    expect(counters(run)).toEqual(counted({ deferred: 2, generationHaltedBy: verdict.incident }));
    expect([...run.gone]).toEqual(['GEMINI_UNAVAILABLE']);
  });

  const OUT_OF_TOKENS =
    'GEMINI_CONTENT: Gemini spent its whole output budget thinking and wrote no reply (4000 thinking tokens). Next step: set a model that thinks less ' +
    '(Config "model" or GEMINI_MODEL, e.g. Flash-Lite) or shorten the prompt, then Retry; or reply yourself and set SENT';

  it.each<[string, GeminiVerdict, string | undefined, string, string]>([
    // name, verdict, spent, error, Log detail
    ['out of tokens, with what was spent', { kind: 'out-of-tokens', reason: 'Gemini spent its whole output budget thinking and wrote no reply (4000 thinking tokens)' }, SPENT, OUT_OF_TOKENS, `${OUT_OF_TOKENS}; ${SPENT}`],
    ['out of tokens, nothing spent said', { kind: 'out-of-tokens', reason: 'Gemini spent its whole output budget thinking and wrote no reply (4000 thinking tokens)' }, undefined, OUT_OF_TOKENS, OUT_OF_TOKENS],
    ['blocked content', { kind: 'content', reason: 'Gemini blocked the prompt (SAFETY)' }, SPENT, 'GEMINI_CONTENT: Gemini blocked the prompt (SAFETY)', 'GEMINI_CONTENT: Gemini blocked the prompt (SAFETY)'],
    ['a rejected request', { kind: 'rejected', reason: 'Gemini HTTP 400 INVALID_ARGUMENT' }, SPENT, 'GEMINI_REJECTED: Gemini HTTP 400 INVALID_ARGUMENT', 'GEMINI_REJECTED: Gemini HTTP 400 INVALID_ARGUMENT'],
  ])('%s: FAILED with the reason and the attempt charged', (_name, verdict, spent, error, detail) => {
    const row = claimed(1, { attempts: 2 });
    const { w, run } = recordAndCommit({ rows: [row], verdicts: [verdict], ...(spent === undefined ? {} : { spent }) });
    expect(w.queue.rows).toEqual([{ ...row, rowNumber: 2, status: 'FAILED', claimedAt: null, updatedAt: NOW, error }]);
    expect(w.audit.entries).toEqual([line(row, 'FAILED', detail)]);
    expect(counters(run)).toEqual(counted({ failed: 1 }));
    expect(w.incidents.raised).toEqual([]);
    expect([...run.gone]).toEqual(['GEMINI_UNAVAILABLE']);
  });

  it('takes known secrets out of a permanent error', () => {
    const { w } = recordAndCommit({ rows: [claimed(1)], verdicts: [{ kind: 'rejected', reason: 'body had hunter22' }], secrets: ['hunter22'] });
    expect(w.queue.row(2).error).toBe('GEMINI_REJECTED: body had [redacted]');
  });
});

describe('recordVerdicts: the round as a whole', () => {
  it("pairs each claim with its own verdict, and writes nothing until the run's next commit", () => {
    const rows = [claimed(1), claimed(2), claimed(3)];
    const { w, run } = record({ rows, verdicts: [ok(), { kind: 'rejected', reason: 'no' }, notAsked] });
    expect(w.queue.writes).toEqual([]);
    expect(w.audit.entries).toEqual([]);
    expect(run.held?.batch.rows.map((row) => [row.rowNumber, row.status])).toEqual([
      [2, 'READY'],
      [3, 'FAILED'],
      [4, 'PENDING'],
    ]);
    // The run's copies show the moves at once.
    expect(run.rows.map((row) => row.status)).toEqual(['READY', 'FAILED', 'PENDING']);
    releaseHeld(run);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['READY', 'FAILED', 'PENDING']);
    expect(w.queue.writes).toHaveLength(1);
    expect(counters(run)).toEqual(counted({ generated: 1, failed: 1, deferred: 1 }));
  });

  it('a row staff moved while Gemini wrote keeps their decision; incidents are raised all the same', () => {
    const rows = [claimed(1), claimed(2)];
    const { w, run } = record({ rows, verdicts: [r429, r429] });
    w.queue.edit(3, { status: 'SKIPPED' });
    releaseHeld(run);
    expect(w.queue.rows.map((row) => row.status)).toEqual(['PENDING', 'SKIPPED']);
    expect(w.incidents.raised).toEqual([{ code: 'GEMINI_RATE_LIMITED', detail: 'GEMINI_RETRYABLE: Gemini HTTP 429 RESOURCE_EXHAUSTED', rows: [2, 3] }]);
    expect(counters(run)).toEqual(counted({ deferred: 1 }));
  });

  it('raises each incident the round found, in the order first found', () => {
    const key: GeminiVerdict = { kind: 'systemic', incident: 'GEMINI_KEY_INVALID', reason: 'bad key' };
    const { w } = recordAndCommit({ rows: [claimed(1), claimed(2), claimed(3)], verdicts: [r429, key, r429] });
    expect(w.incidents.raised).toEqual([
      { code: 'GEMINI_RATE_LIMITED', detail: 'GEMINI_RETRYABLE: Gemini HTTP 429 RESOURCE_EXHAUSTED', rows: [2, 4] },
      { code: 'GEMINI_KEY_INVALID', detail: 'GEMINI_KEY_INVALID: bad key', rows: [3] },
    ]);
  });

  it('an empty round records nothing and finds nothing gone', () => {
    const { w, run } = recordAndCommit({ rows: [], verdicts: [], priorOutage: 2 });
    expect(w.queue.writes).toEqual([]);
    expect(w.audit.entries).toEqual([]);
    expect(w.incidents.raised).toEqual([]);
    expect(w.incidents.cleared).toEqual([]);
    expect([...run.gone]).toEqual([]);
    expect(run.held).toBeNull();
  });
});

describe('recordVerdicts: ending an open GEMINI_UNAVAILABLE at once', () => {
  it.each<[string, GeminiVerdict[], number | undefined, IncidentCode[], IncidentCode[]]>([
    // name, verdicts, rows the open incident held back, raised this run, cleared at once
    ['every request answered, an outage open from an earlier run: cleared now', [ok(), ok()], 3, [], ['GEMINI_UNAVAILABLE']],
    ['a 429 is an answer too', [r429], 3, [], ['GEMINI_UNAVAILABLE']],
    ['a 429 beside a reply', [ok(), r429], 3, [], ['GEMINI_UNAVAILABLE']],
    ['a failed permanent verdict is an answer', [{ kind: 'rejected', reason: 'no' }], 0, [], ['GEMINI_UNAVAILABLE']],
    ['no outage open: nothing to clear', [ok()], undefined, [], []],
    ['raised by this same run: kept', [ok()], 3, ['GEMINI_UNAVAILABLE'], []],
    ['one row answered, another not: not yet', [ok(), r503()], 3, [], []],
    ['no row answered: not', [r503()], 3, [], []],
    ['requests never asked prove nothing', [notAsked, notAsked], 3, [], []],
  ])('%s', (_name, verdicts, priorOutage, raised, cleared) => {
    let persisted = 0;
    const rows = verdicts.map((_v, i) => claimed(i + 1));
    const { w } = record({ rows, verdicts, priorOutage, raised, persistNow: () => persisted++ });
    expect(w.incidents.cleared).toEqual(cleared);
    expect(persisted).toBe(cleared.length);
  });

  it('needs no persistNow from the incident sink', () => {
    const { w } = record({ rows: [claimed(1)], verdicts: [ok()], priorOutage: 1 });
    expect(w.incidents.cleared).toEqual(['GEMINI_UNAVAILABLE']);
  });

  it.each<[string, GeminiVerdict[], IncidentCode[]]>([
    ['a reply', [ok()], ['GEMINI_UNAVAILABLE', ...GEMINI_INCIDENTS]],
    ['a 429 alone', [r429], ['GEMINI_UNAVAILABLE']],
    ['a reply beside a 503', [r503(), ok()], ['GEMINI_UNAVAILABLE', ...GEMINI_INCIDENTS]],
    ['only 503s', [r503(), r503()], []],
    ['only requests never asked', [notAsked], []],
  ])('what %s proves gone, for the run to clear at its end', (_name, verdicts, gone) => {
    const { run } = record({ rows: verdicts.map((_v, i) => claimed(i + 1)), verdicts });
    expect([...run.gone]).toEqual(gone);
  });
});
