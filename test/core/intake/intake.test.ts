import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handleDelivery, SEEN_CACHE_SECONDS, storeDelivery } from '../../../src/core/intake/intake';
import { parseTypeformBody } from '../../../src/core/domain/typeform/typeform-payload';
import { REJECTED_BYTES_PER_DAY, foldTally } from '../../../src/core/domain/typeform/rejection-tally';
import { DIRTY_PROPERTY } from '../../../src/core/domain/queue/tick-gate';
import { drainSpill } from '../../../src/core/intake/spill-drain';
import { form, memoryIntake, OLD_TOKEN, TOKEN } from './memory-intake';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/typeform/${name}`, import.meta.url), 'utf8');
const essay = fixture('essay-submission.json');

describe('handleDelivery', () => {
  it('queues a valid delivery once, as PENDING, with the answers rendered and the recipient found', () => {
    const m = memoryIntake();
    const answer = handleDelivery({ token: TOKEN, body: essay }, m.deps);
    expect(answer).toEqual({ ok: true, queued: true, event_id: '01JQ8ZK4W6E2V1RZ5T3N8M0B7C' });
    expect(m.queue).toHaveLength(1);
    expect(m.queue[0]).toMatchObject({ status: 'PENDING', formId: 'Wr1tE5sy', recipient: 'mina.okafor@example.com', attempts: 0 });
    expect(m.queue[0].submission).toContain('Your name: Mina Okafor');
    expect(m.queue[0].payload).toBe(JSON.stringify(JSON.parse(essay)));
    expect(m.flushes).toBe(1);
    expect(m.props[DIRTY_PROPERTY]).toBeDefined();
  });

  it('journals a queued delivery once, under its identity, with its payload, before answering; a duplicate adds no line', () => {
    const m = memoryIntake();
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    expect(m.journal).toEqual([
      { receivedAt: m.queue[0].receivedAt, key: 'tf:Wr1tE5sy:k3h2j4g5f6d7s8a9q0w1e2r3t4y5u6i7', eventId: '01JQ8ZK4W6E2V1RZ5T3N8M0B7C', payload: m.queue[0].payload },
    ]);
  });

  it('a Journal that refuses the line (its protection, a missing sheet) still queues the delivery and says so in the log', () => {
    const m = memoryIntake();
    m.journalFails.value = 'You are trying to edit a protected cell or object.';
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toMatchObject({ ok: true, queued: true });
    expect(m.queue).toHaveLength(1);
    expect(m.logs).toEqual(['delivery 01JQ8ZK4W6E2V1RZ5T3N8M0B7C queued; its Journal line is left to the next run (You are trying to edit a protected cell or object.)']);
  });

  it('answers a redelivery of the same event_id as a duplicate and adds no row', () => {
    const m = memoryIntake();
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toEqual({ ok: true, duplicate: true, event_id: '01JQ8ZK4W6E2V1RZ5T3N8M0B7C' });
    expect(m.queue).toHaveLength(1);
  });

  it('finds a duplicate in the sheet when the cache has forgotten it (cache is only a fast path)', () => {
    const m = memoryIntake();
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    m.deps.cache.get = () => null;
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps).duplicate).toBe(true);
    expect(m.queue).toHaveLength(1);
  });

  it('leaves no seen mark for a first delivery (a cache put on every delivery costs more than the rare redelivery saves), and one for a redelivery found in the sheet', () => {
    const m = memoryIntake();
    const puts: string[] = [];
    const put = m.deps.cache.put.bind(m.deps.cache);
    m.deps.cache.put = (key, value, ttl) => { puts.push(key); put(key, value, ttl); };
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    expect(puts).toEqual([]);
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps).duplicate).toBe(true);
    expect(puts).toEqual(['seen:01JQ8ZK4W6E2V1RZ5T3N8M0B7C']);
    const lockTaken = m.deps.lock.tryLock.bind(m.deps.lock);
    let locked = 0;
    m.deps.lock.tryLock = (ms) => { locked += 1; return lockTaken(ms); };
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps).duplicate).toBe(true);
    expect(locked).toBe(0); // the third delivery is answered from the mark, without the lock or the sheet
  });

  it('treats a new event_id carrying an already-queued response token as a duplicate', () => {
    const m = memoryIntake();
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    const again = essay.replace('01JQ8ZK4W6E2V1RZ5T3N8M0B7C', '01JQ8ZK4W6E2V1RZ5T3N8M0XXX');
    expect(handleDelivery({ token: TOKEN, body: again }, m.deps).duplicate).toBe(true);
    expect(m.queue).toHaveLength(1);
  });

  it('treats an event already moved to Archive as a duplicate', () => {
    const m = memoryIntake();
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    m.archive.push(...m.queue.splice(0));
    m.deps.cache.get = () => null;
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps).duplicate).toBe(true);
    expect(m.queue).toHaveLength(0);
  });

  it('looks in the Archive for a submission older than a day, and not for one made minutes ago (it cannot be archived yet)', () => {
    const now = Date.UTC(2026, 10, 30, 12, 0, 0);
    const recent = (n: number) => {
      const body = JSON.parse(essay);
      body.event_id = `01RECENT${n}`;
      body.form_response.token = `recent-token-${n}`;
      body.form_response.submitted_at = new Date(now - 5 * 60_000).toISOString();
      return JSON.stringify(body);
    };
    const m = memoryIntake({ now });
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toMatchObject({ queued: true }); // submitted 10 days before now
    expect(handleDelivery({ token: TOKEN, body: recent(1) }, m.deps)).toMatchObject({ queued: true });
    expect(m.searched).toEqual(['Queue+Archive', 'Queue']);
    // A retry of the recent one is still found, in the Queue.
    m.deps.cache.get = () => null;
    expect(handleDelivery({ token: TOKEN, body: recent(1) }, m.deps)).toMatchObject({ duplicate: true });
    expect(m.queue).toHaveLength(2);
  });

  it("queues Typeform's test request as TEST", () => {
    const m = memoryIntake();
    expect(handleDelivery({ token: TOKEN, body: fixture('test-request.json') }, m.deps)).toMatchObject({ ok: true, queued: true, test: true });
    expect(m.queue[0].status).toBe('TEST');
  });

  it('queues a submission without an email answer, with an empty recipient', () => {
    const m = memoryIntake();
    expect(handleDelivery({ token: TOKEN, body: fixture('no-email.json') }, m.deps).queued).toBe(true);
    expect(m.queue[0].recipient).toBe('');
  });

  it('accepts the previous token during a rotation', () => {
    const m = memoryIntake({ props: { WEBHOOK_TOKEN_PREVIOUS: OLD_TOKEN } });
    expect(handleDelivery({ token: OLD_TOKEN, body: essay }, m.deps).queued).toBe(true);
  });

  it.each([
    ['a wrong token', 'nope', essay, 'unauthorized'],
    ['a missing token', undefined, essay, 'unauthorized'],
    ['malformed JSON', TOKEN, '{"event_id":', 'malformed_json'],
    ['a body without event_id', TOKEN, '{"event_type":"form_response","form_response":{}}', 'missing_event_id'],
    ['a body without form_response', TOKEN, '{"event_id":"e1","event_type":"form_response"}', 'missing_form_response'],
    ['another event_type', TOKEN, '{"event_id":"e1","event_type":"form_deleted","form_response":{}}', 'unsupported_event_type'],
  ])('records %s in Rejected with its body and queues nothing', (_name, token, body, error) => {
    const m = memoryIntake();
    expect(handleDelivery({ token, body }, m.deps)).toEqual({ ok: false, error });
    expect(m.queue).toHaveLength(0);
    expect(m.rejected).toHaveLength(1);
    expect(m.rejected[0].body).toBe(body);
    expect(m.rejected[0].reason).toContain(error);
  });

  it('keeps a form_response_partial in Rejected with its reason, answers 2xx-ok, queues nothing and counts it as a partial', () => {
    const m = memoryIntake();
    const body = fixture('partial-response.json');
    expect(handleDelivery({ token: TOKEN, body }, m.deps)).toEqual({ ok: true, partial: true, event_id: '01KHNHB0PARTIAL0000000000X' });
    expect(m.queue).toHaveLength(0);
    expect(m.rejected).toHaveLength(1);
    expect(m.rejected[0].reason).toMatch(/^partial_response: .*never answered/);
    expect(m.rejected[0].body).toBe(JSON.stringify(JSON.parse(body)));
    expect(m.tally.rows).toEqual([{ day: '2026-11-30', bytes: 0, kind: 'partial', id: expect.any(String) }]);
  });

  it("queues Typeform's example payload (answers carry only field.id) with its recipient found through the definition", () => {
    const m = memoryIntake();
    m.forms.splice(0, m.forms.length, { ...form('*'), recipientField: 'readable_ref_email' });
    expect(handleDelivery({ token: TOKEN, body: fixture('example-payload.json') }, m.deps).queued).toBe(true);
    expect(m.queue[0].recipient).toBe('laura@example.com');
    expect(m.queue[0].submission).toContain('What is your first name?: Laura');
    expect(m.queue[0].submission).toContain('hidden.user_id: abc123456');
  });

  it('a rejected body too long for a cell is cut only after our secrets are removed: no first characters of a token survive the cut', () => {
    const m = memoryIntake();
    for (const offset of [5, 20, 44990]) {
      const body = `{"pad":"${'x'.repeat(45000 - offset - 9)}","t":"${TOKEN}${'y'.repeat(10000)}"}`;
      handleDelivery({ token: 'wrong', body }, m.deps);
    }
    for (const row of m.rejected) expect(row.body).not.toContain(TOKEN.slice(0, 8));
  });

  it('a WEBHOOK_TOKEN under 32 characters accepts nothing, not even itself: not_configured, with the reason in Rejected', () => {
    const m = memoryIntake({ props: { WEBHOOK_TOKEN: 'short-secret-1' } });
    expect(handleDelivery({ token: 'short-secret-1', body: essay }, m.deps)).toEqual({ ok: false, error: 'not_configured' });
    expect(m.queue).toHaveLength(0);
    expect(m.rejected[0].reason).toMatch(/^not configured: Script Property WEBHOOK_TOKEN is 14 characters long; it must be at least 32 random characters, so no delivery is accepted/);
    expect(JSON.stringify(m.rejected)).not.toContain('short-secret-1');
  });

  it('never stores the webhook token, even inside a rejected body', () => {
    const m = memoryIntake();
    handleDelivery({ token: 'wrong', body: `{"leak":"${TOKEN}"}` }, m.deps);
    expect(JSON.stringify(m.rejected)).not.toContain(TOKEN);
  });

  it(`keeps rejected deliveries while the day's ${REJECTED_BYTES_PER_DAY.toLocaleString('en-US')} bytes last, then only counts them, every one`, () => {
    const m = memoryIntake();
    const large = `{"junk":"${'x'.repeat(100_000)}"}`;
    for (let i = 0; i < 30; i++) handleDelivery({ token: 'bad', body: large }, m.deps);
    const keptBytes = m.rejected.reduce((sum, row) => sum + row.body.length + (row.bodyParts?.parts.join('').length ?? 0), 0);
    expect(m.rejected.length).toBeGreaterThan(10);
    expect(m.rejected.length).toBeLessThan(30);
    expect(keptBytes).toBeLessThanOrEqual(REJECTED_BYTES_PER_DAY);
    expect(foldTally(m.tally, m.deps.props, '2026-11-30')).toMatchObject({ count: 30, dropped: 30 - m.rejected.length });
  });

  it('a rejection counts on the calendar day of its arrival, and the next day has its room again', () => {
    const m = memoryIntake();
    const large = `{"junk":"${'x'.repeat(100_000)}"}`;
    for (let i = 0; i < 30; i++) handleDelivery({ token: 'bad', body: large }, m.deps);
    const firstDay = m.rejected.length;
    m.deps.clock = { now: () => Date.UTC(2026, 11, 1, 0, 0, 1) };
    handleDelivery({ token: 'bad', body: large }, m.deps);
    expect(m.rejected).toHaveLength(firstDay + 1);
    expect(m.tally.rows.at(-1)).toMatchObject({ day: '2026-12-01' });
  });

  it('rejects a form Config does not enable as "unknown form", keeping the body', () => {
    const m = memoryIntake();
    m.forms = [form('OtherForm')];
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toMatchObject({ ok: false, error: 'unknown_form' });
    expect(m.rejected[0].reason).toContain('unknown form');
    expect(m.queue).toHaveLength(0);
  });

  it('rejects a form whose own Config row is disabled even when * enables all', () => {
    const m = memoryIntake();
    m.forms = [form('*'), form('Wr1tE5sy', false)];
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps).error).toBe('unknown_form');
  });

  it('spills the delivery when the sheet fails, answering deferred', () => {
    const m = memoryIntake();
    m.sheetsDown.value = true;
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toEqual({ ok: true, queued: 'deferred', event_id: '01JQ8ZK4W6E2V1RZ5T3N8M0B7C' });
    expect(m.spilled).toHaveLength(1);
    expect(m.queue).toHaveLength(0);
  });

  it('queues the delivery without spilling it when the intake lock cannot be had in time (appends are atomic)', () => {
    const m = memoryIntake();
    m.lockHeld.value = true;
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps).queued).toBe(true);
    expect(m.spilled).toHaveLength(0);
    expect(m.queue).toHaveLength(1);
    expect(m.logs.join('\n')).toMatch(/without the intake lock/);
    // Still deduped against the sheet: a retry finds the row.
    m.deps.cache.get = () => null;
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps).duplicate).toBe(true);
  });

  it('answers backlog_full, never a false success, when the spill has no room', () => {
    const m = memoryIntake();
    m.sheetsDown.value = true;
    m.deps.spill.save = () => {
      throw Object.assign(new Error('full'), { code: 'SPILL_FULL' });
    };
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toMatchObject({ ok: false, error: 'backlog_full' });
  });

  it('chunks a payload over 50,000 characters into Payloads, reassembling byte for byte', () => {
    const m = memoryIntake();
    const long = JSON.parse(essay);
    long.form_response.answers[4].text = 'é'.repeat(60000);
    const body = JSON.stringify(long);
    handleDelivery({ token: TOKEN, body }, m.deps);
    expect(m.queue[0].payload).toBe('(in Payloads: 2 parts)');
    expect(m.payloads.map((part) => part[3]).join('')).toBe(body);
    expect(m.queue[0].submission.length).toBeLessThanOrEqual(45000);
  });
});

