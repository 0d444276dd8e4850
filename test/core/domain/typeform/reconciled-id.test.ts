// The event_id of a response recovered from Typeform's Responses API, and when such a row waits for a person.
import { describe, expect, it } from 'vitest';
import { isReconciledEventId, reconciledEventId, recoveredNeedsApproval } from '../../../../src/core/domain/typeform/reconciled-id';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 11, 2, 12);

describe('a recovered response’s event_id', () => {
  it('is the response token behind the reconciled: prefix, and reads back as recovered', () => {
    expect(reconciledEventId('abc123')).toBe('reconciled:abc123');
    expect(isReconciledEventId(reconciledEventId('abc123'))).toBe(true);
  });

  it.each(['01BEN000000000000000000001', 'abc123', ' reconciled:abc', 'Reconciled:abc', ''])('a webhook event_id (%j) is not recovered', (eventId) => {
    expect(isReconciledEventId(eventId)).toBe(false);
  });
});

describe('whether a recovered row waits for a person', () => {
  it.each([
    // [what, eventId, submittedAt, autoSendHours, waits]
    ['a row the webhook delivered never waits for this reason, however old', 'evt-1', NOW - 100 * HOUR, 24, false],
    ['a webhook row with an unreadable submitted_at does not wait either', 'evt-1', null, 24, false],
    ['a recovered row younger than auto-send hours is answered as its form says', 'reconciled:t', NOW - 23 * HOUR, 24, false],
    ['a recovered row one millisecond short of the limit is still answered', 'reconciled:t', NOW - 24 * HOUR + 1, 24, false],
    ['a recovered row exactly auto-send hours old waits', 'reconciled:t', NOW - 24 * HOUR, 24, true],
    ['an older recovered row waits', 'reconciled:t', NOW - 25 * HOUR, 24, true],
    ['a recovered row whose submitted_at cannot be read waits', 'reconciled:t', null, 24, true],
    ['auto-send hours 0 holds every recovered row, even a fresh one', 'reconciled:t', NOW, 0, true],
    ['a negative auto-send hours holds them too', 'reconciled:t', NOW, -1, true],
    ['with 1 hour, a row 59 minutes old is answered', 'reconciled:t', NOW - 59 * 60_000, 1, false],
    // A submitted_at ahead of our clock (skew) must not slip past a hold: 0 holds it all the same.
    ['auto-send hours 0 holds a row stamped a minute ahead of our clock', 'reconciled:t', NOW + 60_000, 0, true],
    ['an unreadable submitted_at waits even when auto-send hours is huge', 'reconciled:t', null, 1e9, true],
  ])('%s', (_what, eventId, submittedAt, autoSendHours, waits) => {
    expect(recoveredNeedsApproval(eventId as string, submittedAt as number | null, NOW, autoSendHours as number)).toBe(waits);
  });
});
