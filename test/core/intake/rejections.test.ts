// Recording rejected deliveries directly: the kind each is counted under, and a Rejected sheet that cannot be opened.
import { describe, expect, it } from 'vitest';
import { keepInRejected, keepRejectedDelivery } from '../../../src/core/intake/rejections';
import { memoryIntake, TOKEN } from './memory-intake';

const AT = Date.UTC(2026, 10, 30, 12, 0, 0);

describe('keepInRejected (a spilled body the drain cannot queue)', () => {
  it('keeps the body with its reason and counts it as an internal error', () => {
    const m = memoryIntake();
    keepInRejected(m.deps.openSheets(), m.deps, AT, 'spilled delivery is not a Typeform body (no event_id)', '{"hello":"world"}');
    expect(m.rejected).toEqual([{ at: AT, reason: 'spilled delivery is not a Typeform body (no event_id)', formId: '', eventId: '', body: '{"hello":"world"}' }]);
    expect(m.tally.rows).toEqual([{ day: '2026-11-30', bytes: 0, kind: 'internal_error', id: expect.any(String) }]);
  });
});

describe('keepRejectedDelivery (a field too large, refused before the lock)', () => {
  it('never throws when the spreadsheet cannot be opened: it logs the reason and the error, our secrets redacted', () => {
    const m = memoryIntake();
    m.deps.openSheets = () => {
      throw new Error(`Exception: Service Spreadsheets failed (${TOKEN})`);
    };
    keepRejectedDelivery(m.deps, { at: AT, kind: 'field_too_large', reason: 'field_too_large: event_id is 300 characters (limit 256)', body: '{}', eventId: 'e' });
    expect(m.logs).toEqual(['rejected delivery (field_too_large: event_id is 300 characters (limit 256)) could not be recorded in Rejected: Exception: Service Spreadsheets failed ([redacted])']);
    expect(m.rejected).toEqual([]);
  });
});