describe('drainSpill', () => {
  it('moves spilled deliveries into Queue in arrival order and dedupes them', () => {
    const m = memoryIntake();
    m.sheetsDown.value = true;
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    handleDelivery({ token: TOKEN, body: fixture('no-email.json') }, m.deps);
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    expect(m.spilled).toHaveLength(3);
    m.sheetsDown.value = false;
    expect(drainSpill(m.deps)).toEqual({ queued: 2, duplicates: 1, rejected: 0, left: 0 });
    expect(m.queue.map((row) => row.eventId)).toEqual(['01JQ8ZK4W6E2V1RZ5T3N8M0B7C', '01JQ9A0B1C2D3E4F5G6H7J8K9M']);
    expect(m.spilled).toHaveLength(0);
  });

  it('leaves the spill in place while the sheet is still down', () => {
    const m = memoryIntake();
    m.sheetsDown.value = true;
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    expect(() => drainSpill(m.deps)).toThrow(/Service Spreadsheets/);
    expect(m.spilled).toHaveLength(1);
  });
});

describe('drainSpill with a damaged entry', () => {
  it('keeps an undecodable spilled entry in Rejected with the reason and still queues the entries behind it', () => {
    const m = memoryIntake();
    m.spilled.push({ id: '1-a', receivedAt: 1, body: 'H4sI-not-gzip', unreadable: 'Could not decompress gzip.' } as never);
    m.spilled.push({ id: '2-b', receivedAt: 2, body: essay });
    expect(drainSpill(m.deps)).toEqual({ queued: 1, duplicates: 0, rejected: 1, left: 0 });
    expect(m.rejected[0]).toMatchObject({ body: 'H4sI-not-gzip' });
    expect(m.rejected[0].reason).toContain('could not be decoded');
    expect(m.queue).toHaveLength(1);
    expect(m.spilled).toHaveLength(0);
  });
});

