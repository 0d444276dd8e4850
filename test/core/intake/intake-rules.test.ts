// handleDelivery rule by rule: no token set, which email is size-checked, the seen mark, the lock, and each failure while storing.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codedError } from '../../../src/core/domain/failures/errors';
import { CELL_LIMIT_CHARS } from '../../../src/core/domain/queue/cell-chunks';
import { handleDelivery, INTAKE_LOCK_WAIT_MS, SEEN_CACHE_SECONDS } from '../../../src/core/intake/intake';
import type { IntakeSheetsWithConfig } from '../../../src/core/intake/intake';
import { countLocks, form, memoryIntake, TOKEN } from './memory-intake';

const essay = readFileSync(new URL('../../fixtures/typeform/essay-submission.json', import.meta.url), 'utf8');
const EVENT = '01JQ8ZK4W6E2V1RZ5T3N8M0B7C';

/** The essay with its answers replaced by `answers` (pretty-printed, so the raw body differs from its compact JSON). */
function essayWith(answers: unknown[]): string {
  const json = JSON.parse(essay);
  json.form_response.answers = answers;
  return JSON.stringify(json, null, 2);
}
const email = (ref: string, address: string) => ({ type: 'email', email: address, field: { id: `f_${ref}`, ref, type: 'email' } });
const text = (ref: string, value: string) => ({ type: 'text', text: value, field: { id: `f_${ref}`, ref, type: 'short_text' } });

/** An intake whose sheets are replaced part by part (`patch`), counting lock takes and releases. */
function patchedIntake(patch: (sheets: IntakeSheetsWithConfig) => Partial<IntakeSheetsWithConfig>) {
  const m = memoryIntake();
  const locks = countLocks(m);
  const open = m.deps.openSheets;
  m.deps.openSheets = () => {
    const sheets = open();
    return Object.assign(Object.create(sheets) as IntakeSheetsWithConfig, patch(sheets));
  };
  return { m, locks };
}

describe('handleDelivery with no WEBHOOK_TOKEN set', () => {
  it('accepts nothing: not_configured, the body in Rejected with why, nothing queued', () => {
    const m = memoryIntake({ props: { WEBHOOK_TOKEN: '' } });
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toEqual({ ok: false, error: 'not_configured' });
    expect(m.rejected.map((row) => [row.reason, row.body])).toEqual([
      ['not configured: Script Property WEBHOOK_TOKEN is not set, so no delivery can be authenticated', essay],
    ]);
    expect(m.queue).toEqual([]);
  });
});

describe('handleDelivery: the size check before the sheet', () => {
  it('checks the longest email answer, not the first or the last, even when Config names a shorter one as recipient', () => {
    const m = memoryIntake();
    m.forms = [{ ...form('*'), recipientField: 'second' }];
    const body = essayWith([email('first', `${'a'.repeat(330)}@example.com`), email('second', 'b@example.com')]);
    expect(handleDelivery({ token: TOKEN, body }, m.deps)).toEqual({ ok: false, error: 'field_too_large' });
    // Refused before parsing was stored: the raw body is kept, not the compact JSON.
    expect(m.rejected.map((row) => [row.reason, row.body])).toEqual([['field_too_large: recipient is 342 characters (limit 320)', body]]);
    expect(m.queue).toEqual([]);
  });

  it('short email answers pass, and Config picks the recipient among them', () => {
    const m = memoryIntake();
    m.forms = [{ ...form('*'), recipientField: 'second' }];
    expect(handleDelivery({ token: TOKEN, body: essayWith([email('first', 'a@example.com'), email('second', 'b@example.com')]) }, m.deps).queued).toBe(true);
    expect(m.queue[0].recipient).toBe('b@example.com');
  });

  it('a recipient too long found only through Config (a text answer) is refused under the lock, labelled by its error', () => {
    const m = memoryIntake();
    m.forms = [{ ...form('*'), recipientField: 'contact' }];
    const body = essayWith([text('contact', 'c'.repeat(321))]);
    expect(handleDelivery({ token: TOKEN, body }, m.deps)).toEqual({ ok: false, error: 'field_too_large', event_id: EVENT });
    expect(m.rejected.map((row) => [row.reason, row.body])).toEqual([['field_too_large: recipient is 321 characters (limit 320)', JSON.stringify(JSON.parse(body))]]);
  });

  it('a form Config does not enable is refused with the form named', () => {
    const m = memoryIntake();
    m.forms = [form('OtherForm')];
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    expect(m.rejected.map((row) => row.reason)).toEqual(['unknown form: "Wr1tE5sy" is not enabled in the Config sheet']);
  });
});

