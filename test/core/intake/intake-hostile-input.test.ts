// Hostile deliveries in core: every field capped with a reason naming it, nothing unqueueable spilled, each spilled entry isolated.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_CHARS, MAX_JSON_DEPTH } from '../../../src/core/domain/typeform/delivery-limits';
import { handleDelivery } from '../../../src/core/intake/intake';
import { drainSpill } from '../../../src/core/intake/spill-drain';
import { memoryIntake, TOKEN } from './memory-intake';

const essay = readFileSync(new URL('../../fixtures/typeform/essay-submission.json', import.meta.url), 'utf8');

function patched(patch: (body: any) => void): string {
  const body = JSON.parse(essay);
  patch(body);
  return JSON.stringify(body);
}

const LONG = 'x'.repeat(60000);

describe('fields too large to store', () => {
  it.each([
    ['response_token', (b: any) => void (b.form_response.token = LONG), /response_token is 60,000 characters \(limit 256\)/],
    ['form_id', (b: any) => void (b.form_response.form_id = LONG), /form_id is 60,000 characters \(limit 256\)/],
    ['event_id', (b: any) => void (b.event_id = LONG), /event_id is 60,000 characters \(limit 256\)/],
    [
      'recipient',
      (b: any) => void (b.form_response.answers.find((a: any) => a.type === 'email').email = `${'a'.repeat(60000)}@example.com`),
      /recipient is 60,012 characters \(limit 320\)/,
    ],
  ])('rejects a %s over its limit with a reason naming it, even while Sheets is down (never spilled)', (_name, patch, reason) => {
    const m = memoryIntake();
    m.sheetsDown.value = true;
    expect(handleDelivery({ token: TOKEN, body: patched(patch) }, m.deps)).toMatchObject({ ok: false, error: 'field_too_large' });
    expect(m.spilled).toHaveLength(0);
    m.sheetsDown.value = false;
    expect(handleDelivery({ token: TOKEN, body: patched(patch) }, m.deps)).toMatchObject({ ok: false, error: 'field_too_large' });
    expect(m.queue).toHaveLength(0);
    expect(m.rejected).toHaveLength(1);
    expect(m.rejected[0].reason).toMatch(reason);
  });

  it('rejects a recipient_field answer over 320 characters when Config names that field', () => {
    const m = memoryIntake();
    m.forms[0].recipientField = 'name';
    const body = patched((b) => {
      b.form_response.answers[0].text = 'n'.repeat(400);
      b.form_response.answers[0].field.ref = 'name';
    });
    expect(handleDelivery({ token: TOKEN, body }, m.deps)).toMatchObject({ ok: false, error: 'field_too_large' });
    expect(m.rejected[0].reason).toMatch(/recipient is 400 characters/);
  });
});

describe('bodies intake refuses before parsing', () => {
  it.each([
    ['a 200,000-deep array', '['.repeat(200000) + ']'.repeat(200000), 'body_too_large'],
    ['a 5,000-deep object inside a small body', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000), 'too_deeply_nested'],
    [`a body over ${MAX_BODY_CHARS} characters`, patched((b) => void (b.form_response.answers[4].text = 'y'.repeat(MAX_BODY_CHARS))), 'body_too_large'],
  ])('answers %s with a named error and records it in Rejected', (_name, body, error) => {
    const m = memoryIntake();
    expect(handleDelivery({ token: TOKEN, body }, m.deps)).toEqual({ ok: false, error });
    expect(m.rejected).toHaveLength(1);
    expect(m.rejected[0].reason).toContain(error);
    expect(m.rejected[0].body.length).toBeLessThanOrEqual(50000);
  });

  it(`accepts JSON nested ${MAX_JSON_DEPTH} levels, and brackets inside strings do not count`, () => {
    const m = memoryIntake();
    const body = patched((b) => {
      b.form_response.hidden = { deep: JSON.parse('{"a":'.repeat(MAX_JSON_DEPTH - 3) + '1' + '}'.repeat(MAX_JSON_DEPTH - 3)) };
      b.form_response.answers[4].text = '[[[[{{{{'.repeat(100);
    });
    expect(handleDelivery({ token: TOKEN, body }, m.deps)).toMatchObject({ ok: true, queued: true });
  });
});