describe('drainSpill, rule by rule', () => {
  it('an empty spill is done at once; a busy lock leaves every entry for the next run', () => {
    const m = memoryIntake();
    m.lockHeld.value = true;
    expect(drainSpill(m.deps)).toEqual({ queued: 0, duplicates: 0, rejected: 0, left: 0 });
    m.spilled.push({ id: '1-a', receivedAt: 1, body: essay }, { id: '2-b', receivedAt: 2, body: essay });
    expect(drainSpill(m.deps)).toEqual({ queued: 0, duplicates: 0, rejected: 0, left: 2 });
    expect(m.spilled).toHaveLength(2);
    expect(m.queue).toEqual([]);
  });

  it('a body too large or not from Typeform is set aside with its reason', () => {
    const m = memoryIntake();
    m.spilled.push({ id: '1-a', receivedAt: 1, body: ' '.repeat(200_001) }, { id: '2-b', receivedAt: 2, body: '{"hello":"world"}' });
    expect(drainSpill(m.deps)).toEqual({ queued: 0, duplicates: 0, rejected: 2, left: 0 });
    expect(m.rejected.map((entry) => entry.reason)).toEqual([
      'spilled delivery refused: body_too_large: the body is 200,001 characters (limit 200,000)',
      expect.stringMatching(/^spilled delivery is not a Typeform body \(.+\)$/),
    ]);
  });

  it('a sheet going down mid-drain is logged and stops it', () => {
    const m = memoryIntake();
    m.spilled.push({ id: '1-a', receivedAt: 1, body: essay });
    m.sheetsDown.value = true;
    expect(() => drainSpill(m.deps)).toThrow(/Service Spreadsheets/);
    expect(m.logs).toEqual([expect.stringMatching(/^spill drain stopped: .*Service Spreadsheets/)]);
  });
});

