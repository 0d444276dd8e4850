// The core tests' one queue-row builder, the time they start from, and the member of staff who acts.
import { emptyRow, type QueueRow } from '../../../src/core/domain/queue/queue-row';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../../src/core/domain/time';

export const T0 = Date.UTC(2025, 5, 1, 10, 0, 0);
export const MINUTE = MINUTE_MS;
export const HOUR = HOUR_MS;
export const DAY = DAY_MS;
/** Who acts in a staff move, and when. */
export const STAFF = { user: 'ana@example.org', now: T0 };

/** A row with `status` at sheet row 2 (or `patch.rowNumber`), event id `ev-<row>`, received at T0; the rest empty unless given. */
export function queueRow(status: string, patch: Partial<QueueRow> = {}): QueueRow {
  const rowNumber = patch.rowNumber ?? 2;
  return { ...emptyRow(), rowNumber, status, eventId: `ev-${rowNumber}`, receivedAt: T0, ...patch };
}

/** A row as staff meet it: received a day before T0 from form1, with a recipient and a reply written an hour ago. */
export function repliedRow(status: string, patch: Partial<QueueRow> = {}): QueueRow {
  return queueRow(status, {
    receivedAt: T0 - DAY,
    formId: 'form1',
    recipient: 'someone@example.com',
    result: 'Dear someone, thanks.',
    updatedAt: T0 - HOUR,
    ...patch,
  });
}