describe('handleDelivery: the spreadsheet opened before the intake lock', () => {
  /** Records when the spreadsheet is opened, its Config read ahead (when the sheets have that step) and the lock taken. */
  function watched(options: { prepare: boolean; brokenFirstOpen?: boolean }) {
    const m = memoryIntake();
    const calls: string[] = [];
    /** What each read ahead was asked to read. */
    const readAhead: { forms: boolean }[] = [];
    const open = m.deps.openSheets;
    m.deps.openSheets = () => {
      calls.push('open');
      const sheets = Object.create(open()) as IntakeSheetsWithConfig;
      const broken = options.brokenFirstOpen === true && calls.filter((call) => call === 'open').length === 1;
      if (broken) sheets.readForms = () => { throw new Error('Exception: Service Spreadsheets timed out'); };
      if (options.prepare) sheets.prepare = (what) => {
        calls.push('prepare');
        readAhead.push(what);
        if (broken) throw new Error('Exception: Service Spreadsheets timed out');
      };
      return sheets;
    };
    const lock = m.deps.lock;
    m.deps.lock = { tryLock: (ms) => (calls.push('lock'), lock.tryLock(ms)), release: () => lock.release() };
    return { m, calls, readAhead };
  }

  it.each([
    ['with no copy of Config in Script Properties, Config is read ahead too', null, true],
    ['with Config copied into Script Properties, Config is not read ahead', [{ formId: '*', enabled: true, recipientField: '' }], false],
  ])('%s', (_case, mirrored, forms) => {
    const watch = watched({ prepare: true });
    watch.m.deps.mirroredForms = mirrored;
    expect(handleDelivery({ token: TOKEN, body: essay }, watch.m.deps).queued).toBe(true);
    expect(watch.readAhead).toEqual([{ forms }]);
  });

  it.each([
    ['sheets that read Config and the Queue header ahead', true, ['open', 'prepare', 'lock']],
    ['sheets with no such step', false, ['open', 'lock']],
  ])('%s: opened once, before the lock, so the lock is held only for the duplicate check and the append', (_case, prepare, calls) => {
    const watch = watched({ prepare });
    expect(handleDelivery({ token: TOKEN, body: essay }, watch.m.deps).queued).toBe(true);
    expect(watch.calls).toEqual(calls);
    expect(watch.m.queue).toHaveLength(1);
  });

  it('a failure while reading ahead is met again under the lock: the spreadsheet is opened afresh and the delivery queued', () => {
    const watch = watched({ prepare: true, brokenFirstOpen: true });
    expect(handleDelivery({ token: TOKEN, body: essay }, watch.m.deps)).toEqual({ ok: true, queued: true, event_id: EVENT });
    expect(watch.calls).toEqual(['open', 'prepare', 'lock', 'open']);
    expect([watch.m.queue.length, watch.m.spilled.length, watch.m.rejected.length]).toEqual([1, 0, 0]);
  });
});

describe('handleDelivery: the size check reads email answers only', () => {
  it('another answer carrying an "email" key of any length is not checked as the recipient: the delivery queues', () => {
    const m = memoryIntake();
    const body = essayWith([email('contact', 'a@example.com'), { ...text('name', 'Mina'), email: `${'x'.repeat(400)}@example.com` }]);
    expect(handleDelivery({ token: TOKEN, body }, m.deps).queued).toBe(true);
    expect(m.queue[0].recipient).toBe('a@example.com');
  });
});

describe('handleDelivery and the seen mark', () => {
  it('a delivery whose seen mark is in the cache is a duplicate at once: no lock, no sheet (even one that is down), no spill', () => {
    const { m, locks } = patchedIntake(() => ({}));
    m.deps.cache.put(`seen:${EVENT}`, '1', SEEN_CACHE_SECONDS);
    m.sheetsDown.value = true;
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toEqual({ ok: true, duplicate: true, event_id: EVENT });
    expect(m.spilled).toEqual([]);
    expect(locks).toEqual({ taken: 0, released: 0 });
  });

  it('a cache that fails to answer is logged and the sheet decides', () => {
    const m = memoryIntake();
    m.deps.cache.get = () => {
      throw new Error('Cache service unavailable');
    };
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps).queued).toBe(true);
    expect(m.logs).toEqual(['cache get failed (dedupe still works through the sheet): Cache service unavailable']);
  });

  it('a cache that fails to keep the mark of a redelivery is logged; the answer is still duplicate', () => {
    const m = memoryIntake();
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    m.deps.cache.put = () => {
      throw new Error('Argument too large');
    };
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toEqual({ ok: true, duplicate: true, event_id: EVENT });
    expect(m.logs).toEqual(['cache put failed (dedupe still works through the sheet): Argument too large']);
  });
});

describe('handleDelivery and the intake lock', () => {
  it('with the lock free nothing is logged, and the lock is released once', () => {
    const { m, locks } = patchedIntake(() => ({}));
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps).queued).toBe(true);
    expect(m.logs).toEqual([]);
    expect(locks).toEqual({ taken: 1, released: 1 });
  });

  it('with the lock busy the delivery is appended anyway and the log says how long it waited', () => {
    const m = memoryIntake();
    m.lockHeld.value = true;
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    expect(m.logs).toEqual([`delivery ${EVENT} queued without the intake lock (busy for ${INTAKE_LOCK_WAIT_MS} ms)`]);
  });
});