describe('refusals before the lock, counted under their kind', () => {
  const nested = `${'{"a":'.repeat(65)}1${'}'.repeat(65)}`;
  it.each<[string, Record<string, string>, string, string, string, string, string]>([
    [
      'a WEBHOOK_TOKEN too weak to accept anything',
      { WEBHOOK_TOKEN: 'short-secret-1' },
      'short-secret-1',
      essay,
      'not_configured',
      'not configured: Script Property WEBHOOK_TOKEN is 14 characters long; it must be at least 32 random characters, so no delivery is accepted; clear it and run formqueue → Set up / repair to generate one, then update the Typeform webhook URL',
      'not_configured',
    ],
    ['a body nested too deeply to parse', {}, TOKEN, nested, 'too_deeply_nested', 'too_deeply_nested: the JSON nests deeper than 64 levels', 'malformed'],
  ])('%s: answered with its error, kept in Rejected with its reason, counted in the Tally', (_name, props, token, body, error, reason, kind) => {
    const m = memoryIntake({ props });
    expect(handleDelivery({ token, body }, m.deps)).toEqual({ ok: false, error });
    expect(m.rejected.map((row) => row.reason)).toEqual([reason]);
    expect(m.tally.rows.map((row) => row.kind)).toEqual([kind]);
  });
});

