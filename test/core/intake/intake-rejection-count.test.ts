// Every rejection is counted in the Tally with its kind, those of Typeform's own deliveries too, and kept whatever the room.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handleDelivery } from '../../../src/core/intake/intake';
import { REJECTED_BYTES_PER_DAY, REJECTED_TOTALS_PROPERTY } from '../../../src/core/domain/typeform/rejection-tally';
import { form, memoryIntake, TOKEN, type MemoryIntake } from './memory-intake';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/typeform/${name}`, import.meta.url), 'utf8');
const essay = fixture('essay-submission.json');
const patched = (patch: (body: any) => void) => {
  const body = JSON.parse(essay);
  patch(body);
  return JSON.stringify(body);
};
const DAY = '2026-11-30';

interface Case {
  token: string | undefined;
  body: string;
  setup?: (m: MemoryIntake) => void;
  error: string | undefined;
  kind: string;
  /** Room claimed (> 0) or none: a delivery kind is kept without a claim. */
  claims: boolean;
}

const cases: [string, Case][] = [
  ['a wrong token', { token: 'wrong', body: essay, error: 'unauthorized', kind: 'unauthorized', claims: true }],
  ['no WEBHOOK_TOKEN set', { token: TOKEN, body: essay, setup: (m) => void (m.deps.settings = { ...m.deps.settings, webhookToken: '' }), error: 'not_configured', kind: 'not_configured', claims: true }],
  ['not JSON, with our token', { token: TOKEN, body: '{"event_id": ', error: 'malformed_json', kind: 'malformed', claims: true }],
  ['a form Config does not enable (a second form wired to the same URL)', { token: TOKEN, body: essay, setup: (m) => void (m.forms = [form('OtherForm')]), error: 'unknown_form', kind: 'unknown_form', claims: false }],
  ['an event_id too large, refused before the lock', { token: TOKEN, body: patched((b) => (b.event_id = 'e'.repeat(300))), error: 'field_too_large', kind: 'field_too_large', claims: false }],
  [
    'a recipient too large found through Config, refused under the lock',
    {
      token: TOKEN,
      body: patched((b) => b.form_response.answers.push({ type: 'text', text: 'c'.repeat(321), field: { id: 'f_contact', ref: 'contact', type: 'short_text' } })),
      setup: (m) => void (m.forms = [{ ...form('*'), recipientField: 'contact' }]),
      error: 'field_too_large',
      kind: 'field_too_large',
      claims: false,
    },
  ],
  [
    'a failure while queuing (internal error)',
    {
      token: TOKEN,
      body: essay,
      setup: (m) => {
        const open = m.deps.openSheets;
        m.deps.openSheets = () => Object.assign(Object.create(open()), { appendQueueRow: () => { throw new TypeError('boom'); } });
      },
      error: 'internal_error',
      kind: 'internal_error',
      claims: false,
    },
  ],
  ['a partial response (answered ok)', { token: TOKEN, body: fixture('partial-response.json'), error: undefined, kind: 'partial', claims: false }],
];

describe('every rejection is counted, with its kind', () => {
  it.each(cases)('%s', (_case, { token, body, setup, error, kind, claims }) => {
    const m = memoryIntake();
    setup?.(m);
    expect(handleDelivery({ token, body }, m.deps).error).toBe(error);
    expect(m.rejected).toHaveLength(1);
    expect(m.tally.rows).toEqual([{ day: DAY, bytes: claims ? expect.any(Number) : 0, kind, id: expect.any(String) }]);
    if (claims) expect(m.tally.rows[0].bytes).toBeGreaterThan(0);
  });

  it("a delivery of Typeform's refused once read is kept even when the day's room is used up, and counted", () => {
    const m = memoryIntake();
    m.props[REJECTED_TOTALS_PROPERTY] = JSON.stringify({ day: DAY, count: 500, dropped: 0, bytes: REJECTED_BYTES_PER_DAY, through: '' });
    m.forms = [form('OtherForm')];
    handleDelivery({ token: TOKEN, body: patched((b) => (b.event_id = 'e'.repeat(300))) }, m.deps);
    handleDelivery({ token: TOKEN, body: essay }, m.deps);
    expect(m.rejected.map((row) => row.reason.split(':')[0])).toEqual(['field_too_large', 'unknown form']);
    expect(m.tally.rows.map((row) => [row.kind, row.bytes])).toEqual([['field_too_large', 0], ['unknown_form', 0]]);
  });

  it('a count that fails (no Tally sheet) still leaves the delivery kept in Rejected, and says so in the log', () => {
    const m = memoryIntake();
    m.forms = [form('OtherForm')];
    m.tally.append = () => {
      throw new Error('The Tally sheet is missing. Run formqueue → Set up / repair.');
    };
    expect(handleDelivery({ token: TOKEN, body: essay }, m.deps).error).toBe('unknown_form');
    expect(m.rejected).toHaveLength(1);
    expect(m.logs).toEqual(['rejected delivery (unknown_form) kept in Rejected but not counted: The Tally sheet is missing. Run formqueue → Set up / repair.']);
  });
});
