// Queue rows for the staff tests: one per status, with the fields a staff move reads.
import { emptyRow, type QueueRow } from '../../../src/core/queue-row';

export const T0 = Date.UTC(2025, 5, 1, 10, 0, 0);
export const DAY = 86_400_000;
export const STAFF = { user: 'ana@example.org', now: T0 };

export function row(status: string, patch: Partial<QueueRow> = {}, rowNumber = 2): QueueRow {
  return {
    ...emptyRow(),
    rowNumber,
    status,
    eventId: `ev-${rowNumber}`,
    receivedAt: T0 - DAY,
    formId: 'form1',
    recipient: 'someone@example.com',
    result: 'Dear someone, thanks.',
    updatedAt: T0 - 3600_000,
    ...patch,
  };
}