describe('storeDelivery (the spill drain and "Accept rejected delivery" call it directly)', () => {
  it('an event_id too large for its cell is kept in Rejected as field_too_large, answered so, and counted so', () => {
    const m = memoryIntake();
    const body = JSON.parse(essay);
    body.event_id = 'e'.repeat(300);
    const parsed = parseTypeformBody(JSON.stringify(body));
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(storeDelivery(parsed.delivery, 1000, m.deps.openSheets(), m.deps)).toEqual({ ok: false, error: 'field_too_large', event_id: 'e'.repeat(300) });
    expect(m.rejected.map((row) => row.reason)).toEqual(['field_too_large: event_id is 300 characters (limit 256)']);
    expect(m.tally.rows.map((row) => row.kind)).toEqual(['field_too_large']);
    expect(m.queue).toEqual([]);
  });
});

describe("the cache's seen mark", () => {
  it('a redelivery found in the sheet leaves a non-empty mark under its event_id, kept for six hours', () => {
    const m = memoryIntake();
    const puts: [string, string, number][] = [];
    const put = m.deps.cache.put.bind(m.deps.cache);
    m.deps.cache.put = (key, value, ttl) => {
      puts.push([key, value, ttl]);
      put(key, value, ttl);
    };
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    expect(puts).toEqual([['seen:01JQ8ZK4W6E2V1RZ5T3N8M0B7C', '1', SEEN_CACHE_SECONDS]]);
    expect(SEEN_CACHE_SECONDS).toBe(6 * 60 * 60);
  });
});