describe('handleDelivery when the append throws', () => {
  it.each([
    ['a Sheets outage', () => new Error('Exception: Service Spreadsheets timed out while accessing document with id x.'), 'the spreadsheet is unavailable: Exception: Service Spreadsheets timed out while accessing document with id x.'],
    ['a sheet Set up restores (CONFIG_MISSING)', () => codedError('CONFIG_MISSING', 'the Queue sheet is missing'), 'the spreadsheet is not set up: the Queue sheet is missing'],
  ])('%s spills the delivery, answers deferred and logs why; the lock is released', (_name, make, why) => {
    const { m, locks } = patchedIntake(() => ({
      appendQueueRow: () => {
        throw make();
      },
    }));
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toEqual({ ok: true, queued: 'deferred', event_id: EVENT });
    expect(m.spilled.map((entry) => entry.body)).toEqual([JSON.stringify(JSON.parse(essay))]);
    expect(m.logs).toEqual([`delivery ${EVENT} spilled to Script Properties (${why}); processQueue will queue it`]);
    expect(m.rejected).toEqual([]);
    expect(locks).toEqual({ taken: 1, released: 1 });
  });

  it('any other failure keeps the delivery in Rejected as internal_error with the code, not in the spill', () => {
    const { m, locks } = patchedIntake(() => ({
      appendQueueRow: () => {
        throw new TypeError('row.eventId is undefined');
      },
    }));
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toEqual({ ok: false, error: 'internal_error', event_id: EVENT });
    const reason = 'internal_error: queuing failed (CODE_BUG): row.eventId is undefined';
    expect(m.rejected.map((row) => [row.reason, row.body])).toEqual([[reason, essay]]);
    expect(m.logs).toEqual([`delivery ${EVENT} kept in Rejected: ${reason}`]);
    expect(m.spilled).toEqual([]);
    expect(locks).toEqual({ taken: 1, released: 1 });
  });

  it('when Rejected fails too, the delivery is spilled with the first reason, and both failures are logged', () => {
    const { m } = patchedIntake(() => ({
      appendQueueRow: () => {
        throw codedError('CELL_TOO_LARGE', 'no cell holds it');
      },
      appendRejected: () => {
        throw new Error('Rejected is protected');
      },
    }));
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toEqual({ ok: true, queued: 'deferred', event_id: EVENT });
    expect(m.logs).toEqual([
      `delivery ${EVENT} could not be kept in Rejected either (Rejected is protected)`,
      `delivery ${EVENT} spilled to Script Properties (internal_error: queuing failed (CELL_TOO_LARGE): no cell holds it); processQueue will queue it`,
    ]);
    expect(m.spilled).toHaveLength(1);
  });

  it('when the spill refuses too, the answer is backlog_full and the log says it could not be kept', () => {
    const m = memoryIntake();
    m.sheetsDown.value = true;
    m.deps.spill.save = () => {
      throw codedError('SPILL_FULL', 'the spill is full');
    };
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps)).toEqual({ ok: false, error: 'backlog_full', event_id: EVENT });
    expect(m.logs.at(-1)).toBe(`delivery ${EVENT} could not be kept: the spill is full`);
  });
});

describe('the queued row at the cell limit', () => {
  /** The essay with its essay answer padded so that the compact JSON is `length` characters. */
  function compactOf(length: number): string {
    const json = JSON.parse(essay);
    json.form_response.answers[4].text = '';
    const base = JSON.stringify(json).length;
    json.form_response.answers[4].text = 'x'.repeat(length - base);
    const body = JSON.stringify(json);
    expect(body).toHaveLength(length);
    return body;
  }

  it(`a payload of exactly ${CELL_LIMIT_CHARS.toLocaleString('en-US')} characters stays in its cell; one more goes to Payloads`, () => {
    const m = memoryIntake();
    const fits = compactOf(CELL_LIMIT_CHARS);
    handleDelivery({ token: TOKEN, body: fits }, m.deps);
    expect(m.queue[0].payload).toBe(fits);
    expect(m.payloads).toEqual([]);
    const over = memoryIntake();
    handleDelivery({ token: TOKEN, body: compactOf(CELL_LIMIT_CHARS + 1) }, over.deps);
    expect(over.queue[0].payload).toBe('(in Payloads: 2 parts)');
  });

  it('a submission too long for a cell is cut with a note that every answer is in the payload', () => {
    const m = memoryIntake();
    handleDelivery({ token: TOKEN, body: compactOf(CELL_LIMIT_CHARS + 1) }, m.deps);
    expect(m.queue[0].submission.endsWith('\n… (cut to fit a cell; every answer is in the payload)')).toBe(true);
  });
});