describe('reasons and cache keys from outside', () => {
  it('records a 60,000-character event_type with a reason cut to fit its cell', () => {
    const m = memoryIntake();
    expect(handleDelivery({ token: TOKEN, body: patched((b) => void (b.event_type = 'z'.repeat(60000))) }, m.deps)).toEqual({
      ok: false,
      error: 'unsupported_event_type',
    });
    expect(m.rejected).toHaveLength(1);
    expect(m.rejected[0].reason.length).toBeLessThanOrEqual(2000);
    expect(m.rejected[0].reason).toMatch(/^unsupported_event_type: event_type "zzz/);
  });

  it('queues an event_id of 246 characters although the cache refuses keys over 250 (Argument too large: key)', () => {
    const m = memoryIntake();
    const store = new Map<string, string>();
    const refuseLongKeys = (key: string) => {
      if (key.length > 250) throw new Error('Exception: Argument too large: key');
    };
    m.deps.cache = {
      get: (key) => (refuseLongKeys(key), store.get(key) ?? null),
      put: (key, value) => (refuseLongKeys(key), void store.set(key, value)),
    };
    const body = patched((b) => void (b.event_id = 'E'.repeat(246)));
    expect(handleDelivery({ token: TOKEN, body }, m.deps)).toMatchObject({ ok: true, queued: true });
    expect(handleDelivery({ token: TOKEN, body }, m.deps)).toMatchObject({ ok: true, duplicate: true });
    expect(m.queue).toHaveLength(1);
  });
});

describe('the spill is only for a sheet that cannot take the delivery now', () => {
  it('keeps a delivery whose append fails for another reason in Rejected with the reason, answering internal_error', () => {
    const m = memoryIntake();
    const sheets = m.deps.openSheets();
    m.deps.openSheets = () => ({ ...sheets, appendQueueRow: () => { throw new TypeError("Cannot read properties of undefined (reading 'x')"); } });
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toMatchObject({ ok: false, error: 'internal_error' });
    expect(m.spilled).toHaveLength(0);
    expect(m.rejected).toHaveLength(1);
    expect(m.rejected[0].reason).toMatch(/^internal_error: queuing failed \(CODE_BUG\): Cannot read properties/);
    expect(m.rejected[0].body).toBe(essay);
  });

  it('keeps an internal_error body too long for a cell whole, in parts under its own key', () => {
    const m = memoryIntake();
    const sheets = m.deps.openSheets();
    m.deps.openSheets = () => ({ ...sheets, appendQueueRow: () => { throw new TypeError('boom'); } });
    const body = patched((b) => void (b.form_response.answers[4].text = 'long essay '.repeat(10000)));
    expect(handleDelivery({ token: TOKEN, body }, m.deps)).toMatchObject({ ok: false, error: 'internal_error' });
    const [entry] = m.rejected;
    expect(entry.body).toMatch(/^\(in Payloads under rejected-\d+-[0-9a-f]{8}: 3 parts\)$/);
    expect(entry.bodyParts?.parts.join('')).toBe(body);
    expect(entry.body).toContain(entry.bodyParts!.key);
  });

  it('spills it when even Rejected cannot take it, so the body is always somewhere', () => {
    const m = memoryIntake();
    const sheets = m.deps.openSheets();
    const broken = () => {
      throw new TypeError('broken');
    };
    m.deps.openSheets = () => ({ ...sheets, appendQueueRow: broken, appendRejected: broken });
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toMatchObject({ ok: true, queued: 'deferred' });
    expect(m.spilled.map((entry) => JSON.parse(entry.body))).toEqual([JSON.parse(essay)]);
  });
});

describe('draining isolates each spilled entry', () => {
  it('puts an entry that cannot be queued in Rejected with the reason and queues the entries around it', () => {
    const m = memoryIntake();
    const good = (n: number) => patched((b) => {
      b.event_id = `EV${n}`;
      b.form_response.token = `TOK${n}`;
    });
    // As an older version spilled them: a token no cell holds, a body nested too deep.
    m.spilled.push({ id: '1', receivedAt: 1, body: good(1) });
    m.spilled.push({ id: '2', receivedAt: 2, body: patched((b) => void (b.form_response.token = LONG)) });
    m.spilled.push({ id: '3', receivedAt: 3, body: '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) });
    m.spilled.push({ id: '4', receivedAt: 4, body: good(4) });
    expect(drainSpill(m.deps)).toEqual({ queued: 2, duplicates: 0, rejected: 2, left: 0 });
    expect(m.queue.map((row) => row.eventId)).toEqual(['EV1', 'EV4']);
    expect(m.rejected.map((entry) => entry.reason)).toEqual([
      expect.stringMatching(/response_token is 60,000 characters/),
      expect.stringMatching(/too_deeply_nested/),
    ]);
    expect(m.spilled).toHaveLength(0);
  });

  it('sets aside an entry whose append throws a code bug, and the rest go on', () => {
    const m = memoryIntake();
    const sheets = m.deps.openSheets();
    let calls = 0;
    m.deps.openSheets = () => ({
      ...sheets,
      appendQueueRow: (row, chunks) => {
        if (++calls === 1) throw new TypeError('boom');
        return sheets.appendQueueRow(row, chunks);
      },
    });
    m.spilled.push({ id: '1', receivedAt: 1, body: patched((b) => void (b.event_id = 'A')) });
    m.spilled.push({ id: '2', receivedAt: 2, body: patched((b) => void ((b.event_id = 'B'), (b.form_response.token = 'TB'))) });
    expect(drainSpill(m.deps)).toEqual({ queued: 1, duplicates: 0, rejected: 1, left: 0 });
    expect(m.queue.map((row) => row.eventId)).toEqual(['B']);
    expect(m.rejected[0].reason).toMatch(/could not be queued \(CODE_BUG\): boom/);
  });
});
